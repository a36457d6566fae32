#ifndef WEAVE_CK_H
#define WEAVE_CK_H

/*
 * The Concurrency Kit the registry is built on. WEAVE_SYSTEM_CK (set by
 * Package.swift with the SystemConcurrencyKit trait, on Linux and macOS
 * only) asks for the system's libck; without it the registry compiles
 * against portable_ck.h, the few ck pieces it uses over C11 atomics and
 * pthreads, so it builds where no libck can be linked (iOS, tvOS, watchOS,
 * visionOS, Mac Catalyst, or a dependent that turns the trait off). A macro
 * and not __has_include: a machine with libck installed must still build the
 * portable configuration when it is asked for.
 *
 * The system's ck is used on x86-64 only, even when asked for. Released ck
 * (0.7.1, the newest tag and Debian's package) is wrong on weakly ordered
 * CPUs (arm64, 32-bit ARM, POWER, RISC-V) in code the registry runs; ck's
 * master fixed it after the release, in no tagged version:
 *   1faa673 "ck_epoch: add missing barrier for RMO architectures in begin"
 *           (ck_epoch_begin: a section could read before it was visible)
 *   d1b348c "ck_epoch: make poll safer to use" (ck_epoch_poll)
 *   dbba02d "ck_hs: add missing fence for RMO" (ck_hs reads)
 * On x86-64 (TSO) none of those orderings can be lost, and that is the
 * build the performance gate measures. SwiftPM cannot condition a define or
 * a dependency on the CPU, so the check is here: elsewhere the portable
 * layer is compiled and libck, still linked by the trait, is never called.
 * Its exported names cannot clash with libck's: the portable layer's
 * out-of-line functions are all weave_ck_* (portable_ck.h), everything else
 * in it is static. i386 is TSO too but is not taken: ck's 32-bit x86 port
 * has no 64-bit ck_pr operations, which the registry needs.
 */
#if defined(WEAVE_SYSTEM_CK) && defined(__x86_64__)
#define WEAVE_CK_SYSTEM 1
#include <ck_epoch.h>
#include <ck_hs.h>
#include <ck_pr.h>
#else
#define WEAVE_CK_PORTABLE 1
#include "portable_ck.h"
#endif

#endif
