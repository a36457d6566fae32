/*
 * build_once.pml: the build protocol of an instance holder (InstanceHolder:
 * a lazy registration, or the instance a scope keeps for one).
 *
 * Mirrors Sources/WeaveDICore/Registry/BuildOnce.swift `buildOnce` (with the
 * re-check after a claim won in the monitor loop, marked FIX), `publish`
 * (a state compare-and-swap, EMPTY -> WRITING, that a second publish loses,
 * returning the published instance: InstanceHolder.beginPublishing), and
 * Sources/WeaveDICore/Registry/BuildOnce.swift `InstanceHolder.releaseClaim` and
 * `BuildMonitor.wait`. N threads call buildOnce once on one holder. Before
 * issue 22's fix buildOnce lacked FIX and publish (SharedInstanceHolder.publish,
 * ScopedInstance's closure) stored the instance and set the state with no
 * compare-and-swap: that code is MUTANT_PUBLISH_TWICE. With FIX, the
 * compare-and-swap never loses (spin lists its losing branch as
 * unreached): the claim alone keeps publish to one thread, and the
 * compare-and-swap is the backstop.
 *
 * Properties:
 *   - at most one build (builds <= 1) and one publication (publishes <= 1);
 *   - every thread returns the same instance, the published one;
 *   - no lost wake-up: the safety run's invalid-end-state check finds a
 *     thread asleep on the condition when nobody is left to wake it (the
 *     condition is modelled so that a wait begun after the last broadcast
 *     never ends); run with -DLIVENESS, the claim `all_return` says every
 *     thread returns (pan -a -f: under weak fairness).
 *
 * Mutants (spin -a -DMUTANT_...):
 *   MUTANT_NO_RECHECK    no re-check after a claim won in the monitor loop
 *                        (the code before FIX): a second build.
 *   MUTANT_NO_FLAG       a waiter sleeps without flagging the claim, so the
 *                        builder's releaseClaim takes its compare-and-swap
 *                        path and never broadcasts: a thread sleeps forever.
 *   MUTANT_PUBLISH_TWICE no re-check and no state compare-and-swap in
 *                        publish (publish stores and sets the state, as the
 *                        strong holder's publish did before the fix): two publications.
 *                        builds <= 1 is not asserted in this mutant, since
 *                        MUTANT_NO_RECHECK already shows it breaks, so that
 *                        the search reaches the second publication.
 *
 * Not modelled: the re-entrant case (a thread's own claim, which never
 * publishes), the cycle report (deadlockChain), a build that throws, weak
 * holders' rebuilds. The memory model is sequentially consistent; the Swift
 * code uses acquire/release on the claim and the state.
 */

#define N          3   /* threads */
#define FLAG       1   /* InstanceHolder.waitersFlag, bit 0 of the claim word */
/* InstanceHolder.state: 0 -> 2 -> 1, forward only */
#define EMPTY      0
#define PUBLISHED  1
#define WRITING    2

#if defined(MUTANT_PUBLISH_TWICE) && !defined(MUTANT_NO_RECHECK)
#define MUTANT_NO_RECHECK
#endif

byte claim = 0;          /* InstanceHolder.claim: 0 or a claim word (even) | FLAG */
byte state = EMPTY;      /* InstanceHolder.state */
byte value = 0;          /* SharedInstanceHolder's inline storage: the id of the thread that built it */

byte mon = 0;            /* BuildMonitor.mutex: 0, or the holder's id */
bool asleep[N + 1];      /* in pthread_cond_wait on BuildMonitor.condition */
/* Spurious wake-ups (and the broadcasts for other holders: the monitor is
 * process-wide) are allowed, but a bounded number: with an unbounded supply
 * a forgotten waiter could always wake by chance and a lost wake-up would
 * never show as a thread stuck for good. */
byte spurious = 2;

/* Observers, for the properties only. */
byte builds = 0;
byte publishes = 0;
byte returned = 0;       /* the first thread's result; all others must match */
byte finished = 0;

inline cas(var, expected, desired, ok) {
    d_step {
        if
        :: var == expected -> var = desired; ok = true
        :: else -> ok = false
        fi
    }
}

inline lock(id) { atomic { mon == 0 -> mon = id } }
inline unlock(id) { assert(mon == id); mon = 0 }

/* BuildMonitor.broadcast: wakes every thread asleep on the condition. */
inline broadcast() {
    d_step {
        j = 1;
        do
        :: j <= N -> asleep[j] = false; j++
        :: else -> break
        od;
        j = 0
    }
}

/* BuildMonitor.wait: pthread_cond_wait releases the mutex and starts to
 * sleep in one step (a broadcast under the mutex cannot fall in between),
 * sleeps until a broadcast or a spurious wake-up, then takes the mutex
 * again. */
inline cond_wait(id) {
    atomic { assert(mon == id); asleep[id] = true; mon = 0 };
    if
    :: !asleep[id]
    :: atomic { spurious > 0 -> spurious--; asleep[id] = false }
    fi;
    lock(id)
}

/* InstanceHolder.releaseClaim: without waiters the compare-and-swap gives the
 * claim back; a waiter flagged the claim, so it fails, and the claim is
 * cleared under the monitor, with a broadcast the waiter cannot miss (it
 * holds the monitor until it sleeps). */
inline release_claim(id, me) {
    cas(claim, me, 0, ok);
    if
    :: ok
    :: else -> lock(id); claim = 0; broadcast(); unlock(id)
    fi
}

proctype thread(byte id) {
    byte me = id * 2;    /* BuildChain.claimWord: the flag bit clear */
    byte word;
    byte result;
    byte j;
    bool claimed;
    bool ok;
#ifdef MUTANT_NO_RECHECK
    bool first_cas;
#endif

    /* The first look: current(). */
    if
    :: state == PUBLISHED -> result = value; goto done
    :: else
    fi;
    /* BuildWindow.afterFirstLook */
    cas(claim, 0, me, claimed);
#ifdef MUTANT_NO_RECHECK
    first_cas = claimed;
#endif
    if
    :: claimed
    :: else ->
        /* BuildWindow.afterLostClaim */
        lock(id);
        do
        :: state == PUBLISHED -> result = value; unlock(id); goto done
        :: else ->
            /* BuildWindow.afterMonitorRecheck */
            word = claim;
            if
            :: word == 0 ->
                cas(claim, 0, me, ok);
                if
                :: ok -> claimed = true; break
                :: else   /* continue */
                fi
            :: else ->
                /* Only a thread's own re-entered build finds its own word;
                 * each thread builds once here. */
                assert((word & ~FLAG) != me);
#ifdef MUTANT_NO_FLAG
                cond_wait(id)
#else
                /* Flag the claim before waiting: the builder then takes
                 * the monitor to wake us, which it cannot do before we
                 * sleep. A failed flag means the claim changed: look
                 * again. */
                if
                :: (word & FLAG) == 0 -> cas(claim, word, word | FLAG, ok)
                :: else -> ok = true
                fi;
                if
                :: ok -> cond_wait(id)   /* BuildWindow.beforeWait */
                :: else                  /* continue */
                fi
#endif
            fi
        od;
        unlock(id)
    fi;

    /* BuildWindow.afterClaimWon. The re-check, by either route: a thread
     * that saw "not built" may find the claim free only because the builder
     * has just published and let go. FIX: the monitor route lacked it
     * (MUTANT_NO_RECHECK keeps it on the first compare-and-swap only). */
#ifdef MUTANT_NO_RECHECK
    if
    :: first_cas && state == PUBLISHED -> result = value; release_claim(id, me); goto done
    :: else
    fi;
#else
    if
    :: state == PUBLISHED -> result = value; release_claim(id, me); goto done
    :: else
    fi;
#endif

    assert(claimed);
    /* build(): the factory runs with no lock held. */
    builds++;
#ifndef MUTANT_PUBLISH_TWICE
    assert(builds <= 1);
#endif

    /* BuildWindow.beforePublish; publish(value) */
#ifdef MUTANT_PUBLISH_TWICE
    value = id;
    publishes++;
    state = PUBLISHED;
    result = id;
#else
    cas(state, EMPTY, WRITING, ok);
    if
    :: ok ->
        value = id;
        publishes++;
        state = PUBLISHED;   /* the releasing store */
        result = id
    :: else ->
        /* beginPublishing lost: wait until the other publish is done, take
         * its instance. Never reached with FIX: the claim is exclusive and
         * its winner looks again before building. */
        state == PUBLISHED;
        result = value
    fi;
#endif
    assert(publishes <= 1);
    /* BuildWindow.afterPublish */
    release_claim(id, me);

done:
    /* Every thread returns the one published instance. */
    atomic {
        assert(state == PUBLISHED);
        if
        :: returned == 0 -> returned = result
        :: else -> assert(result == returned)
        fi;
        finished++
    }
}

init {
    atomic {
        run thread(1);
        run thread(2);
        run thread(3)
    }
}

#ifdef LIVENESS
/* Every thread returns: no lost wake-up, no thread left waiting. */
ltl all_return { <> (finished == N) }
#endif
