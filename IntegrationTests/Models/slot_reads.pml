/*
 * Slot reads without a reader fence (CSources/CWeaveRegistry/weave_registry.c:
 * slot_read_begin, weave_slot_peek, weave_slot_read_end, slot_readers_wait,
 * finish_write), on a machine with store buffers (TSO, as x86).
 *
 * A reader makes its sequence odd with a plain store, loads the generation
 * and the slot's word, and dereferences the box only when the box's tag is
 * the generation it loaded; then makes its sequence even. Its stores sit in
 * its store buffer (FIFO) until drained, at any time; its loads read memory,
 * so until the odd store drains no other thread can see the read began.
 *
 * The writer advances the generation (a store through its own buffer) and
 * sweeps the stale box out of the slot (a locked CAS: visible at once),
 * runs membarrier, then scans each reader's sequence and waits for an odd
 * one to move; then it frees the box.
 * membarrier makes every thread execute a full fence while it runs: as
 * every thread's loads read memory, that is every store buffer drained at
 * one instant.
 *
 * Two readers with two reads each; one write. Property: a reader never
 * dereferences a freed box.
 *
 * FENCED is the reader of a machine without membarrier: it drains its own
 * buffer after its odd store (a full fence), and the writer does not call
 * membarrier. Mutants (each must be rejected):
 *   MUTANT_NO_MEMBARRIER  the fenceless reader, the writer without membarrier
 *   MUTANT_SCAN_FIRST     membarrier after the scan
 *   MUTANT_CHANGE_LATE    the generation advanced and the box swept after
 *                         membarrier
 *   FENCED with MUTANT_NO_READER_FENCE  the fenced form without its fence
 */
#define READERS 2
#define READS 2

byte seq[READERS];      /* each reader's sequence in memory */
byte pending[READERS];  /* each reader's buffered increments of it, oldest first */
byte gen = 0;           /* the generation in memory */
bool gen_pending = false; /* the writer's advance, still in its buffer */
bool box_present = true;  /* the slot's word: a box tagged 0 */
bool box_freed = false;

inline drain_all() {
    seq[0] = seq[0] + pending[0];
    pending[0] = 0;
    seq[1] = seq[1] + pending[1];
    pending[1] = 0;
    if
    :: gen_pending -> gen = 1; gen_pending = false
    :: else -> skip
    fi
}

inline membarrier() {
#if defined(FENCED)
    /* the writer's own full fence: its advance drains */
    if
    :: gen_pending -> gen = 1; gen_pending = false
    :: else -> skip
    fi
#elif defined(MUTANT_NO_MEMBARRIER)
    skip
#else
    atomic { drain_all() }
#endif
}

proctype reader(byte id) {
    byte reads = 0, g;
    bool present;
    do
    :: reads == READS -> break
    :: else ->
        pending[id]++;                  /* sequence odd, buffered */
#if defined(FENCED) && !defined(MUTANT_NO_READER_FENCE)
        atomic { seq[id] = seq[id] + pending[id]; pending[id] = 0 }
#endif
        g = gen;                        /* the generation */
        present = box_present;          /* the slot's word */
        if
        :: present && g == 0 ->         /* tag matches: serve the box */
            assert(!box_freed);         /* copy out of it */
            assert(!box_freed)          /* still copying */
        :: else -> skip
        fi;
        pending[id]++;                  /* sequence even, buffered */
        reads++
    od
}

/* Drains one buffered store at a time, oldest first, at any moment. */
active proctype buffers() {
end:
    do
    :: atomic { pending[0] > 0 -> seq[0]++; pending[0]-- }
    :: atomic { pending[1] > 0 -> seq[1]++; pending[1]-- }
    :: atomic { gen_pending -> gen = 1; gen_pending = false }
    od
}

inline wait_for(i, seen) {
    seen = seq[i];
    if
    :: seen % 2 == 1 -> seq[i] != seen   /* blocks until the read moves on */
    :: else -> skip
    fi
}

active proctype writer() {
    byte seen;
#ifndef MUTANT_CHANGE_LATE
    gen_pending = true;                 /* advance the generation */
    box_present = false;                /* sweep: the box out of its slot (a CAS) */
#endif
#ifndef MUTANT_SCAN_FIRST
    membarrier();
#endif
#ifdef MUTANT_CHANGE_LATE
    gen_pending = true;
    box_present = false;
#endif
    wait_for(0, seen);
    wait_for(1, seen);
#ifdef MUTANT_SCAN_FIRST
    membarrier();
#endif
    box_freed = true                    /* release */
}

init {
    atomic {
        run reader(0);
        run reader(1)
    }
}
