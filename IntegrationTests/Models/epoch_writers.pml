/*
 * epoch_writers.pml: several writers ticking the portable epoch at once,
 * and epoch records registered or recycled while a writer scans
 * (CSources/CWeaveRegistry/portable_ck.c: ck_epoch_synchronize_wait,
 * ck_epoch_register, ck_epoch_recycle, ck_epoch_unregister; the begin and
 * end of portable_ck.h).
 *
 * Two writers each replace their own object (writer w's object goes from
 * version 0 to 1) as weave_registry_set does: store the new version, then
 * ck_epoch_synchronize_wait (a seq_cst fetch-add tick of E, then a scan of
 * the record list from the head it loads), then free the old version. Two
 * writers may tick and scan at the same time: a write under one registry's
 * lock and one under another's (each container has its own lock; the
 * epoch is shared), or a thread-exit barrier.
 *
 * Two readers, each one read section that reads both objects. Reader 0's
 * record is registered before the run. Reader 1 has none: it takes one the
 * way record_for_read does, ck_epoch_recycle (the record reader 0
 * unregistered, if it has) or else ck_epoch_register (a push at the list's
 * head), at any point of a writer's scan. After its section each reader
 * unregisters (active and epoch reset, then state free).
 *
 * The list: records[0] is reader 0's; a push appends records[n_records];
 * a scan loads the head (n_records) and then visits records n - 1 down to
 * 0, as ck_stack's list runs from the newest push.
 *
 * Properties: a reader never uses a freed version (assert(!freed[...]) at
 * each use); a record is never owned by two readers (assert at take).
 *
 * Memory is sequentially consistent (the begin's fence, the writer's
 * fences around its tick, the push's release and the scan's acquire load
 * of the head, the recycle's acq_rel exchange).
 *
 * Mutant MUTANT_JOIN_OTHER_TICK: a writer that finds another writer's
 * synchronize under way waits for that writer's target instead of ticking
 * itself (two writers sharing one grace period): a section that began after
 * the other's tick, before this writer's store, read the old version with
 * an epoch that is not older than the target.
 *
 * Mutant MUTANT_HEAD_BEFORE_TICK: the scan's head is loaded before the
 * writer's store and tick (the list head hoisted out of the grace period):
 * a record pushed after that load, whose section read the old version, is
 * never scanned.
 */

#define NW 2
#define NR 2
#define NREC 2

byte E = 1;
byte version[NW];           /* the published version of writer w's object */
bool freed[NW * 2];         /* version v of object w is freed[w * 2 + v] */
byte rec_active[NREC];
byte rec_epoch[NREC];
bool rec_free[NREC];        /* state == WEAVE_CK_RECORD_FREE */
byte n_records = 1;         /* the list: records 0 .. n_records - 1 */
byte owner[NREC];           /* readers holding the record, for the check */
byte in_sync = 0;           /* writers between tick and scan end */
byte last_target = 0;       /* the target of the newest tick */
byte finished = 0;

inline use(w, v) {
    assert(!freed[w * 2 + v])
}

proctype reader(byte i) {
    byte rec, e, v0, v1;
    if
    :: i == 0 -> rec = 0; owner[0] = 1
    :: else ->
        /* ck_epoch_recycle, else ck_epoch_register */
        atomic {
            if
            :: rec_free[0] -> rec_free[0] = false; rec = 0
            :: else ->
                rec = n_records;
                rec_active[rec] = 0;
                rec_epoch[rec] = 0;
                n_records++
            fi;
            owner[rec]++;
            assert(owner[rec] == 1)
        }
    fi;
    rec_active[rec] = 1;
    /* the begin's full fence */
    e = E;
    rec_epoch[rec] = e;
    v0 = version[0];
    v1 = version[1];
    atomic { use(0, v0); use(1, v1) };
    /* the end, then ck_epoch_unregister: once active is 0 no scan reads
     * the rest, so they are one step here */
    atomic {
        rec_active[rec] = 0;
        rec_epoch[rec] = 0;
        owner[rec]--;
        rec_free[rec] = true;
        finished++
    }
}

proctype writer(byte w) {
    byte target, n, r, a, e;
#ifdef MUTANT_HEAD_BEFORE_TICK
    n = n_records;
#endif
    version[w] = 1;
    atomic {
#ifdef MUTANT_JOIN_OTHER_TICK
        if
        :: in_sync > 0 -> target = last_target
        :: else ->
            target = E + 1;
            E = E + 1;
            last_target = target
        fi;
#else
        target = E + 1;
        E = E + 1;
        last_target = target;
#endif
        in_sync++
    };
#ifndef MUTANT_HEAD_BEFORE_TICK
    n = n_records;
#endif
    r = n;
    do
    :: r > 0 ->
        a = rec_active[r - 1];
        if
        :: a == 0 -> r--
        :: else ->
            e = rec_epoch[r - 1];
            if
            :: e >= target -> r--
            :: else -> skip
            fi
        fi
    :: else -> break
    od;
    in_sync--;
    freed[w * 2] = true;
    finished++
}

init {
    atomic {
        run reader(0);
        run reader(1);
        run writer(0);
        run writer(1)
    }
}

#ifdef LIVENESS
ltl all_return { <> (finished == NR + NW) }
#endif
