/*
 * hs_grow.pml: the portable hash set's grow against lock-free readers, and
 * the deferred free of the table it replaces (CSources/CWeaveRegistry/
 * portable_ck.c map_rebuild, map_publish, ck_hs_get; weave_registry.c
 * table_free with defer set, which queues the old table with ck_epoch_call;
 * the writer's later ck_epoch_poll).
 *
 * Tables 0 (the old one, two slots) and 1 (the grown one, two slots). Key 1
 * sits in table 0's slot 0 before the run. The writer (the registry's lock
 * makes it the only one) inserts key 2, which does not fit: it fills table
 * 1 with the live keys of table 0 (key 1 hashes to slot 0 in both), stores
 * key 2, publishes table 1 (release store of hs->map), queues table 0's free
 * (ck_epoch_call: a seq_cst tick of E) and polls until the entry runs.
 *
 * | model              | source                                           |
 * | reader             | a read section (ck_epoch_begin ... end) around   |
 * |                    | ck_hs_get for key 1: load hs->map, probe from    |
 * |                    | slot 0 until the key or an empty slot            |
 * | writer             | ck_hs_apply's grow (map_rebuild, map_publish),   |
 * |                    | table_free(defer), ck_epoch_poll until it runs   |
 *
 * Properties: a reader never reads a slot of a freed table
 * (assert(!tfreed[t]) before every slot load); a reader always finds key 1,
 * which is present for the whole run, on whichever table it loaded: the
 * table it reads is a complete snapshot (assert(found)).
 *
 * Memory is sequentially consistent: map_publish's release store and
 * ck_hs_get's acquire load of hs->map order the fill of table 1 before a
 * reader's probe of it; the epoch's fences are those of portable_epoch.pml.
 *
 * Mutant MUTANT_PUBLISH_BEFORE_FILL: table 1 published before it is filled
 * (a grow that copies into the live table): a reader probes an empty slot.
 *
 * Mutant MUTANT_FREE_AT_ONCE: the old table freed when the new one is
 * published (table_free without defer): a reader still probing it reads
 * freed memory.
 */

#define NR 2

byte E = 1;
byte map = 0;            /* hs->map */
byte slot[4];            /* table t's slot k is slot[t * 2 + k]; 0 empty */
bool tfreed[2];
byte rec_active[NR];
byte rec_epoch[NR];
byte finished = 0;

proctype reader(byte i) {
    byte e, t, k, v, round = 0;
    bool found;
    do
    :: round < 2 ->
        rec_active[i] = 1;
        /* the begin's full fence */
        e = E;
        rec_epoch[i] = e;
        t = map;
        k = 0;
        found = false;
        do
        :: k < 2 ->
            assert(!tfreed[t]);
            v = slot[t * 2 + k];
            if
            :: v == 1 -> found = true; break
            :: v == 0 -> break
            :: else -> k++
            fi
        :: else -> break
        od;
        assert(found);
        rec_active[i] = 0;
        round++
    :: else -> break
    od;
    finished++
}

proctype writer() {
    byte tick, bound, r, a, e;
#ifdef MUTANT_PUBLISH_BEFORE_FILL
    map = 1;
#endif
    slot[2] = 1;   /* key 1, copied */
    slot[3] = 2;   /* key 2, inserted */
#ifndef MUTANT_PUBLISH_BEFORE_FILL
    map = 1;
#endif
#ifdef MUTANT_FREE_AT_ONCE
    tfreed[0] = true;
#else
    atomic {
        tick = E + 1;
        E = E + 1
    };
    do
    :: bound = E;
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
        if
        :: tick <= bound -> break
        :: else -> skip
        fi
    od;
    tfreed[0] = true;
#endif
    finished++
}

init {
    atomic {
        slot[0] = 1;
        run reader(0);
        run reader(1);
        run writer()
    }
}

#ifdef LIVENESS
ltl all_return { <> (finished == NR + 1) }
#endif
