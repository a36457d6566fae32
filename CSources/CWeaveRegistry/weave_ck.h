#ifndef WEAVE_CK_H
#define WEAVE_CK_H

/*
 * The Concurrency Kit the registry is built on. WEAVE_SYSTEM_CK (set by
 * Package.swift with the SystemConcurrencyKit trait, on Linux and macOS
 * only) selects the system's libck; without it the registry compiles
 * against portable_ck.h, the few ck pieces it uses over C11 atomics and
 * pthreads, so it builds where no libck can be linked (iOS, tvOS, watchOS,
 * visionOS, Mac Catalyst, or a dependent that turns the trait off). A macro
 * and not __has_include: a machine with libck installed must still build the
 * portable configuration when it is asked for.
 */
#ifdef WEAVE_SYSTEM_CK
#include <ck_epoch.h>
#include <ck_hs.h>
#include <ck_pr.h>
#else
#include "portable_ck.h"
#endif

#endif
