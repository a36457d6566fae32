/*
 * async_returned.pml: the async builds' cycle checks and the returned factory run.
 *
 * Mirrors Sources/WeaveDICore/Resolution/AsyncBuilds.swift: `AsyncBuilds.value`
 * (the first look, `current()`; `AsyncChain.cycle(at:)`, which skips a
 * link whose factory run `hasReturned`; `me`, the task's `AsyncFlight.current`,
 * dropped when its flight has returned; then, under `state`'s lock, the
 * look for the instance, the wait check `existing.path(to: me)`, and the
 * join or the start of the holder's flight, with `me.startAwaiting`; the
 * launch after the lock) and `launch` (the factory runs with the chain plus
 * the flight's link and with `AsyncFlight.current` set to the flight;
 * `defer { flight.markReturned() }` as `make` returns or throws; `publish`;
 * then, in one lock section, the flight's end, the taking of its waiters
 * and their `stopAwaiting`; the resumes).
 *
 * Two singleton registrations, A and B (one holder each). init picks one
 * scenario; spin explores each one's every interleaving:
 *   S1  a task T1 resolves A. A's first factory run starts a child task C
 *       (it inherits the chain, [A], and the flight) that resolves A, and
 *       either awaits C (`try await task.value`, C's error thrown on), or
 *       leaves it running and returns or throws. A child left running may
 *       wait first until T1 has returned (AsyncServiceTests' `afterReturn`
 *       gate). Later runs of A's factory return at once.
 *   S2  T1 resolves A and T2 resolves B; A's factory resolves B and B's
 *       resolves A (every run), each throwing the error on or swallowing it
 *       (`try?`) and returning.
 * With -DCHILD_RESOLVES_B, the scenario S3 instead: T1 resolves A; A's
 * first factory run starts a child C that resolves B, then awaits C or
 * leaves it running and returns; B's factory resolves A. The code before
 * its fix failed it (below: "S3 and the code").
 *
 * `hasReturned` is an atomic flag, stored with release, loaded with
 * acquire. A load may see it late: while the reading task is not ordered
 * after the store (seen[t] has no bit for the flight), a load of a set flag
 * may return false. A task is ordered after a flight's return when it
 * loaded its flag as set, took the lock after the flight ended, was resumed
 * by it, found its instance, or was started by (or waited on the end of) a
 * task that was. Everything else is sequentially consistent, and each lock
 * section is one step.
 *
 * Properties (the oracles use `exited[f]`, whether flight f's factory has
 * really returned, and the reader's view: f still runs for task t unless
 * exited[f] and t is ordered after it):
 *   - no false cycle: a cycle reported by the chain check has a link of the
 *     registration whose factory still runs as the reader sees it
 *     (!false_chain_cycle); one reported by the wait check closes a loop of
 *     waits along builds that still run as it sees them, from the holder's
 *     flight to its own (!false_wait_cycle). A reader that sees a return
 *     late may get a cycle: the conservative answer;
 *   - never a wait on a build that waits for it: a task never joins the
 *     flight of a registration whose factory on its chain still runs
 *     (!waits_on_own_build), nor one from which waits lead back to its own
 *     running build (!closes_loop);
 *   - S1: a child the factory awaits gets a cycle (the factory's run still
 *     holds its link); a child resolving after T1 has returned never does;
 *   - S2: a cycle is reported (cycles >= 1);
 *   - no task is left waiting: the safety run's invalid-end-state check;
 *     with -DLIVENESS, `ltl all_return { <> finished }` under weak fairness
 *     (the four oracles' assertions, false_chain_cycle, false_wait_cycle,
 *     waits_on_own_build and closes_loop, are left out of that run, so
 *     that a mutant's hang is what it reports);
 *   - the runs need at most MAXF flights (flights <= MAXF at each start).
 *
 * Mutants (spin -a -DMUTANT_...):
 *   MUTANT_RETURNED_LINK_COUNTS    cycle(at:) counts a link whose factory run has
 *                                  returned (sanitize.sh's Swift mutant
 *                                  returned-link-counts): the child left
 *                                  running gets a cycle after the return.
 *   MUTANT_MARK_AT_START           the factory run marked returned before the
 *                                  factory runs (returned-at-start): the
 *                                  child joins the build of its own chain,
 *                                  and an awaited one hangs with its factory.
 *   MUTANT_RETURNED_FLIGHT_COUNTS  `me` kept when its flight has returned:
 *                                  the child, resolving after the return,
 *                                  finds its own flight not yet ended and
 *                                  gets a cycle through it.
 *   MUTANT_NO_WAIT_CHECK           no `existing.path(to: me)` under the lock:
 *                                  A's and B's builds, started by T1 and T2,
 *                                  wait on each other for ever.
 *   MUTANT_PATH_THROUGH_RETURNED   `path(to:)` follows the edges out of a
 *                                  flight whose factory has returned (the
 *                                  code before the fix): with
 *                                  -DCHILD_RESOLVES_B, a false cycle.
 *
 * S3 and the code (issue 41): spin rejected the code before its fix with
 * -DCHILD_RESOLVES_B, `assertion violated !(false_wait_cycle)` (now
 * MUTANT_PATH_THROUGH_RETURNED). C, left running, starts B's flight while
 * A's factory still runs, so A's flight gets the edge A -> B
 * (`me.startAwaiting`) and B's build inherits A's link. A's factory
 * returns; B's factory resolves A before A's flight has ended (between
 * `markReturned` and the end section: the `publish`, or a failure's
 * error). Its chain check loads A's factory run as returned and passes, but
 * `existing.path(to: me)` followed the returned flight's edge A -> B and
 * reported B -> A -> B: a task ordered after A's return (it loaded the
 * flag) got a cycle. No run hung. `path(to:)` now follows no edge out of a
 * flight whose flag it loads as set; S1, S2 and S3 verify.
 *
 * Not modelled: transient registrations (`fresh`: the chain check alone,
 * no flight), cancellation and the failure paths' messages (async_build.pml),
 * link order beyond the flight ids' (a chain's flights were made in its
 * order), weak holders.
 */

#define A        1
#define B        2
#define MAXF     4     /* flights (a flight is its id, 1..MAXF); the runs need 4 */
#define NT       8     /* tasks: T1 = 1, T2 = 2, C = 3, flight f's build = 3 + f */
#define T1       1
#define T2       2
#define C        3
#define CYCLE    100   /* DIError.circularDependency */
#define FAILURE  101   /* DIError.factoryError: the flight's factory threw */
#define BUILT    102   /* a factory's instance, before it is published */
#define BIT(f)   (1 << (f))
#define EDGE(u, v) awaiting[(u) * (MAXF + 1) + (v)]

/* The child's mode in S1 / S3 */
#define AWAITED  1
#define LEFT     2
#define GATED    3     /* left running; resolves once T1 has returned */

byte scenario;

/* The holders: 0, or the flight that published the instance */
byte value[3];
/* AsyncBuilds.state, guarded by its lock */
byte flightOf[3];                    /* state.flights[key] */
byte flights = 0;                    /* the last flight id given */
byte freg[MAXF + 1];                 /* the flight's registration */
byte awaiting[(MAXF + 1) * (MAXF + 1)];  /* AsyncFlight.awaiting's counts */
byte joined[NT];                     /* 0, or the flight whose waiters hold task t */
byte from[NT];                       /* the waiter's `from` */
/* FactoryRun's flag, atomic */
bool returned[MAXF + 1];

/* The tasks: AsyncChain.links (the flights on the chain, a set: the links'
 * order is the flights'), AsyncFlight.current, and the continuation. */
byte chain[NT];
byte myflight[NT];
byte resumed[NT];
byte result[NT];

/* Observers, for the properties only. */
bool exited[MAXF + 1];   /* the flight's factory has returned (or thrown) */
byte ended = 0;          /* the flights whose end section has run */
byte seen[NT];           /* the flights task t is ordered after the return of */
byte cycles = 0;         /* cycles reported */
byte alive = 0;          /* tasks not yet returned */
bool childStarted = false;
bool cdone = false;      /* the child has returned */
byte cmode = 0;
bool finished = false;

/* A load of flight f's flag by task t. */
inline load_returned(lt, lf, lout) {
    if
    :: returned[lf] ->
        if
        :: lout = true; seen[lt] = seen[lt] | BIT(lf)
        :: (seen[lt] & BIT(lf)) == 0 -> lout = false   /* seen late */
        fi
    :: else -> lout = false
    fi
}

/* Whether flight f still runs as task t sees it. */
#define RUNS_FOR(t, f) (!exited[f] || (seen[t] & BIT(f)) == 0)

/* Whether dst can be reached from src along awaiting edges. mode 0: every
 * edge (AsyncFlight.path before the fix); 1: edges out of flights still
 * running as task t sees them; 2: edges out of flights whose factory still
 * runs, each visited flight's flag loaded by task t (AsyncFlight.path:
 * a flight read as returned waits on nothing), a set flag then seen by t.
 * Mode 2 reads every flag fresh, so it skips the most edges: a wait it
 * lets through is let through by every mix of late and fresh reads (which
 * skip a subset), so no hang is hidden; and an edge followed after a late
 * read leaves from a flight still running as t sees it, so a cycle through
 * it is never false by construction. */
inline reach(src, dst, qt, rmode, rout) {
    rm = BIT(src);
    k = 0;
    do
    :: k < MAXF ->
        u = 1;
        do
        :: u <= MAXF ->
            if
            :: (rm & BIT(u)) != 0 &&
               (rmode == 0 || (rmode == 1 && RUNS_FOR(qt, u)) || (rmode == 2 && !exited[u])) ->
                v = 1;
                do
                :: v <= MAXF ->
                    if
                    :: EDGE(u, v) > 0 -> rm = rm | BIT(v)
                    :: else
                    fi;
                    v++
                :: else -> break
                od
            :: else
            fi;
            u++
        :: else -> break
        od;
        k++
    :: else -> break
    od;
    rout = ((rm & BIT(dst)) != 0);
    if
    :: rmode == 2 ->
        u = 1;
        do
        :: u <= MAXF ->
            if
            :: (rm & BIT(u)) != 0 && exited[u] && u != dst -> seen[qt] = seen[qt] | BIT(u)
            :: else
            fi;
            u++
        :: else -> break
        od
    :: else
    fi;
    rm = 0; k = 0; u = 0; v = 0
}

/* AsyncBuilds.value of registration rr, by task rt, once. Leaves the
 * result in result[rt]. */
inline resolve(rt, rr) {
    /* The first look: current(). */
    atomic {
        if
        :: value[rr] != 0 ->
            seen[rt] = seen[rt] | BIT(value[rr]);
            result[rt] = value[rr];
            resumed[rt] = 1
        :: else
        fi
    }
    if
    :: resumed[rt] != 0
    :: else ->
        /* AsyncChain.cycle(at:): the first link of rr whose factory run has not
         * returned, in the chain's order. */
        atomic {
            i = 1;
            do
            :: i <= MAXF && !hit ->
                if
                :: (chain[rt] & BIT(i)) != 0 && freg[i] == rr ->
#ifdef MUTANT_RETURNED_LINK_COUNTS
                    hit = true
#else
                    load_returned(rt, i, fl);
                    hit = !fl;
                    fl = false
#endif
                :: else
                fi;
                i++
            :: else -> break
            od;
            if
            :: hit ->
#ifndef LIVENESS
                i = 1;
                do
                :: i <= MAXF ->
                    if
                    :: (chain[rt] & BIT(i)) != 0 && freg[i] == rr && RUNS_FOR(rt, i) -> ok = true
                    :: else
                    fi;
                    i++
                :: else -> break
                od;
                false_chain_cycle = !ok;
                assert(!false_chain_cycle);
                ok = false;
#endif
                cycles++;
                result[rt] = CYCLE;
                resumed[rt] = 1
            :: else
            fi;
            i = 0; hit = false
        }
    fi;
    if
    :: resumed[rt] != 0
    :: else ->
        /* me: AsyncFlight.current, nil when its flight has returned. */
        atomic {
            me = myflight[rt];
            if
            :: me != 0 ->
                load_returned(rt, me, fl);
#ifndef MUTANT_RETURNED_FLIGHT_COUNTS
                if
                :: fl -> me = 0
                :: else
                fi;
#endif
                fl = false
            :: else
            fi
        }
        /* state.withLock: the waiter's id, then the look, the wait check
         * and the join (two sections, one step here: the first changes
         * nothing this model sees, and the flag loads come before both).
         * The launch follows the lock, a step of its own. */
        d_step {
            seen[rt] = seen[rt] | ended;
            if
            :: value[rr] != 0 ->
                seen[rt] = seen[rt] | BIT(value[rr]);
                result[rt] = value[rr];
                resumed[rt] = 1
            :: else ->
                g = flightOf[rr];
                hit = false;
#ifndef MUTANT_NO_WAIT_CHECK
                if
#ifdef MUTANT_PATH_THROUGH_RETURNED
                :: me != 0 && g != 0 -> reach(g, me, rt, 0, hit)
#else
                :: me != 0 && g != 0 -> reach(g, me, rt, 2, hit)
#endif
                :: else
                fi;
#endif
                if
                :: hit ->
#ifndef LIVENESS
                    reach(g, me, rt, 1, ok);
                    false_wait_cycle = !(ok && RUNS_FOR(rt, me));
                    assert(!false_wait_cycle);
                    ok = false;
#endif
                    cycles++;
                    result[rt] = CYCLE;
                    resumed[rt] = 1
                :: else ->
#ifndef LIVENESS
                    if
                    :: g != 0 ->
                        i = 1;
                        do
                        :: i <= MAXF ->
                            if
                            :: (chain[rt] & BIT(i)) != 0 && freg[i] == rr && !exited[i] ->
                                waits_on_own_build = true
                            :: else
                            fi;
                            i++
                        :: else -> break
                        od;
                        i = 0;
                        assert(!waits_on_own_build);
                        if
                        :: myflight[rt] != 0 && !exited[myflight[rt]] ->
                            reach(g, myflight[rt], rt, 2, closes_loop)
                        :: else
                        fi;
                        assert(!closes_loop)
                    :: else
                    fi;
#endif
                    if
                    :: g == 0 ->
                        flights++;
                        assert(flights <= MAXF);
                        g = flights;
                        freg[g] = rr;
                        flightOf[rr] = g;
                        /* the build task's chain, flight and ordering */
                        chain[C + g] = chain[rt] | BIT(g);
                        myflight[C + g] = g;
                        seen[C + g] = seen[rt];
                        start = true
                    :: else
                    fi;
                    if
                    :: me != 0 -> EDGE(me, g)++
                    :: else
                    fi;
                    joined[rt] = g;
                    from[rt] = me
                fi;
                hit = false
            fi;
            me = 0
        }
        if
        :: start -> atomic { alive++; start = false; run build(g); g = 0 }
        :: else -> g = 0
        fi;
        /* try await: suspended until resumed. */
        resumed[rt] != 0
    fi;
    assert(result[rt] == CYCLE || result[rt] == FAILURE || result[rt] == value[rr])
}

/* The locals resolve uses. */
#define RESOLVE_LOCALS \
    byte i, g, me, rm, k, u, v; \
    bool fl, hit, ok, start, false_chain_cycle, false_wait_cycle, waits_on_own_build, closes_loop

proctype task(byte id; byte reg) {
    RESOLVE_LOCALS;
    resolve(id, reg);
    alive--
}

/* The task a factory of A starts: Task { try await resolve(R) }. */
proctype child(byte reg) {
    RESOLVE_LOCALS;
    if
    :: cmode == GATED -> atomic { resumed[T1] != 0 -> seen[C] = seen[C] | seen[T1] }
    :: else
    fi;
    resolve(C, reg);
    /* A left task resolving after T1 has returned gets no cycle. */
    assert(cmode != GATED || result[C] != CYCLE);
    atomic { cdone = true; alive-- }
}

/* launch: flight f's build task. */
proctype build(byte f) {
    RESOLVE_LOCALS;
    byte bt = C + f;
    byte r = freg[f];
    byte outcome;
    byte other;

#ifdef MUTANT_MARK_AT_START
    returned[f] = true;
#endif
    /* make(), with AsyncChain.links = chain[bt], AsyncFlight.current = f */
    if
    :: (scenario == 1 || scenario == 3) && r == A && !childStarted ->
        atomic {
            childStarted = true;
            if
            :: cmode = AWAITED
            :: cmode = LEFT
            :: cmode = GATED
            fi;
            chain[C] = chain[bt];
            myflight[C] = f;
            seen[C] = seen[bt];
            alive++;
            run child((scenario == 1 -> A : B))
        }
        if
        :: cmode == AWAITED ->
            /* try await task.value */
            atomic { cdone -> seen[bt] = seen[bt] | seen[C] };
            /* the child gets a cycle while the factory runs */
            assert(scenario != 1 || result[C] == CYCLE);
            if
            :: result[C] == CYCLE || result[C] == FAILURE -> outcome = FAILURE
            :: else -> outcome = BUILT
            fi
        :: else ->
            if
            :: outcome = BUILT
            :: scenario == 1 -> outcome = FAILURE
            fi
        fi
    :: scenario == 2 || (scenario == 3 && r == B) ->
        other = 3 - r;
        resolve(bt, other);
        if
        :: result[bt] == CYCLE || result[bt] == FAILURE ->
            if
            :: outcome = FAILURE   /* try: thrown on */
            :: outcome = BUILT         /* try?: swallowed */
            fi
        :: else -> outcome = BUILT
        fi
    :: else -> outcome = BUILT
    fi;

    /* defer { flight.markReturned() } */
    atomic {
        returned[f] = true;
        exited[f] = true
    }

    /* publish: beginPublishing's compare-and-swap (never loses here) */
    atomic {
        if
        :: outcome == BUILT ->
            if
            :: value[r] == 0 -> value[r] = f
            :: else
            fi;
            outcome = value[r]
        :: else
        fi
    }

    /* state.withLock: the flight ends, its waiters are taken and stop
     * awaiting it; then the resumes (and each waiter's own empty lock
     * section), in the same step. */
    d_step {
        seen[bt] = seen[bt] | ended;
        assert(flightOf[r] == f);
        flightOf[r] = 0;
        ended = ended | BIT(f);
        i = 1;
        do
        :: i < NT ->
            if
            :: joined[i] == f ->
                joined[i] = 0;
                if
                :: from[i] != 0 -> EDGE(from[i], f)--; from[i] = 0
                :: else
                fi;
                assert(resumed[i] == 0);
                resumed[i] = 1;
                result[i] = outcome;
                seen[i] = seen[i] | seen[bt] | BIT(f)
            :: else
            fi;
            i++
        :: else -> break
        od;
        i = 0
    }
    alive--
}

init {
    atomic {
#ifdef CHILD_RESOLVES_B
        scenario = 3;
        alive = 1;
        run task(T1, A)
#else
        if
        :: scenario = 1; alive = 1; run task(T1, A)
        :: scenario = 2; alive = 2; run task(T1, A); run task(T2, B)
        fi
#endif
    }
    alive == 0;
    assert(scenario != 2 || cycles >= 1);
    finished = true
}

#ifdef LIVENESS
/* Every task returns: none left waiting. */
ltl all_return { <> finished }
#endif
