/*
 * epoch_drain.pml: a thread's exit draining its deferred work, when a
 * callback a barrier runs defers more (CSources/CWeaveRegistry/
 * weave_registry.c record_thread_exit; portable_ck.c ck_epoch_barrier_wait,
 * dispatch, ck_epoch_call, ck_epoch_unregister).
 *
 * The exiting thread's record holds one deferred entry: the release of
 * object 0, already unlinked. Its callback (a value's release whose deinit
 * drops the last reference to another) unlinks object 1 (object 2
 * replaces it) and defers its release with ck_epoch_call (a tick, then the entry queued on the same
 * record); object 1's callback defers nothing. A reader runs two read
 * sections, each reading the current object, and may hold up any grace
 * period.
 *
 * | model              | source                                           |
 * | exiting            | record_thread_exit: while n_pending != 0, one    |
 * |                    | ck_epoch_barrier (synchronize_wait: tick, scan;  |
 * |                    | then dispatch: the queue taken off the record,   |
 * |                    | then each callback run); then unregister, which  |
 * |                    | forgets whatever is still queued                 |
 * | reader             | begin, load of the current object, use, end      |
 *
 * Properties: no deferred work is lost (after unregister, both callbacks
 * have run: assert(ran == 2)); no object is freed while a section that
 * read it is open (assert(!freed[o]) at use).
 *
 * Memory is sequentially consistent, as in portable_epoch.pml.
 *
 * Mutant MUTANT_ONE_BARRIER: one barrier, then unregister (the exit path
 * before issue 38): the entry object 0's callback queued is dropped.
 *
 * Mutant MUTANT_DISPATCH_NEW: dispatch also runs what its callbacks queue,
 * in the same pass, with no grace period of their own: object 1 is freed
 * while a section that read it is open.
 */

byte E = 1;
byte current = 1;     /* object 0 was unlinked before the run */
bool freed[3];
byte rec_active = 0;   /* the reader's record */
byte rec_epoch = 0;
byte pending = 1;      /* entries on the exiting record: queue[0 .. pending - 1] */
byte queue[3];         /* the object each queued entry frees */
byte ran = 0;
byte finished = 0;

proctype reader() {
    byte e, o, round = 0;
    do
    :: round < 2 ->
        rec_active = 1;
        e = E;
        rec_epoch = e;
        o = current;
        assert(!freed[o]);
        rec_active = 0;
        round++
    :: else -> break
    od;
    finished++
}

/* One callback: free its object; object 0's defers object 1's release. */
inline run_callback(o) {
    freed[o] = true;
    ran++;
    if
    :: o == 0 ->
        current = 2;
        atomic {
            E = E + 1;
            queue[pending] = 1;
            pending++
        }
    :: else -> skip
    fi
}

proctype exiting() {
    byte target, a, e, n, k, o;
#ifdef MUTANT_ONE_BARRIER
    if
    :: pending != 0 ->
#else
    do
    :: pending != 0 ->
#endif
        /* ck_epoch_synchronize_wait */
        atomic {
            target = E + 1;
            E = E + 1
        };
        do
        :: a = rec_active;
            if
            :: a == 0 -> break
            :: else ->
                e = rec_epoch;
                if
                :: e >= target -> break
                :: else -> skip
                fi
            fi
        od;
        /* dispatch(everything): the queue taken, then each callback */
#ifdef MUTANT_DISPATCH_NEW
        k = 0;
        do
        :: k < pending ->
            o = queue[k];
            run_callback(o);
            k++
        :: else -> break
        od;
        pending = 0;
#else
        n = pending;
        k = 0;
        do
        :: k < n ->
            o = queue[k];
            atomic {
                /* the taken entries leave the queue before any runs */
                if
                :: k == 0 ->
                    pending = pending - n;
                    queue[0] = queue[n]
                :: else -> skip
                fi
            };
            run_callback(o);
            k++
        :: else -> break
        od;
#endif
#ifdef MUTANT_ONE_BARRIER
    :: else -> skip
    fi;
#else
    :: else -> break
    od;
#endif
    /* ck_epoch_unregister: the queue forgotten */
    pending = 0;
    assert(ran == 2);
    finished++
}

init {
    atomic {
        queue[0] = 0;
        run reader();
        run exiting()
    }
}

#ifdef LIVENESS
ltl all_return { <> (finished == 2) }
#endif
