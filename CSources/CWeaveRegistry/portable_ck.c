#include "weave_ck.h"

#if defined(WEAVE_CK_PORTABLE)

#include <limits.h>
#include <sched.h>
#include <stdlib.h>

/*
 * The epoch. The global epoch E only grows, and only by read-modify-writes
 * (ck_epoch_call's tick and ck_epoch_synchronize_wait's), each sequentially
 * consistent. A record's outermost begin stores active, runs a full fence,
 * reads E and publishes what it read as its epoch.
 *
 * A writer that unlinked or replaced something, then ticked E to value T,
 * may free it once every record it scans (after a full fence) is
 *   idle: by the two full fences (the writer's before its scan, the
 *         reader's after its active store), either the scan sees the
 *         reader's section, or that section began after the fence and reads
 *         the unlinked state; a section the scan does see as over released
 *         its reads with its end;
 *   or at an epoch >= T: that section read E at or after the tick, from the
 *         tick's release sequence (every later change of E is a
 *         read-modify-write), so everything the writer did before the tick
 *         happens before the section's reads.
 * A record whose epoch is older than T and that is active may have read the
 * old state: the writer waits for it (synchronize) or leaves the entry for a
 * later poll. E is 64 bits and grows by one per tick: at a tick a
 * nanosecond it would wrap after 584 years, so epochs compare directly.
 * (They were 32 bits compared by signed difference, sound only while no
 * pending entry fell 2^31 ticks behind E: a thread that deferred a release
 * and then idled while others wrote could get there, and its entry would
 * then look newer than every bound.)
 *
 * Deferred calls need no epoch advance from polls: ck_epoch_call ticks E
 * itself after the caller's unlink, and the entry runs at the first poll
 * (or barrier) that finds every record idle or at an epoch >= its tick.
 */

enum { WEAVE_CK_RECORD_USED = 0, WEAVE_CK_RECORD_FREE = 1 };

CK_STACK_CONTAINER(ck_epoch_record_t, record_next, record_of_link)
CK_STACK_CONTAINER(ck_epoch_entry_t, stack_entry, entry_of_link)

static inline ck_epoch_record_t *first_record(ck_epoch_t *global) {
    ck_stack_entry_t *link = ck_pr_load_ptr(&global->records.head);
    return link == NULL ? NULL : record_of_link(link);
}

static inline ck_epoch_record_t *next_record(ck_epoch_record_t *record) {
    ck_stack_entry_t *link = ck_pr_load_ptr(&record->record_next.next);
    return link == NULL ? NULL : record_of_link(link);
}

/* Whether record holds up a grace period for changes made before the tick
 * that gave E the value target. Acquire loads: a section seen over (or a
 * newer one's epoch) orders that section's reads before what the caller
 * frees next. */
static inline bool record_blocks(ck_epoch_record_t *record, uint64_t target) {
    if (atomic_load_explicit(&record->active, memory_order_acquire) == 0) {
        return false;
    }
    return atomic_load_explicit(&record->epoch, memory_order_acquire) < target;
}

void ck_epoch_init(ck_epoch_t *global) {
    atomic_init(&global->epoch, 1);
    atomic_init(&global->n_free, 0);
    global->records.head = NULL;
}

static void record_reset(ck_epoch_record_t *record, void *ct) {
    atomic_store_explicit(&record->active, 0, memory_order_relaxed);
    atomic_store_explicit(&record->epoch, 0, memory_order_relaxed);
    record->n_pending = 0;
    record->pending_head = NULL;
    record->pending_tail = NULL;
    record->ct = ct;
}

void ck_epoch_register(ck_epoch_t *global, ck_epoch_record_t *record, void *ct) {
    record->global = global;
    atomic_store_explicit(&record->state, WEAVE_CK_RECORD_USED, memory_order_relaxed);
    record_reset(record, ct);
    /* The push releases the fields above to every later scan. */
    ck_stack_push_upmc(&global->records, &record->record_next);
}

void ck_epoch_unregister(ck_epoch_record_t *record) {
    record_reset(record, NULL);
    atomic_store_explicit(&record->state, WEAVE_CK_RECORD_FREE, memory_order_release);
    atomic_fetch_add_explicit(&record->global->n_free, 1, memory_order_seq_cst);
}

ck_epoch_record_t *ck_epoch_recycle(ck_epoch_t *global, void *ct) {
    if (atomic_load_explicit(&global->n_free, memory_order_acquire) == 0) {
        return NULL;
    }
    for (ck_epoch_record_t *record = first_record(global); record != NULL; record = next_record(record)) {
        if (atomic_load_explicit(&record->state, memory_order_relaxed) != WEAVE_CK_RECORD_FREE) {
            continue;
        }
        /* Acquire: the last owner's unregister, and what it did before. */
        if (atomic_exchange_explicit(&record->state, WEAVE_CK_RECORD_USED, memory_order_acq_rel) ==
            WEAVE_CK_RECORD_FREE) {
            atomic_fetch_sub_explicit(&global->n_free, 1, memory_order_seq_cst);
            record->ct = ct;
            return record;
        }
    }
    return NULL;
}

void ck_epoch_call(ck_epoch_record_t *record, ck_epoch_entry_t *entry, ck_epoch_cb_t *function) {
    entry->function = function;
    entry->stack_entry.next = NULL;
    entry->epoch = atomic_fetch_add_explicit(&record->global->epoch, 1, memory_order_seq_cst) + 1;
    if (record->pending_tail == NULL) {
        record->pending_head = entry;
    } else {
        record->pending_tail->stack_entry.next = &entry->stack_entry;
    }
    record->pending_tail = entry;
    record->n_pending++;
}

/* Runs the pending entries whose tick is not after bound (all of them with
 * everything set). They are taken off the queue before any runs: a callback
 * may defer, poll or wait on this record again. Returns how many ran. */
static unsigned int dispatch(ck_epoch_record_t *record, uint64_t bound, bool everything) {
    ck_epoch_entry_t *first = record->pending_head;
    ck_epoch_entry_t *last = NULL;
    ck_epoch_entry_t *cursor = first;
    unsigned int count = 0;
    while (cursor != NULL && (everything || cursor->epoch <= bound)) {
        last = cursor;
        count++;
        cursor = cursor->stack_entry.next == NULL ? NULL : entry_of_link(cursor->stack_entry.next);
    }
    if (count == 0) {
        return 0;
    }
    record->pending_head = cursor;
    if (cursor == NULL) {
        record->pending_tail = NULL;
    }
    last->stack_entry.next = NULL;
    record->n_pending -= count;
    for (ck_epoch_entry_t *entry = first; entry != NULL;) {
        ck_epoch_entry_t *next = entry->stack_entry.next == NULL ? NULL : entry_of_link(entry->stack_entry.next);
        entry->function(entry);
        entry = next;
    }
    return count;
}

bool ck_epoch_poll(ck_epoch_record_t *record) {
    if (record->pending_head == NULL) {
        return false;
    }
    ck_epoch_t *global = record->global;
    atomic_thread_fence(memory_order_seq_cst);
    /* Every entry's tick is at most E now; the oldest epoch of an active
     * record bounds what may run. */
    uint64_t bound = atomic_load_explicit(&global->epoch, memory_order_acquire);
    for (ck_epoch_record_t *cursor = first_record(global); cursor != NULL; cursor = next_record(cursor)) {
        if (atomic_load_explicit(&cursor->active, memory_order_acquire) == 0) {
            continue;
        }
        uint64_t epoch = atomic_load_explicit(&cursor->epoch, memory_order_acquire);
        if (epoch < bound) {
            bound = epoch;
        }
    }
    return dispatch(record, bound, false) != 0;
}

void ck_epoch_synchronize_wait(ck_epoch_t *global, ck_epoch_wait_cb_t *cb, void *ct) {
    /* The caller's unlinks before the tick and the scan. */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t target = atomic_fetch_add_explicit(&global->epoch, 1, memory_order_seq_cst) + 1;
    atomic_thread_fence(memory_order_seq_cst);
    for (ck_epoch_record_t *record = first_record(global); record != NULL; record = next_record(record)) {
        while (record_blocks(record, target)) {
            if (cb != NULL) {
                cb(global, record, ct);
            } else {
                sched_yield();
            }
        }
    }
    atomic_thread_fence(memory_order_seq_cst);
}

void ck_epoch_synchronize(ck_epoch_record_t *record) {
    ck_epoch_synchronize_wait(record->global, NULL, NULL);
}

void ck_epoch_barrier_wait(ck_epoch_record_t *record, ck_epoch_wait_cb_t *cb, void *ct) {
    ck_epoch_synchronize_wait(record->global, cb, ct);
    /* Every entry was ticked before the grace period's own tick. */
    (void)dispatch(record, 0, true);
}

void ck_epoch_barrier(ck_epoch_record_t *record) {
    ck_epoch_barrier_wait(record, NULL, NULL);
}

/*
 * The hash set: open addressing with linear probing over an array that is
 * replaced, never rearranged. One writer (the caller's lock) stores objects
 * into empty or tombstoned slots and tombstones into occupied ones; a slot
 * never becomes empty again, so a reader's probe for a present object meets
 * it before the first empty slot, and a reader never misses an object that
 * was present for its whole probe. Growth, gc and reset_size fill a new
 * array, publish it with a release store, and retire the old one through the
 * allocator's free with defer set, as ck does: readers still on it keep
 * reading a consistent, complete snapshot until their sections end.
 *
 * Empty plus tombstoned slots stay at least half the array (an insert into
 * an empty slot grows or rebuilds first), so probes stay short and always
 * end at an empty slot; the probe length is capped at the capacity anyway.
 */

#define HS_EMPTY NULL
#define HS_TOMBSTONE ((const void *)~(uintptr_t)0)
#define HS_MIN_CAPACITY 8ul

struct ck_hs_map {
    unsigned long capacity; /* a power of two */
    unsigned long n_entries;
    unsigned long tombstones;
    size_t size; /* bytes, as passed to the allocator */
    _Atomic(const void *) entries[];
};

static unsigned long capacity_for(unsigned long wanted) {
    unsigned long capacity = HS_MIN_CAPACITY;
    while (capacity < wanted && capacity <= ULONG_MAX / 2) {
        capacity <<= 1;
    }
    return capacity;
}

static struct ck_hs_map *map_create(ck_hs_t *hs, unsigned long capacity) {
    if (capacity > (SIZE_MAX - sizeof(struct ck_hs_map)) / sizeof(_Atomic(const void *))) {
        return NULL;
    }
    size_t size = sizeof(struct ck_hs_map) + capacity * sizeof(_Atomic(const void *));
    struct ck_hs_map *map = hs->m->malloc(size);
    if (map == NULL) {
        return NULL;
    }
    map->capacity = capacity;
    map->n_entries = 0;
    map->tombstones = 0;
    map->size = size;
    for (unsigned long i = 0; i < capacity; i++) {
        atomic_init(&map->entries[i], HS_EMPTY);
    }
    return map;
}

static inline struct ck_hs_map *writer_map(ck_hs_t *hs) {
    return atomic_load_explicit(&hs->map, memory_order_relaxed);
}

/* Replaces the array; the old one may still be read. */
static void map_publish(ck_hs_t *hs, struct ck_hs_map *map) {
    struct ck_hs_map *previous = writer_map(hs);
    atomic_store_explicit(&hs->map, map, memory_order_release);
    hs->m->free(previous, previous->size, true);
}

static inline bool matches(ck_hs_t *hs, const void *stored, const void *key) {
    return stored == key || (hs->compare != NULL && hs->compare(stored, key));
}

/* A new array of capacity slots holding the live objects of the current
 * one, published; false when memory is exhausted (nothing changes). */
static bool map_rebuild(ck_hs_t *hs, unsigned long capacity) {
    struct ck_hs_map *map = writer_map(hs);
    struct ck_hs_map *update = map_create(hs, capacity);
    if (update == NULL) {
        return false;
    }
    unsigned long mask = update->capacity - 1;
    for (unsigned long k = 0; k < map->capacity; k++) {
        const void *object = atomic_load_explicit(&map->entries[k], memory_order_relaxed);
        if (object == HS_EMPTY || object == HS_TOMBSTONE) {
            continue;
        }
        unsigned long i = hs->hf(object, hs->seed) & mask;
        while (atomic_load_explicit(&update->entries[i], memory_order_relaxed) != HS_EMPTY) {
            i = (i + 1) & mask;
        }
        atomic_store_explicit(&update->entries[i], object, memory_order_relaxed);
        update->n_entries++;
    }
    map_publish(hs, update);
    return true;
}

bool ck_hs_init(ck_hs_t *hs, unsigned int mode, ck_hs_hash_cb_t *hf, ck_hs_compare_cb_t *compare,
                struct ck_malloc *m, unsigned long capacity, unsigned long seed) {
    if (m == NULL || m->malloc == NULL || m->free == NULL || hf == NULL ||
        mode != (CK_HS_MODE_OBJECT | CK_HS_MODE_SPMC)) {
        return false;
    }
    hs->m = m;
    hs->mode = mode;
    hs->seed = seed;
    hs->hf = hf;
    hs->compare = compare;
    struct ck_hs_map *map = map_create(hs, capacity_for(capacity));
    if (map == NULL) {
        return false;
    }
    atomic_init(&hs->map, map);
    return true;
}

void ck_hs_destroy(ck_hs_t *hs) {
    struct ck_hs_map *map = writer_map(hs);
    hs->m->free(map, map->size, false);
}

void *ck_hs_get(ck_hs_t *hs, unsigned long hash, const void *key) {
    struct ck_hs_map *map = atomic_load_explicit(&hs->map, memory_order_acquire);
    unsigned long mask = map->capacity - 1;
    unsigned long i = hash & mask;
    for (unsigned long probes = 0; probes < map->capacity; probes++, i = (i + 1) & mask) {
        const void *object = atomic_load_explicit(&map->entries[i], memory_order_acquire);
        if (object == HS_EMPTY) {
            return NULL;
        }
        if (object != HS_TOMBSTONE && matches(hs, object, key)) {
            return (void *)(uintptr_t)object;
        }
    }
    return NULL;
}

/* The writer's probe: the slot holding an object equal to key (*found set),
 * else the first tombstone on the way, else the empty slot that ended it;
 * -1 when the whole array was probed (never, given the load factor). */
static long writer_probe(ck_hs_t *hs, struct ck_hs_map *map, unsigned long hash, const void *key, bool *found) {
    unsigned long mask = map->capacity - 1;
    unsigned long i = hash & mask;
    long tombstone = -1;
    *found = false;
    for (unsigned long probes = 0; probes < map->capacity; probes++, i = (i + 1) & mask) {
        const void *object = atomic_load_explicit(&map->entries[i], memory_order_relaxed);
        if (object == HS_EMPTY) {
            return tombstone >= 0 ? tombstone : (long)i;
        }
        if (object == HS_TOMBSTONE) {
            if (tombstone < 0) {
                tombstone = (long)i;
            }
        } else if (matches(hs, object, key)) {
            *found = true;
            return (long)i;
        }
    }
    return tombstone;
}

bool ck_hs_apply(ck_hs_t *hs, unsigned long hash, const void *key, ck_hs_apply_fn_t *fn, void *closure) {
    for (;;) {
        struct ck_hs_map *map = writer_map(hs);
        bool found;
        long slot = writer_probe(hs, map, hash, key, &found);
        const void *object = NULL;
        bool reuses_tombstone = false;
        if (found) {
            object = atomic_load_explicit(&map->entries[slot], memory_order_relaxed);
        } else {
            reuses_tombstone =
                slot >= 0 && atomic_load_explicit(&map->entries[slot], memory_order_relaxed) == HS_TOMBSTONE;
            /* Grown before fn runs, so an insert fn asks for cannot fail
             * (ck grows first only when the probe found no slot, and after an
             * insert that passes its load factor, ignoring a failure). Double
             * while live objects fill a quarter, else only drop the
             * tombstones. */
            if (!reuses_tombstone && (map->n_entries + map->tombstones + 1) * 2 > map->capacity) {
                unsigned long capacity =
                    (map->n_entries + 1) * 4 > map->capacity ? map->capacity * 2 : map->capacity;
                if (!map_rebuild(hs, capacity)) {
                    return false;
                }
                continue;
            }
            if (slot < 0) {
                return false;
            }
        }
        const void *delta = fn((void *)(uintptr_t)object, closure);
        if (delta == object) {
            return true;
        }
        if (delta == NULL) {
            atomic_store_explicit(&map->entries[slot], HS_TOMBSTONE, memory_order_release);
            map->n_entries--;
            map->tombstones++;
            return true;
        }
        /* Release: the object's own fields before a reader can reach it. */
        atomic_store_explicit(&map->entries[slot], delta, memory_order_release);
        if (!found) {
            if (reuses_tombstone) {
                map->tombstones--;
            }
            map->n_entries++;
        }
        return true;
    }
}

void *ck_hs_remove(ck_hs_t *hs, unsigned long hash, const void *key) {
    struct ck_hs_map *map = writer_map(hs);
    bool found;
    long slot = writer_probe(hs, map, hash, key, &found);
    if (!found) {
        return NULL;
    }
    const void *object = atomic_load_explicit(&map->entries[slot], memory_order_relaxed);
    atomic_store_explicit(&map->entries[slot], HS_TOMBSTONE, memory_order_release);
    map->n_entries--;
    map->tombstones++;
    return (void *)(uintptr_t)object;
}

bool ck_hs_gc(ck_hs_t *hs, unsigned long cycles, unsigned long seed) {
    (void)cycles;
    (void)seed;
    struct ck_hs_map *map = writer_map(hs);
    return map->tombstones == 0 || map_rebuild(hs, map->capacity);
}

bool ck_hs_reset_size(ck_hs_t *hs, unsigned long capacity) {
    struct ck_hs_map *map = map_create(hs, capacity_for(capacity));
    if (map == NULL) {
        return false;
    }
    map_publish(hs, map);
    return true;
}

unsigned long ck_hs_count(ck_hs_t *hs) {
    return writer_map(hs)->n_entries;
}

bool ck_hs_next(ck_hs_t *hs, ck_hs_iterator_t *iterator, void **object) {
    struct ck_hs_map *map = writer_map(hs);
    while (iterator->offset < map->capacity) {
        const void *entry = atomic_load_explicit(&map->entries[iterator->offset++], memory_order_relaxed);
        if (entry != HS_EMPTY && entry != HS_TOMBSTONE) {
            *object = (void *)(uintptr_t)entry;
            return true;
        }
    }
    return false;
}

#else
/* The system-ck build (x86-64) compiles this file to nothing; ISO C wants one
 * declaration in every translation unit. */
typedef int weave_portable_ck_unused;
#endif
