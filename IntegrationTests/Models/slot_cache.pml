/*
 * slot_cache.pml: an injection slot's cached box against the generation
 * word and its count of writes in progress.
 *
 * Mirrors CSources/CWeaveRegistry/weave_registry.c: the writer is
 * weave_registry_set (write_begin, the table store, write_complete, then
 * finish_write's sweep_slots); a reader is Swift's InjectionSlot.value /
 * refresh and Resolver.resolveLive / resolveLive(filling:): weave_slot_peek,
 * and on a miss weave_generation, the table read, and weave_slot_install
 * (slot_install_in_section). One key, one slot, one writer that replaces the
 * key's value twice (versions 1 -> 2 -> 3), two readers of ROUNDS reads each.
 *
 * The generation word is one integer, as in C: completed writes times
 * ONE_WRITE plus the writes in progress (WRITER_SHIFT 16 in C; 16 here too,
 * so ONE_WRITE = 16). The slot word is one integer too, tag * 8 + version
 * (a box pointer | its tag in C), so the peek and the install read and swap
 * it whole.
 *
 * Property: a read never returns a value older than one it had to see.
 * Before each read a reader takes two floors:
 *   floor_mine  the newest version this reader has seen, or that a write
 *               had completed (write_complete) before the read began;
 *   floor_any   the newest version any reader had read from the table
 *               before this read began (so no reader goes back behind what
 *               another already saw: reads are linearizable).
 * A value served from the slot (or read from the table) must reach both.
 *
 * Not modelled: epoch reclamation (grace periods only delay the sweep,
 * which only clears stale boxes, so the sweep runs here at any point after
 * the write's completion), the write lock (one writer), slots_dirty and
 * finish_write's fast path (the sweep is a nondeterministic choice), tag
 * wrap-around (tags stay below 8). Memory is sequentially consistent; the C
 * code has the fences that make its loads and stores act so.
 *
 * Mutant MUTANT_OLD_PEEK: the protocol before commit b3c9c4c ("a slot
 * serves no box while a write is in progress"): a plain counter that a
 * write advances after its table store (advance_generation), a peek served
 * when the box's tag equals the generation, and an install that checks only
 * that the generation is unchanged and replaces any box of another tag.
 * A reader that loaded the generation and read the old value just before
 * the store installs it under the still-unchanged generation, and a reader
 * that already read the new value from the table is then served the old one.
 *
 * Mutant MUTANT_PEEK_DURING_WRITE: today's protocol with only the peek's
 * check of the writes in progress taken out (install keeps its own). A box
 * installed before a write began is served while the write is in progress,
 * after a reader already read the write's value from the table. It is this
 * check that keeps stale values out: with install's checks of the
 * generation removed instead (both of them), the model still verifies;
 * those checks keep useless boxes out of the slot (a box installed under an
 * old or busy token can never be served).
 */

#define ROUNDS 3
#define LAST   3   /* the writer's last version */

#ifdef MUTANT_OLD_PEEK
#define ONE_WRITE 1
#define WRITE_BEGIN skip
#define WRITE_COMPLETE gen = gen + 1 /* advance_generation, after the store */
/* old weave_slot_peek: tag_of_word(word) == tag_of_generation(current) */
#define PEEK_HIT(cur, w) (w != 0 && TAG_OF_WORD(w) == TAG(cur))
/* old slot_install_in_section: generation == expected ... */
#define READ_QUIET(g) true
/* ... and no box of the same tag */
#define MAY_REPLACE(w, g) (w == 0 || TAG_OF_WORD(w) != TAG(g))
#else
#define ONE_WRITE 16
#define WRITE_BEGIN gen = gen + 1                 /* write_begin: faa(1) */
#define WRITE_COMPLETE gen = gen + ONE_WRITE - 1  /* write_complete: faa(ONE_WRITE - 1) */
#ifdef MUTANT_PEEK_DURING_WRITE
/* the peek half of b3c9c4c undone: the tag compared, the writes in
 * progress not */
#define PEEK_HIT(cur, w) (w != 0 && TAG_OF_WORD(w) == TAG(cur))
#else
/* weave_slot_peek: (current & 0xffffffff) == tag << WRITER_SHIFT, that is
 * the tag matches and no write is in progress */
#define PEEK_HIT(cur, w) (w != 0 && cur % ONE_WRITE == 0 && TAG_OF_WORD(w) == TAG(cur))
#endif
/* slot_install_in_section: (expected & WRITERS_MASK) == 0 ... */
#define READ_QUIET(g) (g % ONE_WRITE == 0)
/* ... and only a box older than ours is replaced (tag_is_older) */
#define MAY_REPLACE(w, g) (w == 0 || TAG_OF_WORD(w) < TAG(g))
#endif

#define TAG(g)            ((g) / ONE_WRITE)   /* tag_of_generation */
#define TAG_OF_WORD(w)    ((w) / 8)
#define VERSION_OF_WORD(w) ((w) % 8)
#define WORD(g, v)        (TAG(g) * 8 + (v))

byte gen = ONE_WRITE;    /* `generation`: one completed write, none in progress */
byte table = 1;          /* the key's value in the registry: its version */
byte word = 0;           /* weave_slot.word: 0, or a box with its tag */

/* Observers, for the property only. */
byte done = 1;           /* the version of the last completed write */
byte observed = 1;       /* the newest version any reader read from the table */

inline cas(var, expected, desired, ok) {
    d_step {
        if
        :: var == expected -> var = desired; ok = true
        :: else -> ok = false
        fi
    }
}

inline raise(var, v) { if :: v > var -> var = v :: else fi }

active proctype writer() {
    byte v = 1;
    byte cur;
    byte w;
    bool ok;

    do
    :: v < LAST ->
        v++;
        /* weave_registry_set (under the write lock) */
        WRITE_BEGIN;
        table = v;                           /* ck_pr_store_ptr(&node->value, value) */
        d_step { WRITE_COMPLETE; done = v }  /* the observer marks it complete */
        /* finish_write: with something to release, sweep_slots(current)
         * after a grace period; else its fast path returns. */
        if
        :: cur = gen;
           w = word;
           if
           :: w != 0 && TAG_OF_WORD(w) < TAG(cur) -> cas(word, w, 0, ok)
           :: else
           fi;
           d_step { cur = 0; w = 0; ok = false }
        :: skip
        fi
    :: else -> break
    od
}

active [2] proctype reader() {
    byte seen = 1;       /* the newest version this reader has returned */
    byte floor_mine;
    byte floor_any;
    byte cur;
    byte g;
    byte w;
    byte v;
    byte rounds = 0;
    bool ok;

    do
    :: rounds < ROUNDS ->
        /* weave_slot_peek: the generation (and, in the same instant, the
         * floors), then the slot word */
        d_step {
            floor_mine = seen;
            raise(floor_mine, done);
            floor_any = observed;
            cur = gen
        };
        w = word;
        if
        :: PEEK_HIT(cur, w) ->
            v = VERSION_OF_WORD(w);
            assert(v >= floor_mine);
            assert(v >= floor_any)
        :: else ->
            /* refresh: weave_generation, then the full read */
            g = gen;
            d_step { v = table; raise(observed, v) };
            assert(v >= floor_mine);
            assert(v >= floor_any);
            /* weave_slot_install(slot, g, box(v)) */
            if
            :: READ_QUIET(g) && gen == g ->
                w = word;
                if
                :: MAY_REPLACE(w, g) -> cas(word, w, WORD(g, v), ok)
                :: else
                fi
            :: else   /* read during a write, or before one */
            fi
        fi;
        /* Forget the round's locals: they would only multiply the states. */
        d_step {
            raise(seen, v);
            rounds++;
            floor_mine = 0; floor_any = 0; cur = 0; g = 0; w = 0; v = 0; ok = false
        }
    :: else -> break
    od
}
