/*
 * portable_epoch.pml: the grace periods of the portable epoch
 * (CSources/CWeaveRegistry/portable_ck.c, portable_ck.h), the configuration
 * without a system Concurrency Kit.
 *
 * Two readers each run two read sections, the first with a nested section
 * inside it; every section reads the current object and uses it after a
 * step in which anything may happen. One writer replaces the object twice:
 * first as weave_registry_set does (the new object stored, then
 * ck_epoch_synchronize_wait, then the old one freed), then as a deferred
 * free does (the new object stored, ck_epoch_call's tick, then
 * ck_epoch_poll until the entry runs and frees the old one).
 *
 * | model              | source                                           |
 * | begin / end        | ck_epoch_begin / ck_epoch_end (portable_ck.h):   |
 * |                    | the outermost begin stores active, fences, reads |
 * |                    | E and publishes it as its epoch; nested ones     |
 * |                    | count; end stores active - 1                     |
 * | synchronize        | ck_epoch_synchronize_wait: tick E (fetch-add),   |
 * |                    | then wait on each record in turn while it is     |
 * |                    | active with an epoch older than the tick's value |
 * |                    | (active and epoch read in two steps)             |
 * | call / poll        | ck_epoch_call's tick; ck_epoch_poll: E, then the |
 * |                    | oldest epoch of an active record, one record a   |
 * |                    | step; the entry runs when its tick is not after  |
 * |                    | that bound                                       |
 *
 * Property: a reader inside a section never uses a freed object
 * (assert(!freed[...]) at every use).
 *
 * Memory is sequentially consistent, as the C code's full fences (the
 * begin's, the writer's before its scan, the seq_cst ticks) make the steps
 * that matter here; MUTANT_NO_READER_FENCE takes the begin's fence away.
 * E never wraps here (the C code compares epochs by signed difference).
 *
 * Mutant MUTANT_NO_READER_FENCE: the begin without its fence, on x86-TSO:
 * the stores of active and the epoch wait in the reader's store buffer
 * (in order) while its loads of E and of the object run; they drain at any
 * later step, and at the latest before the end's store. A writer's scan
 * then sees the reader idle while it reads the old object.
 *
 * Mutant MUTANT_TARGET_BEFORE_TICK: synchronize waits for epochs older
 * than E as it was before its tick (fetch-add's return, without + 1): a
 * reader that read that E before the writer's store passes as caught up.
 *
 * Mutant MUTANT_POLL_IGNORES_ACTIVE: the poll's bound is E alone, not
 * lowered by active records: the deferred entry runs at once.
 */

#define NR 2      /* readers */
#define OBJECTS 3 /* object 0, replaced by 1, replaced by 2 */

byte E = 1;            /* the global epoch */
byte current = 0;      /* the published object */
bool freed[OBJECTS];
byte rec_active[NR];    /* a record's active: its section depth */
byte rec_epoch[NR];     /* a record's epoch: what its outermost begin read */
byte finished = 0;

inline use(o) {
    assert(!freed[o])
}

#ifdef MUTANT_NO_READER_FENCE
/* The store buffer of one reader: the outermost begin's two stores. */
bool buffered[NR];
byte buffered_epoch[NR];

inline drain(i) {
    atomic {
        if
        :: buffered[i] ->
            rec_active[i] = 1;
            rec_epoch[i] = buffered_epoch[i];
            buffered[i] = false
        :: else -> skip
        fi
    }
}

inline begin_outer(i) {
    byte e;
    e = E;
    buffered_epoch[i] = e;
    buffered[i] = true
}
#else
inline drain(i) {
    skip
}

inline begin_outer(i) {
    byte e;
    rec_active[i] = 1;
    /* the full fence */
    e = E;
    rec_epoch[i] = e
}
#endif

inline end_section(i) {
    drain(i);
    rec_active[i] = rec_active[i] - 1
}

proctype reader(byte i) {
    byte o, n, round = 0;
    do
    :: round < 2 ->
        begin_outer(i);
        o = current;
        if
        :: drain(i)
        :: skip
        fi;
        use(o);
        if
        :: round == 0 ->
            /* nested: counts only */
            drain(i);
            rec_active[i] = rec_active[i] + 1;
            n = current;
            use(n);
            end_section(i);
            use(o)
        :: else -> skip
        fi;
        end_section(i);
        round++
    :: else -> break
    od;
    finished++
}

proctype writer() {
    byte target, r, a, e, tick, bound;

    /* weave_registry_set: store, grace period, free */
    current = 1;
    /* ck_epoch_synchronize_wait: fence, tick, fence, scan */
    atomic {
#ifdef MUTANT_TARGET_BEFORE_TICK
        target = E;
#else
        target = E + 1;
#endif
        E = E + 1
    };
    r = 0;
    do
    :: r < NR ->
        a = rec_active[r];
        if
        :: a == 0 -> r++
        :: else ->
            e = rec_epoch[r];
            if
            :: e >= target -> r++
            :: else -> skip /* blocked: scan this record again */
            fi
        fi
    :: else -> break
    od;
    freed[0] = true;

    /* a deferred free: store, ck_epoch_call, ck_epoch_poll until it runs */
    current = 2;
    atomic {
        tick = E + 1;
        E = E + 1
    };
    do
    :: bound = E;
#ifndef MUTANT_POLL_IGNORES_ACTIVE
        r = 0;
        do
        :: r < NR ->
            a = rec_active[r];
            if
            :: a != 0 ->
                e = rec_epoch[r];
                if
                :: e < bound -> bound = e
                :: else -> skip
                fi
            :: else -> skip
            fi;
            r++
        :: else -> break
        od;
#endif
        if
        :: tick <= bound -> break
        :: else -> skip /* nothing ran; a later poll */
        fi
    od;
    freed[1] = true;
    finished++
}

init {
    atomic {
        run reader(0);
        run reader(1);
        run writer()
    }
}

#ifdef LIVENESS
ltl all_return { <> (finished == NR + 1) }
#endif
