#!/usr/bin/env bash
# Checks the Promela models in IntegrationTests/Models exhaustively with spin
# (IntegrationTests/Models/README.md says what they model):
#
#   build_once.pml  the claim / publish / wait / wake protocol of buildOnce:
#                   a safety run (assertions, invalid end states) and a
#                   liveness run (every thread returns, weak fairness);
#   slot_cache.pml  the slot cache against the generation word and its
#                   count of writes in progress: a safety run;
#   async_build.pml the look / join / build / resume protocol of the async
#                   builds (AsyncBuilds), with cancellations and a failed
#                   build: a safety run and a liveness run;
#   async_returned.pml  the async builds' cycle checks against a factory's
#                   returned frame: a task a factory starts that resolves
#                   the same registration, before and after the factory
#                   returns, and two builds waiting on each other: a safety
#                   run and a liveness run;
#   slot_index.pml  the slot index's lock-free finds against publishes
#                   that grow it: a safety run;
#   slot_reads.pml  slot reads without a reader fence against a write
#                   that runs membarrier before it scans them, on store
#                   buffers (TSO); and the fenced form without membarrier:
#                   safety runs;
#   portable_epoch.pml  the grace periods of the epoch the registry uses
#                   without a system Concurrency Kit (portable_ck.c):
#                   reader sections against a writer's synchronize and a
#                   deferred free's poll: a safety run and a liveness run;
#   hs_grow.pml     the portable hash set's grow against lock-free readers
#                   and the deferred free of the old table: a safety run
#                   and a liveness run;
#   epoch_writers.pml  two writers ticking and scanning the portable epoch
#                   at once, and records registered or recycled during a
#                   scan: a safety run and a liveness run;
#   epoch_drain.pml a thread exit's barriers whose callbacks defer more,
#                   drained until nothing is pending: a safety run and a
#                   liveness run.
#
# The real protocol must verify with no error, over the full state space.
# Each mutant (a preprocessor switch, spin -a -DMUTANT_...) must fail, with
# the violation it is there to show; else the mutant no longer tests what
# it should, and this script fails too. Prints one line per run (model,
# variant, run, states stored, errors, verdict) and spin's summary line.
#
# Installs spin and gcc (pan.c's compiler and spin's preprocessor) through
# scripts/ensure-deps.sh when they are missing. Works in a temporary
# directory. About two minutes on two cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODELS="$ROOT/IntegrationTests/Models"

"$ROOT/scripts/ensure-deps.sh" spin gcc
for tool in spin gcc cpp; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "model-check: $tool missing after scripts/ensure-deps.sh" >&2
        exit 1
    }
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

failed=0
runs=0

# check MODEL VARIANT RUN EXPECT [spin -D flags...]
#   RUN     safety: pan built with -DSAFETY, assertions and invalid end states
#           liveness: the model's ltl claim (-DLIVENESS), pan -a -f; pan
#           built with -DNFAIR=3, weak fairness for up to 10 processes
#           (async_build runs up to 7, the claim included, async_returned
#           up to 8; the default is 6)
#   EXPECT  pass, or an extended regex that pan's error report must match
check() {
    local model="$1" variant="$2" run="$3" expect="$4"
    shift 4
    local dir="$WORK/$model.$variant.$run"
    local -a spin_flags=("$@") cc_flags=(-O2 -w) pan_flags=(-m100000)
    case "$run" in
    safety) cc_flags+=(-DSAFETY) ;;
    liveness)
        spin_flags+=(-DLIVENESS)
        cc_flags+=(-DNFAIR=3)
        pan_flags+=(-a -f)
        ;;
    *)
        echo "model-check: unknown run $run" >&2
        exit 2
        ;;
    esac
    mkdir -p "$dir"
    cp "$MODELS/$model.pml" "$dir/"
    runs=$((runs + 1))

    local output="" started=$SECONDS
    if ! (cd "$dir" && spin -a "${spin_flags[@]}" "$model.pml" >spin.log 2>&1); then
        cat "$dir/spin.log"
        printf '%-11s %-24s %-8s FAILED: spin -a %s\n' "$model" "$variant" "$run" "${spin_flags[*]}"
        failed=$((failed + 1))
        return
    fi
    if ! (cd "$dir" && gcc "${cc_flags[@]}" -o pan pan.c >cc.log 2>&1); then
        cat "$dir/cc.log"
        printf '%-11s %-24s %-8s FAILED: gcc pan.c\n' "$model" "$variant" "$run"
        failed=$((failed + 1))
        return
    fi
    output="$(cd "$dir" && ./pan "${pan_flags[@]}" 2>&1)" || true
    local seconds=$((SECONDS - started))

    local summary states errors verdict
    summary="$(grep -E '^State-vector .*errors: [0-9]+' <<<"$output" | head -1 || true)"
    states="$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' <<<"$output" | head -1)"
    errors="$(sed -nE 's/.*errors: ([0-9]+)$/\1/p' <<<"$summary")"
    if [ -z "$summary" ] || [ -z "$states" ] || [ -z "$errors" ]; then
        verdict="FAILED (no summary from pan)"
    elif [ "$expect" = pass ]; then
        if [ "$errors" -ne 0 ]; then
            verdict="FAILED (the real protocol must verify)"
        elif grep -qE 'max search depth too small|Search not completed' <<<"$output"; then
            verdict="FAILED (search not exhaustive)"
        else
            verdict="ok (verified, full state space)"
        fi
    elif [ "$errors" -ge 1 ] && grep -qE "$expect" <<<"$output"; then
        verdict="ok (rejected as it must be)"
    elif [ "$errors" -ge 1 ]; then
        verdict="FAILED (rejected, but not for /$expect/)"
    else
        verdict="FAILED (the mutant must be rejected)"
    fi

    printf '%-11s %-24s %-8s states stored %9s  errors %s  %3ss  %s\n' \
        "$model" "$variant" "$run" "${states:-?}" "${errors:-?}" "$seconds" "$verdict"
    printf '    %s\n' "${summary:-(no State-vector line)}"
    grep -E '^pan:[0-9]+: ' <<<"$output" | head -1 | sed 's/^/    /' || true
    case "$verdict" in
    ok*) ;;
    *)
        printf '%s\n' "$output" | sed 's/^/    | /'
        failed=$((failed + 1))
        ;;
    esac
}

check build_once real safety pass
check build_once real liveness pass
check build_once MUTANT_NO_RECHECK safety 'assertion violated \(builds<=1\)' -DMUTANT_NO_RECHECK
check build_once MUTANT_NO_FLAG safety 'invalid end state' -DMUTANT_NO_FLAG
check build_once MUTANT_NO_FLAG liveness 'acceptance cycle' -DMUTANT_NO_FLAG
check build_once MUTANT_PUBLISH_TWICE safety 'assertion violated \(publishes<=1\)' -DMUTANT_PUBLISH_TWICE
check async_build real safety pass
check async_build real liveness pass
check async_build MUTANT_NO_LOCKED_LOOK safety 'assertion violated \(builds<=1\)' -DMUTANT_NO_LOCKED_LOOK
check async_build MUTANT_NO_CANCEL_CHECK safety 'assertion violated +!\(handled\[i\]\)' -DMUTANT_NO_CANCEL_CHECK
check async_build MUTANT_SPLIT_END safety 'invalid end state' -DMUTANT_SPLIT_END
check async_build MUTANT_SPLIT_END liveness 'acceptance cycle' -DMUTANT_SPLIT_END
check async_returned real safety pass
check async_returned real liveness pass
check async_returned MUTANT_RETURNED_LINK_COUNTS safety 'assertion violated +!\(false_chain_cycle\)' \
    -DMUTANT_RETURNED_LINK_COUNTS
check async_returned MUTANT_MARK_AT_START safety 'assertion violated +!\(waits_on_own_build\)' -DMUTANT_MARK_AT_START
check async_returned MUTANT_MARK_AT_START liveness 'acceptance cycle' -DMUTANT_MARK_AT_START
check async_returned MUTANT_RETURNED_FLIGHT_COUNTS safety 'assertion violated +!\(false_wait_cycle\)' \
    -DMUTANT_RETURNED_FLIGHT_COUNTS
check async_returned MUTANT_NO_WAIT_CHECK safety 'assertion violated +!\(closes_loop\)' -DMUTANT_NO_WAIT_CHECK
check async_returned MUTANT_NO_WAIT_CHECK liveness 'acceptance cycle' -DMUTANT_NO_WAIT_CHECK
check async_returned CHILD_RESOLVES_B safety pass -DCHILD_RESOLVES_B
check async_returned CHILD_RESOLVES_B liveness pass -DCHILD_RESOLVES_B
check async_returned MUTANT_PATH_THROUGH_RETURNED safety 'assertion violated +!\(false_wait_cycle\)' \
    -DCHILD_RESOLVES_B -DMUTANT_PATH_THROUGH_RETURNED
check graph_scope real safety pass
check graph_scope MUTANT_SHARED safety 'assertion violated' -DMUTANT_SHARED
check graph_scope MUTANT_NO_END safety 'assertion violated' -DMUTANT_NO_END
check slot_cache real safety pass
check slot_cache MUTANT_OLD_PEEK safety 'assertion violated \(v>=floor_(mine|any)\)' -DMUTANT_OLD_PEEK
check slot_cache MUTANT_PEEK_DURING_WRITE safety 'assertion violated \(v>=floor_(mine|any)\)' \
    -DMUTANT_PEEK_DURING_WRITE
check slot_index real safety pass
check slot_index MUTANT_PUBLISH_FIRST safety 'assertion violated +!\(must\)' -DMUTANT_PUBLISH_FIRST
check slot_index MUTANT_NO_COPY safety 'assertion violated +!\(must\)' -DMUTANT_NO_COPY
check slot_reads real safety pass
check slot_reads FENCED safety pass -DFENCED
check slot_reads MUTANT_NO_MEMBARRIER safety 'assertion violated +!\(box_freed\)' -DMUTANT_NO_MEMBARRIER
check slot_reads MUTANT_SCAN_FIRST safety 'assertion violated +!\(box_freed\)' -DMUTANT_SCAN_FIRST
check slot_reads MUTANT_CHANGE_LATE safety 'assertion violated +!\(box_freed\)' -DMUTANT_CHANGE_LATE
check slot_reads FENCED+NO_READER_FENCE safety 'assertion violated +!\(box_freed\)' -DFENCED -DMUTANT_NO_READER_FENCE
check portable_epoch real safety pass
check portable_epoch real liveness pass
check portable_epoch MUTANT_NO_READER_FENCE safety 'assertion violated +!\(freed\[o\]\)' -DMUTANT_NO_READER_FENCE
check portable_epoch MUTANT_TARGET_BEFORE_TICK safety 'assertion violated +!\(freed\[o\]\)' -DMUTANT_TARGET_BEFORE_TICK
check portable_epoch MUTANT_POLL_IGNORES_ACTIVE safety 'assertion violated +!\(freed\[o\]\)' -DMUTANT_POLL_IGNORES_ACTIVE
check hs_grow real safety pass
check hs_grow real liveness pass
check hs_grow MUTANT_PUBLISH_BEFORE_FILL safety 'assertion violated +found' -DMUTANT_PUBLISH_BEFORE_FILL
check hs_grow MUTANT_FREE_AT_ONCE safety 'assertion violated +!\(tfreed\[t\]\)' -DMUTANT_FREE_AT_ONCE
check epoch_writers real safety pass
check epoch_writers real liveness pass
check epoch_writers MUTANT_JOIN_OTHER_TICK safety 'assertion violated +!\(freed\[' -DMUTANT_JOIN_OTHER_TICK
check epoch_writers MUTANT_HEAD_BEFORE_TICK safety 'assertion violated +!\(freed\[' -DMUTANT_HEAD_BEFORE_TICK
check epoch_drain real safety pass
check epoch_drain real liveness pass
check epoch_drain MUTANT_ONE_BARRIER safety 'assertion violated \(ran==2\)' -DMUTANT_ONE_BARRIER
check epoch_drain MUTANT_DISPATCH_NEW safety 'assertion violated +!\(freed\[o\]\)' -DMUTANT_DISPATCH_NEW
check first_read real safety pass
check first_read MUTANT_LOSER_KEEPS_OWN safety 'assertion violated \(answer\[i\]==cell\)' -DMUTANT_LOSER_KEEPS_OWN
check first_read MUTANT_RELEASE_WINNER safety 'assertion violated alive\[seen\]' -DMUTANT_RELEASE_WINNER

if [ "$failed" -ne 0 ]; then
    echo "model-check: $failed of $runs runs failed" >&2
    exit 1
fi
echo "model-check: $runs of $runs runs as expected"
