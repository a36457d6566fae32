#!/usr/bin/env bash
# Sanitizer runs, in order, each run even when an earlier one failed:
#   1. the C stress test (IntegrationTests/Sources/RegistryStress) under
#      ASan+UBSan and under TSan, on ck (WEAVE_SYSTEM_CK) and on the portable
#      layer the registry uses without a system ck
#      (CSources/CWeaveRegistry/portable_ck.c), plus mutants that must fail:
#      five of weave_registry.c on each, two of the portable layer;
#   2. swift test --filter Stress (and the build-protocol tests and the
#      inline-storage and key-catalog tests, see swift_stress) under ASan
#      and TSan with the default traits
#      (the registry on the system's libck, Synchronization.Atomic), then
#      under TSan (and ASan with WEAVEDI_SANITIZE_PORTABLE_ASAN=1) with
#      --traits PortableAtomics, the configuration Apple platforms get
#      (default traits off: the registry on portable_ck.c, which SwiftPM
#      compiles with the sanitizer; swift-atomics' ManagedAtomic as
#      PlatformAtomic). The PortableAtomics TSan run gets no suppression:
#      scripts/tsan.supp's templates ck_epoch_register/ck_epoch_unregister
#      are unanchored, so they would also match portable_ck.c's own
#      weave_ck_epoch_register/weave_ck_epoch_unregister and hide races in
#      the code under test; its C11 atomics need none;
#   3. mutants of the Swift build protocols that the forced-window tests
#      must reject: buildOnce without its re-check after a claim won
#      (BuildWindowTests), an async waiter without its look or its
#      cancellation check under the lock (AsyncBuildWindowTests), a scope's
#      holder that does not keep its registration (TaskScopeTests), and a
#      factory's async chain link counted after it returned or never
#      (AsyncServiceTests, issue 41 b).
# The C test is compiled here with cc, not built as its SwiftPM target:
# SwiftPM would link Debian's libck.so, which is not instrumented, so ck's
# epoch and hash-set code would be invisible to the sanitizers. Here ck's own
# sources (scripts/ck-sources.sh) are compiled in, and the TSan build uses the
# model of ck_pr/ck_epoch.c described in that script. The portable builds
# compile portable_ck.c in instead, with no ck source or header and no
# suppression: its C11 atomics are what TSan understands directly.
#
# Usage: scripts/sanitize.sh [--c-only | --swift-only | --mutant NAME]
#   --mutant NAME: only that C mutant (e.g. grow-drops-slots-portable).
# Environment: WEAVEDI_C_BUILD (C build dir, default .build-c-sanitize), CC
#   (default clang, else gcc), WEAVE_STRESS_* (see the stress test's README).
# Logs: $WEAVEDI_C_BUILD/*.log, .build-asan/sanitize-swift.log, .build-tsan/sanitize-swift.log,
#   .build-asan-portable/sanitize-swift.log, .build-tsan-portable/sanitize-swift.log
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${WEAVEDI_C_BUILD:-$ROOT/.build-c-sanitize}"
REGISTRY_C="$ROOT/CSources/CWeaveRegistry/weave_registry.c"
STRESS_C="$ROOT/IntegrationTests/Sources/RegistryStress/registry_stress.c"
# Only ck internals, each explained there; the Swift run links the
# uninstrumented libck.so, where those entries never match.
SUPP="$ROOT/scripts/tsan.supp"
REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:'
RUN_C=1 RUN_SWIFT=1 ONLY_MUTANT=""
case "${1:-}" in
--c-only) RUN_SWIFT=0 ;;
--swift-only) RUN_C=0 ;;
--mutant) RUN_SWIFT=0 ONLY_MUTANT="${2:?--mutant needs a name}" ;;
"") ;;
*) echo "sanitize.sh: unknown argument $1 (--c-only, --swift-only, --mutant NAME or nothing)" >&2; exit 2 ;;
esac
START=$SECONDS
step() { printf '\n==> [%dm%02ds] %s\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)) "$*"; }
die() { echo "sanitize.sh: $*" >&2; exit 1; }
FAILED=()
fail() { echo "    FAILED: $*" >&2; FAILED+=("$*"); }

links() { # links COMPILER FLAGS...: builds and runs a trivial threaded program
    printf '#include <pthread.h>\nint main(void){return 0;}\n' >"$OUT/probe.c"
    "$@" "$OUT/probe.c" -o "$OUT/probe" >/dev/null 2>&1 && "$OUT/probe"
}

choose_compilers() { # sets ASAN=(compiler flags...) and TSAN=(compiler flags...)
    local cc lib
    ASAN=() TSAN=()
    for cc in ${CC:-} clang gcc; do
        command -v "$cc" >/dev/null || continue
        # lld: the Swift toolchain's default gold linker is noisy with ASan.
        if [ ${#ASAN[@]} -eq 0 ]; then
            if links "$cc" -fsanitize=address,undefined -fuse-ld=lld -pthread; then ASAN=("$cc" -fuse-ld=lld)
            elif links "$cc" -fsanitize=address,undefined -pthread; then ASAN=("$cc"); fi
        fi
        if [ ${#TSAN[@]} -eq 0 ]; then
            # The Swift toolchain's clang has a TSan runtime with libdispatch
            # interceptors: it needs the toolchain's libdispatch and BlocksRuntime.
            lib="$(dirname "$(command -v "$cc")")/../lib/swift/linux"
            if links "$cc" -fsanitize=thread -pthread; then TSAN=("$cc")
            elif [ -f "$lib/libdispatch.so" ] &&
                links "$cc" -fsanitize=thread -pthread -L"$lib" -Wl,-rpath,"$lib" -ldispatch -lBlocksRuntime; then
                TSAN=("$cc" -L"$lib" -Wl,-rpath,"$lib" -ldispatch -lBlocksRuntime)
            fi
        fi
    done
    [ ${#ASAN[@]} -gt 0 ] || die "no C compiler links -fsanitize=address,undefined"
    [ ${#TSAN[@]} -gt 0 ] || die "no C compiler links -fsanitize=thread"
    echo "    ASan: ${ASAN[*]} ($("${ASAN[0]}" --version | head -n1))"
    echo "    TSan: ${TSAN[*]} ($("${TSAN[0]}" --version | head -n1))"
}

build() { # build OUTPUT SRC asan|tsan ck|portable|portable-bare: the stress test
    # SRC: the registry's directory (CSources/CWeaveRegistry, or a mutant's
    # copy of it). portable-bare: the portable layer with weave_registry.c's
    # __tsan_acquire/__tsan_release renamed to functions that do nothing.
    local output="$1" src="$2" flags epoch="$OUT/ck/src/ck_epoch.c" layer
    if [ "$3" = asan ]; then
        flags=("${ASAN[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all)
    else
        # 64 epoch records: thread_burst then needs only 200 threads to outnumber
        # them, within TSan's 256 thread slots (see BURST_THREADS in the test).
        flags=("${TSAN[@]}" -fsanitize=thread -DWEAVE_EPOCH_RECORDS_MAX=64)
        epoch="$OUT/tsan-model/src/ck_epoch.c"
    fi
    case "$4" in
    ck)
        [ "$3" = asan ] || flags+=(-DCK_USE_CC_BUILTINS=1 -I"$OUT/tsan-model")
        layer=(-DWEAVE_SYSTEM_CK -I"$OUT/ck-md" -I"$OUT/ck/include" -I"$OUT/ck/src" "$epoch" "$OUT/ck/src/ck_hs.c")
        ;;
    portable) layer=("$src/portable_ck.c") ;;
    portable-bare)
        printf 'void weave_noop_acquire(void *p);\nvoid weave_noop_release(void *p);\n%s\n%s\n' \
            'void weave_noop_acquire(void *p) { (void)p; }' 'void weave_noop_release(void *p) { (void)p; }' >"$OUT/tsan-noop.c"
        layer=("$src/portable_ck.c" "$OUT/tsan-noop.c" -D__tsan_acquire=weave_noop_acquire -D__tsan_release=weave_noop_release)
        ;;
    *) die "build: unknown layer $4" ;;
    esac
    "${flags[@]}" -std=c11 -Wall -Wextra -g -O1 -fno-omit-frame-pointer -pthread -D_GNU_SOURCE \
        -DWEAVE_STRESS_HOOKS -I"$ROOT/CSources/CWeaveRegistry/include" \
        "${layer[@]}" "$src/weave_registry.c" "$STRESS_C" -o "$output" || die "compiling $output failed"
}

run() { # run NAME LOG BINARY: exit 0, no sanitizer report, "N passed, 0 failed"
    local status=0
    # A time limit: a hang (thread_burst did hang under TSan with more threads
    # than TSan's 256 thread slots) fails the run instead of the CI job's clock.
    timeout 1800 "$3" 2>&1 | tee "$2" | sed 's/^/    | /' || status=$?
    if grep -Eq "$REPORT" "$2"; then fail "$1: sanitizer report (see $2)"
    elif [ "$status" -ne 0 ]; then fail "$1: exit status $status (see $2)"
    elif ! grep -Eq '^[0-9]+ passed, 0 failed$' "$2"; then fail "$1: no 'N passed, 0 failed' line (see $2)"
    fi
}

mutant() { # mutant NAME FILE FUNCTION FROM TO asan|tsan LAYER EXPECTED [VAR=VALUE...]
    # A copy of the registry's sources with FROM replaced by TO inside
    # FUNCTION of FILE (weave_registry.c, portable_ck.c or portable_ck.h; one
    # line changed, under $OUT, never the repository's files); its stress run
    # on LAYER (see build) must exit non-zero with a line matching EXPECTED
    # in its log: proves the runs can fail. EXPECTED is an extended regular
    # expression naming every check that can catch the mutant: which one
    # does first depends on how the threads are scheduled (a concurrent
    # check on a busy machine may see nothing, and a serial one then does),
    # so the outcome must not.
    local name="$1-$7" file="$2" function="$3" from="$4" to="$5" kind="$6" layer="$7" expected="$8" status=0
    local source="$ROOT/CSources/CWeaveRegistry/$2"
    shift 8
    if [ -n "$ONLY_MUTANT" ] && [ "$ONLY_MUTANT" != "$name" ]; then return; fi
    step "mutation check ($name): $function with '$to' must fail"
    rm -rf "$OUT/$name"
    mkdir -p "$OUT/$name"
    cp "$ROOT"/CSources/CWeaveRegistry/*.[ch] "$OUT/$name/"
    sed "/^[a-z].*[ *]$function(.*[^;]\$/,/^}/ s|$from|$to|" "$source" >"$OUT/$name/$file"
    [ "$(diff "$source" "$OUT/$name/$file" | grep -c '^>')" -eq 1 ] ||
        die "mutation $name: '$from' is not one line of $function ($file changed?)"
    build "$OUT/$name/stress" "$OUT/$name" "$kind" "$layer"
    env "$@" "$OUT/$name/stress" >"$OUT/$name.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ] && grep -Eq "$expected" "$OUT/$name.log"; then
        echo "    caught (exit status $status): $(grep -Eo "$expected" "$OUT/$name.log" | sort | uniq -c | tr -s ' ' | paste -sd ';')"
    else
        fail "mutation $name was not caught (exit status $status, see $OUT/$name.log)"
    fi
}

c_stress() {
    step "C stress: ck sources, compilers"
    mkdir -p "$OUT"
    scripts/ck-sources.sh "$OUT"
    choose_compilers

    local src="$ROOT/CSources/CWeaveRegistry" layer suffix
    [ -z "$ONLY_MUTANT" ] || { c_mutants; return; }
    for layer in ck portable; do
        suffix="$([ "$layer" = ck ] || echo "-$layer")"
        step "C stress under ASan+UBSan ($layer)"
        build "$OUT/stress-asan$suffix" "$src" asan "$layer"
        ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1" \
            UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
            run "C ASan stress ($layer)" "$OUT/asan$suffix.log" "$OUT/stress-asan$suffix"
    done

    # Under TSan a concurrent round ends after 200,000 reads and 50 writer
    # rounds, not 1,000,000 and 200 (WEAVE_TSAN_STRESS_READS and
    # WEAVE_TSAN_STRESS_WRITER_ROUNDS set them): TSan reports a race from the
    # happens-before order of the two accesses, which the first rounds of
    # every path already give it, and a full round took 3 to 5 minutes under
    # TSan here, which pushed CI towards its time limit. ASan and the plain
    # runs keep the full counts; the windows themselves are forced by the
    # hooks and explored by the models.
    export WEAVE_STRESS_READS="${WEAVE_TSAN_STRESS_READS:-200000}" \
        WEAVE_STRESS_WRITER_ROUNDS="${WEAVE_TSAN_STRESS_WRITER_ROUNDS:-50}" WEAVE_STRESS_ALLOW_SHORT=1
    step "C stress under TSan (ck)"
    build "$OUT/stress-tsan" "$src" tsan ck
    TSAN_OPTIONS="suppressions=$SUPP print_suppressions=1 halt_on_error=0 second_deadlock_stack=1" \
        run "C TSan stress (ck)" "$OUT/tsan.log" "$OUT/stress-tsan"
    # No suppressions: nothing in the portable layer is a benign race.
    step "C stress under TSan (portable)"
    build "$OUT/stress-tsan-portable" "$src" tsan portable
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
        run "C TSan stress (portable)" "$OUT/tsan-portable.log" "$OUT/stress-tsan-portable"
    # weave_registry.c states ck's ordering to TSan with __tsan_acquire and
    # __tsan_release; with those doing nothing, only the portable layer's C11
    # atomics order the run, and it must still report nothing.
    step "C stress under TSan (portable, the registry's TSan annotations doing nothing)"
    build "$OUT/stress-tsan-portable-bare" "$src" tsan portable-bare
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
        run "C TSan stress (portable-bare)" "$OUT/tsan-portable-bare.log" "$OUT/stress-tsan-portable-bare"
    unset WEAVE_STRESS_READS WEAVE_STRESS_WRITER_ROUNDS WEAVE_STRESS_ALLOW_SHORT
    c_mutants
}

# The checks that catch a write freeing what a reader's section may still
# hold: ASan when the reader touches it, or the test's own when it looks
# first (a write that returned, or a value released, inside a section).
SECTION_CHECKS='ERROR: AddressSanitizer: heap-use-after-free|returned before the section ended|returned while a reader held a box in its section|returned inside a reader.s section|(died|freed|released) inside (the|its|a reader.s|the caller.s) (read )?section|released by a poll inside a section'

c_mutants() {
    local layer
    for layer in ck portable; do
        # A write that frees without waiting for readers (record_thread_exit has a barrier of its own).
        mutant no-grace-period weave_registry.c finish_write 'grace_period(record);' '/* mutation */' asan "$layer" \
            "$SECTION_CHECKS" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1
        # A write that frees stale boxes without waiting for slot reads (its
        # ck grace period does not see them): a reader holding a box in its
        # slot read (group slots) must see the write wait, or, when the
        # write runs late, find the box dead after its wait.
        mutant no-slot-reader-wait weave_registry.c finish_write 'slot_readers_wait();' '/* mutation */' asan "$layer" \
            "$SECTION_CHECKS" WEAVE_STRESS_ONLY=slots ASAN_OPTIONS=detect_leaks=0
        # A peek that ignores writes in progress (serial: the write calls the
        # reader back on its own thread).
        mutant peek-during-write weave_registry.c weave_slot_peek '(current \& 0xffffffffu)' '(current \& 0xffff0000u)' \
            asan "$layer" 'served the box cached before a write' WEAVE_STRESS_ONLY=write_in_progress ASAN_OPTIONS=detect_leaks=0
        # An index growth that leaves slots behind: the concurrent finders of
        # group slots miss a slot published before it, or, when they did not
        # run during a growth (one busy CPU), the serial finds after it do.
        mutant grow-drops-slots weave_registry.c slot_table_grow \
            'table->buckets\[slot_table_bucket(table, slot)\] = slot;' '(void)slot;' asan "$layer" \
            'find of a published slot returned NULL|slot [0-9]+ of the grown index not findable|find after the republish loop' \
            WEAVE_STRESS_ONLY=slots ASAN_OPTIONS=detect_leaks=0
        # A plain read of a published node's value: readers against writers in
        # one concurrent round, stopping at the first report (and away from
        # thread_burst, see run).
        mutant plain-read weave_registry.c lookup_one 'ck_pr_load_ptr(&node->value)' '(node->value)' tsan "$layer" \
            'WARNING: ThreadSanitizer: data race' WEAVE_STRESS_ONLY=concurrent_round_1 WEAVE_STRESS_READS=1000 \
            WEAVE_STRESS_ALLOW_SHORT=1 TSAN_OPTIONS="suppressions=$SUPP halt_on_error=1"
    done
    # The portable layer's own: a grace period that waits for no reader, and
    # a section end whose store does not release the section's reads (only
    # TSan without the registry's annotations can see the second).
    mutant grace-waits-for-none portable_ck.c record_blocks \
        'return atomic_load_explicit(&record->epoch, memory_order_acquire) < target;' \
        '(void)target; return false;' asan portable \
        "$SECTION_CHECKS" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1
    mutant relaxed-end portable_ck.h ck_epoch_end 'active, memory_order_release' 'active, memory_order_relaxed' \
        tsan portable-bare 'WARNING: ThreadSanitizer: data race' TSAN_OPTIONS=halt_on_error=1
}

swift_stress() { # swift_stress ASan|TSan SCRATCH TRAITS ENV... : swift test --filter Stress under one sanitizer
    # TRAITS: "default" (no --traits option), else the value of --traits.
    local name="$1" scratch="$2" traits="$3" sanitizer status=0 options=() via=""
    shift 3
    sanitizer="$([ "$name" = ASan ] && echo address || echo thread)"
    if [ "$traits" != default ]; then
        options=(--traits "$traits")
        name="$name ($traits)"
        via=" --traits $traits"
    fi
    step "Swift $name stress: swift test --sanitize=$sanitizer$via --filter Stress, BuildWindowTests, OverlayBuildIsolationTests, AsyncServiceTests, AsyncBuildWindowTests, ShutdownTests, UpstreamStatisticsTests, FactoryStorageTests, InjectedKeyByTypeTests, KeyPathSlotTests, AsyncStartHungFactoryTests, NotedRegistriesTests, LazyInjectedTests, NamedRegistrationTests, ArgumentRegistrationTests, GraphScopeTests"
    mkdir -p "$scratch"
    env "$@" swift test --sanitize="$sanitizer" ${options[@]+"${options[@]}"} --scratch-path "$scratch" --filter "Stress|BuildWindowTests|OverlayBuildIsolationTests|AsyncServiceTests|AsyncBuildWindowTests|ShutdownTests|UpstreamStatisticsTests|FactoryStorageTests|InjectedKeyByTypeTests|KeyPathSlotTests|AsyncStartHungFactoryTests|NotedRegistriesTests|LazyInjectedTests|NamedRegistrationTests|ArgumentRegistrationTests|GraphScopeTests" 2>&1 |
        tee "$scratch/sanitize-swift.log" | sed 's/^/    | /' || status=$?
    if grep -Eq "$REPORT" "$scratch/sanitize-swift.log"; then fail "Swift $name stress: sanitizer report (see $scratch/sanitize-swift.log)"
    elif [ "$status" -ne 0 ]; then fail "Swift $name stress: exit status $status"
    fi
}

# swift_mutant NAME FILE PERL TESTS WHAT: a copy of the protocol with one
# step removed (PERL, a perl -0 substitution on FILE) that the forced-window
# tests TESTS must reject. Built with --traits PortableAtomics in
# .build-notraits, which scripts/test.sh has built just before, so only
# WeaveDI and its tests recompile; the source is restored on every exit.
swift_mutant() {
    local name="$1" file="$ROOT/$2" pattern="$3" tests="$4" what="$5" backup log
    step "Swift mutant ($name): $what; $tests must fail"
    backup="$(mktemp)"
    log="$ROOT/.build-notraits/mutant-$name.log"
    cp "$file" "$backup"
    trap 'cp "$backup" "$file"' EXIT
    perl -0pi -e "$pattern" "$file"
    if cmp -s "$file" "$backup"; then
        fail "Swift mutant $name: the step was not found in $file (update the pattern)"
    else
        mkdir -p "$ROOT/.build-notraits"
        if ! swift build --build-tests --traits PortableAtomics --scratch-path "$ROOT/.build-notraits" >"$log" 2>&1; then
            fail "Swift mutant $name: did not build (see $log)"
        elif swift test --skip-build --traits PortableAtomics --scratch-path "$ROOT/.build-notraits" \
            --filter "$tests" >>"$log" 2>&1; then
            fail "Swift mutant $name: $tests passed with it"
        else
            grep -E "error: $tests" "$log" | sed 's/^/    | /' | head -8
            echo "    mutant rejected: $tests failed"
        fi
    fi
    cp "$backup" "$file"
    rm -f "$backup"
    trap - EXIT
}

swift_mutants() {
    # The defect of issue 22, put back: a claim won in the monitor loop builds
    # without looking for an instance published meanwhile (a second build).
    swift_mutant no-recheck Sources/WeaveDICore/Registry/BuildOnce.swift \
        's/\n *\/\/ Published between this thread.s last look and its claim\.\n *if let value = current\(\) \{\n *holder\.releaseClaim\(me\)\n *return value\n *\}//' \
        BuildWindowTests "buildOnce without the re-check after a won claim"
    # An async waiter that joins without looking again under the lock: one
    # that looked before a build ended starts a second build.
    swift_mutant async-no-locked-look Sources/WeaveDICore/Resolution/AsyncBuilds.swift \
        's/(let step: JoinStep<T> = state\.withLock \{ state in\n) *if let value = current\(\) \{\n *return \.resume\(\.success\(value\)\)\n *\}\n/$1/' \
        AsyncBuildWindowTests "an async waiter without its look under the lock"
    # An async waiter that joins without checking for its cancellation under
    # the lock: cancelled before it joined, it waits for the build anyway.
    swift_mutant async-no-cancel-check Sources/WeaveDICore/Resolution/AsyncBuilds.swift \
        's/\n *if Task\.isCancelled \{\n *return \.resume\(\.failure\(CancellationError\(\)\)\)\n *\}//' \
        AsyncBuildWindowTests "an async waiter without its cancellation check under the lock"
    # Issue 41 (b): a factory's link still counted once it has returned: a
    # task the factory left running gets a cycle for resolving its type later.
    swift_mutant returned-link-counts Sources/WeaveDICore/Registry/AsyncChain.swift \
        's/ && !\$0\.run\.hasReturned//' \
        AsyncServiceTests.testATaskAFactoryLeftRunning "a returned factory's link still on its tasks' chain"
    # Issue 41 (b): a factory's run marked returned as it starts (tasks it
    # starts never on its chain): a factory awaiting a task that resolves its
    # own registration hangs (a singleton) or recurses (a transient).
    swift_mutant returned-at-start Sources/WeaveDICore/Resolution/AsyncBuilds.swift \
        's/defer \{ (flight|run)\.markReturned\(\) \}/$1.markReturned()/g' \
        AsyncServiceTests.testAFactoryAwaitingATask "a factory's tasks never on its chain"
    # Issue 41 (b): the wait check's path followed the edges out of a flight
    # whose factory had returned (a task it left running recorded them): a
    # false cycle (async_returned.pml, CHILD_RESOLVES_B).
    swift_mutant path-through-returned Sources/WeaveDICore/Resolution/AsyncBuilds.swift \
        's/\n *if node\.hasReturned \{ return nil \}//' \
        AsyncBuildWindowTests.testAFlightWhoseFactoryReturnedIsNoLinkOfACycle "a wait's path through a returned flight"
    # Issue 41 (a): start's flights launched on the cooperative pool instead
    # of start's own threads: hung synchronous factories, as many as the pool
    # has threads, keep start's timer from firing.
    swift_mutant start-builds-on-pool Sources/WeaveDICore/Resolution/AsyncBuilds.swift \
        's/Task\(executorPreference: threads, operation: build\)/Task(operation: build)/' \
        AsyncStartHungFactoryTests.testStartReturnsWithinItsTimeoutWithMoreHung "start's builds on the cooperative pool"
    # A scope's holder that does not hold its registration: a .task resolve
    # through the type slot takes no reference of its own, so a registration
    # released mid-request would be freed under the scope that built from it.
    swift_mutant holder-drops-registration Sources/WeaveDICore/Resolution/ScopedInstances.swift \
        's/\$0\.scopeRegistration = registration/_ = registration/' \
        TaskScopeTests "a scope's holder that does not keep its registration"
    # A lazily injected property whose first reader keeps its own value even
    # when another published first: two first accesses at once answer two
    # values (the forced window of LazyInjectedTests).
    swift_mutant lazy-loser-keeps-own Sources/WeaveDICore/Resolution/FirstReadCell.swift \
        's/if exchanged \{/if exchanged || true {/' \
        LazyInjectedTests.testTwoFirstAccessesAtOnceKeepOneValue "a first read that loses the exchange answers its own value"
    # A name's first uses that both missed the lock-free lookup: without the
    # recheck under the lock each makes a key, splitting one name's
    # registrations in two (the forced window of NamedRegistrationTests).
    swift_mutant name-no-recheck Sources/WeaveDICore/Registry/RegistrationName.swift \
        's/if let known = find\(type, name\) \{ return known \}//' \
        NamedRegistrationTests.testTwoFirstUsesOfANameAtOnceMakeOneKey "a name added without rechecking under the lock"
    # A graph whose instances outlive the outermost resolve: the next
    # outermost resolve on the thread shares the last one's (graph_scope.pml,
    # MUTANT_NO_END).
    swift_mutant graph-no-end Sources/WeaveDICore/Registry/BuildChain.swift \
        's/if holdsGraph && frames\.isEmpty \{/if false {/' \
        GraphScopeTests.testOneResolveSharesOneInstanceAndTheNextResolveGetsAnother "a graph kept past its outermost resolve"
    # One graph store for every thread (Swinject #135): a resolve on another
    # thread inside the window shares, and ends, the first thread's graph
    # (the forced window of GraphScopeTests; graph_scope.pml, MUTANT_SHARED).
    swift_mutant graph-shared-store Sources/WeaveDICore/Registry/BuildChain.swift \
        's/\@exclusivity\(unchecked\) var graphInstances: \[ObjectIdentifier: GraphInstance\] = \[:\]/static let sharedGraph = Locked<[ObjectIdentifier: GraphInstance]>([:])\n    var graphInstances: [ObjectIdentifier: GraphInstance] {\n        get { Self.sharedGraph.withLock { \$0 } }\n        set { Self.sharedGraph.withLock { \$0 = newValue } }\n    }/' \
        GraphScopeTests.testAnotherThreadsResolveInsideTheWindowGetsItsOwnInstance "one graph store shared by all threads"
}

if [ "$RUN_C" -eq 1 ]; then c_stress; fi
if [ "$RUN_SWIFT" -eq 1 ]; then
    scripts/ensure-deps.sh
    # LeakSanitizer stays on. swift-corelibs-xctest (Swift 6.3.1) leaks a few
    # objects of its own per run; only those two allocation sites are suppressed.
    mkdir -p .build-asan
    printf 'leak:XCTMainMisc\nleak:awaitUsingExpectation\n' >.build-asan/lsan-xctest.supp
    swift_stress ASan .build-asan default ASAN_OPTIONS=detect_leaks=1 \
        LSAN_OPTIONS="suppressions=$ROOT/.build-asan/lsan-xctest.supp:print_suppressions=1" \
        WEAVEDI_STRESS_OPS=50000 WEAVEDI_STRESS_ROUNDS=5000
    swift_stress TSan .build-tsan default TSAN_OPTIONS="suppressions=$SUPP print_suppressions=1" \
        WEAVEDI_STRESS_OPS=50000 WEAVEDI_STRESS_ROUNDS=5000
    # The configuration Apple platforms get (see the header). The XCTest leak
    # suppressions are the same: they are XCTest's, not the configuration's.
    # Its ASan run only with WEAVEDI_SANITIZE_PORTABLE_ASAN=1: what differs
    # from the default traits is the C layer, which the C stress test runs
    # under ASan above, and swift-atomics' ManagedAtomic, a Swift class; its
    # build took 4 to 5 minutes of a CI job near its time limit. Its TSan run,
    # which checks the portable layer's orderings from Swift, always runs.
    if [ "${WEAVEDI_SANITIZE_PORTABLE_ASAN:-0}" = "1" ]; then
        swift_stress ASan .build-asan-portable PortableAtomics ASAN_OPTIONS=detect_leaks=1 \
            LSAN_OPTIONS="suppressions=$ROOT/.build-asan/lsan-xctest.supp:print_suppressions=1" \
            WEAVEDI_STRESS_OPS=50000 WEAVEDI_STRESS_ROUNDS=5000
    fi
    # No suppressions file: its ck entries would match portable_ck.c's
    # weave_ck_epoch_* too, and nothing in the portable layer is a benign race.
    swift_stress TSan .build-tsan-portable PortableAtomics TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
        WEAVEDI_STRESS_OPS=50000 WEAVEDI_STRESS_ROUNDS=5000
    swift_mutants
fi
if [ ${#FAILED[@]} -ne 0 ]; then
    step "FAILED:"
    printf '    - %s\n' "${FAILED[@]}"
    exit 1
fi
step "all sanitizer runs passed"
