/*
 * The slot index (CSources/CWeaveRegistry/weave_registry.c): readers probe
 * the current table without a lock (find_slot) while the writer publishes
 * slots (weave_slot_publish) and, when a table would be more than half
 * full, copies every slot into one twice its size and publishes that table
 * (slot_table_grow).
 *
 * One writer publishes keys 1..KEYS into a first table of 2 buckets, which
 * grows to 4 and then 8; three readers each find one key once. A key is a
 * slot (0 is an empty bucket); its home bucket is key mod size.
 *
 * Property: a reader never misses a key published before it began (a miss
 * of a key published while it probed is allowed: the caller looks again
 * under the lock).
 */
#define KEYS 3
#define EMPTY 0

byte bucket[14]; /* the tables of 2, 4 and 8 buckets, at offsets 0, 2 and 6 */
byte table = 0;  /* the table readers load: 0, 1 or 2 */
bool published[KEYS + 1];

inline size_of(t, size) {
    if
    :: t == 0 -> size = 2
    :: t == 1 -> size = 4
    :: else -> size = 8
    fi
}

inline offset_of(t, offset) {
    if
    :: t == 0 -> offset = 0
    :: t == 1 -> offset = 2
    :: else -> offset = 6
    fi
}

/* The writer's probe (slot_table_bucket): key's bucket in table t, or the
 * empty bucket its probe reaches. */
inline writer_probe(t, key, b, size, offset) {
    size_of(t, size);
    offset_of(t, offset);
    b = key % size;
    do
    :: bucket[offset + b] == EMPTY || bucket[offset + b] == key -> break
    :: else -> b = (b + 1) % size
    od
}

active proctype writer() {
    byte key = 1, count = 0, t = 0, i, moved, b, size, offset, new_size, new_offset;
    do
    :: key > KEYS -> break
    :: else ->
        size_of(t, size);
        if
        :: (count + 1) * 2 > size ->
#ifdef MUTANT_PUBLISH_FIRST
            table = t + 1; /* published before it is filled */
#endif
            offset_of(t, offset);
            i = 0;
            do
            :: i == size -> break
            :: else ->
                moved = bucket[offset + i];
#ifndef MUTANT_NO_COPY
                if
                :: moved != EMPTY ->
                    writer_probe(t + 1, moved, b, new_size, new_offset);
                    bucket[new_offset + b] = moved
                :: else -> skip
                fi;
#endif
                i++
            od;
            t++;
#ifndef MUTANT_PUBLISH_FIRST
            table = t
#endif
        :: else -> skip
        fi;
        writer_probe(t, key, b, size, offset);
        atomic { bucket[offset + b] = key; published[key] = true };
        count++;
        key++
    od
}

/* find_slot: load the table, probe to the key or an empty bucket. */
proctype reader(byte key) {
    bool must;
    byte t, b, size, offset, seen;
    must = published[key];
    t = table;
    size_of(t, size);
    offset_of(t, offset);
    b = key % size;
    do
    :: seen = bucket[offset + b];
        if
        :: seen == key -> break
        :: seen == EMPTY -> assert(!must); break
        :: else -> b = (b + 1) % size
        fi
    od
}

init {
    atomic {
        run reader(1);
        run reader(2);
        run reader(1)
    }
}
