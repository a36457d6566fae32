/*
 * async_build.pml: the async build protocol of one instance holder.
 *
 * Mirrors Sources/WeaveDICore/Resolution/AsyncBuilds.swift: `AsyncBuilds.value`
 * (the first look, `current()`, with no lock; then, under `state`'s lock,
 * the look for the published instance, the look for a cancellation,
 * `Task.isCancelled`, and the join, which makes the holder's flight when
 * there is none; the flight's build task started after the lock), its
 * `onCancel` handler (under the lock, takes the waiter out of the holder's
 * current flight, then resumes it with CancellationError) and `launch`
 * (`make` and `publish` with no lock held; then, in one lock section, the
 * flight's end, `state.flights[key] = nil`, and the taking of every waiter;
 * then the resumes, after the lock). `publish` is SharedInstanceHolder's /
 * ScopedInstance's: a second publication loses and returns the instance
 * already published (InstanceHolder.beginPublishing). In the real protocol
 * it never loses (spin lists its losing branch as unreached): only the
 * first successful build publishes.
 *
 * N waiter tasks ask once each for one holder (a lazy singleton). Each may
 * be cancelled once, at any moment, or never: Swift sets the task's flag
 * (Task.isCancelled), then runs the handler, on the cancelling thread. The
 * factory fails at most MAXFAIL times over the run (a failure publishes
 * nothing, so a later waiter starts a new flight); otherwise it returns an
 * instance. A CheckedContinuation is the waiter's `resumed` count: a resume
 * before the waiter suspends is not lost, so the only lost wake-up is a
 * waiter nobody resumes.
 *
 * Properties:
 *   - at most one successful build (builds <= 1): once an instance is
 *     published, no flight starts;
 *   - every waiter is resumed exactly once (resumed[i] <= 1 at each resume:
 *     CheckedContinuation's trap), and one resumed with an instance has the
 *     published one;
 *   - a waiter whose cancellation handler has run (and so found nothing to
 *     take out) never joins a flight, where it would wait for the build
 *     although cancelled: !handled[i] at the join;
 *   - no waiter is left waiting: the safety run's invalid-end-state check
 *     finds a waiter suspended when nobody is left to resume it; run with
 *     -DLIVENESS, the claim `all_return` says every waiter returns
 *     (pan -a -f: under weak fairness).
 *
 * Mutants (spin -a -DMUTANT_...):
 *   MUTANT_NO_LOCKED_LOOK   the waiter does not look for the published
 *                           instance again under the lock: one that missed
 *                           it on the first look starts a second flight
 *                           once the first has ended, a second build.
 *   MUTANT_NO_CANCEL_CHECK  the waiter does not look at Task.isCancelled
 *                           under the lock: one cancelled before it joins,
 *                           whose handler found nothing to take out, joins
 *                           and waits for the build.
 *   MUTANT_SPLIT_END        the build takes its waiters in one lock section
 *                           and ends its flight in a second: a waiter that
 *                           joins in between (after a failure, so with
 *                           nothing published) is never resumed. (Split
 *                           the other way, the flight ended first, the
 *                           model verifies: a waiter in between starts a
 *                           flight of its own.)
 *
 * Steps: each lock section of `state` is one atomic step. Inside it every
 * variable is guarded by the lock but the waiter's two looks', `value` and
 * `cancelled[i]`, each written once, with no lock, by another process, and
 * those two writes commute. The resumes and the launch that follow a lock
 * section are folded into its step: a resumed waiter is in no flight, so
 * only it sees its continuation, and a build task does nothing before it
 * runs. One process cancels every waiter: the steps of a cancellation
 * touch its own waiter (and the lock), so they commute with another
 * waiter's. Memory is sequentially consistent.
 *
 * Not modelled: the cycle checks (AsyncChain.cycle, the flights' `awaiting`
 * edges, a join refused with circularDependency: async_returned.pml), the
 * waiter ids (a waiter is its index), the hooks, weak holders (their
 * `current()` can go back to nil, and a new flight rebuilds).
 */

#define N          3    /* waiter tasks */
#define MAXFAIL    1    /* factory failures over the run */
/* A waiter's result: 1..N, the instance (the id of the flight that
 * published it), or an error. */
#define FAILURE    100  /* the flight's DIError.factoryError */
#define CANCELLED  101  /* CancellationError */
/* JoinStep: what a waiter does after its lock section */
#define RESUME     1
#define WAIT       2
#define START      3

#ifdef MUTANT_NO_LOCKED_LOOK
#define LOCKED_LOOK   false
#else
#define LOCKED_LOOK   true
#endif
#ifdef MUTANT_NO_CANCEL_CHECK
#define CANCEL_CHECK  false
#else
#define CANCEL_CHECK  true
#endif

/* The holder: 0, or the id of the flight whose build published the
 * instance (current() != nil). Written with no lock. */
byte value = 0;

/* AsyncBuilds.state, guarded by its lock */
byte flight = 0;         /* state.flights[key]: 0, or the flight in progress */
byte flights = 0;        /* the last flight id given */
byte joined[N + 1];      /* 0, or the flight whose waiters hold waiter i */

/* The tasks */
bool cancelled[N + 1];   /* Task.isCancelled */
byte resumed[N + 1];     /* the continuation's resumes */
byte result[N + 1];      /* what it was resumed with */

/* Observers, for the properties only. */
bool handled[N + 1];     /* waiter i's cancellation handler has run */
byte builds = 0;         /* factories that returned an instance */
byte failures = 0;       /* factories that threw */
byte finished = 0;       /* waiters that returned */

/* CheckedContinuation.resume: once only. */
inline resume(i, r) {
    d_step {
        resumed[i]++;
        assert(resumed[i] <= 1);
        result[i] = r
    }
}

/* launch: the build task of flight f. */
proctype build(byte f) {
    byte outcome;
    byte j;

    /* make(), no lock held; then publish(value). */
    if
    :: atomic { failures < MAXFAIL -> failures++; outcome = FAILURE }
    :: atomic {
        builds++;
        assert(builds <= 1);
        /* beginPublishing's compare-and-swap: a second publication
         * loses and returns the published instance. */
        if
        :: value == 0 -> value = f; outcome = f
        :: else -> outcome = value
        fi
       }
    fi;

    /* state.withLock: the flight ends and its waiters are taken in one
     * section, so a waiter that comes after finds the instance (or, after
     * a failure, starts a flight of its own). Then, after the lock, the
     * resumes, in the same step: no other process can tell them apart,
     * since a taken waiter is in no flight, and only it sees its
     * continuation. */
    d_step {
#ifndef MUTANT_SPLIT_END
        assert(flight == f);
        flight = 0;
#endif
        j = 1;
        do
        :: j <= N ->
            if
            :: joined[j] == f -> joined[j] = 0; resume(j, outcome)
            :: else
            fi;
            j++
        :: else -> break
        od;
        j = 0;
        outcome = 0
    }
#ifdef MUTANT_SPLIT_END
    d_step {
        assert(flight == f);
        flight = 0
    }
#endif
}

/* AsyncBuilds.value, from a task that asks once. */
proctype waiter(byte i) {
    byte step;           /* JoinStep */
    byte r;              /* .resume's result */
    byte f;

    /* The first look: current(), no lock. */
    if
    :: value != 0 -> result[i] = value; goto returns
    :: else
    fi;

    /* withTaskCancellationHandler { withCheckedThrowingContinuation {
     * state.withLock { ... }; switch step { ... } } }: the looks and the
     * join, then, after the lock, the resume or the launch, in one step:
     * no other process can tell them apart (the waiter's own continuation,
     * a build task yet to run). */
    atomic {
        if
        :: LOCKED_LOOK && value != 0 -> step = RESUME; r = value
        :: else ->
            if
            :: CANCEL_CHECK && cancelled[i] -> step = RESUME; r = CANCELLED
            :: else ->
                /* A waiter whose cancellation handler has run never
                 * joins. */
                assert(!handled[i]);
                if
                :: flight == 0 -> flights++; flight = flights; step = START
                :: else -> step = WAIT
                fi;
                f = flight;
                joined[i] = f
            fi
        fi;
        if
        :: step == RESUME -> resume(i, r)
        :: step == START -> run build(f)   /* launch: Task { ... } */
        :: step == WAIT
        fi;
        step = 0; r = 0; f = 0
    }

    /* try await: suspended until the continuation is resumed. */
    resumed[i] > 0;
returns:
    atomic {
        if
        :: result[i] == CANCELLED || result[i] == FAILURE
        :: else -> assert(value != 0 && result[i] == value)
        fi;
        finished++
    }
}

/* Task.cancel() on waiter i's task, once: the flag, then the onCancel
 * handler. */
inline cancel(i) {
    atomic { !cancelled[i] -> cancelled[i] = true };
    /* state.withLock: state.flights[key]?.waiters.removeValue(forKey: id);
     * then, after the lock, the resume, in the same step. */
    d_step {
        if
        :: joined[i] != 0 && joined[i] == flight ->
            joined[i] = 0;
            resume(i, CANCELLED)
        :: else
        fi;
        handled[i] = true
    }
}

/* The waiters; then the cancellations: each waiter's at any moment, or
 * never. */
init {
    atomic {
        run waiter(1);
        run waiter(2);
        run waiter(3)
    }
    do
    :: cancel(1)
    :: cancel(2)
    :: cancel(3)
    :: break
    od
}

#ifdef LIVENESS
/* Every waiter returns: none left on a continuation nobody resumes. */
ltl all_return { <> (finished == N) }
#endif
