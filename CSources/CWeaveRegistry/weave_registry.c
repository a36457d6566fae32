#include "weave_registry.h"

#include <ck_epoch.h>
#include <ck_hs.h>
#include <ck_pr.h>

#include <pthread.h>
#include <stdlib.h>

/*
 * ThreadSanitizer cannot see the ordering ck provides: its x86-64 ck_pr_*
 * helpers are inline asm and libck.so is not instrumented. Under TSan, state
 * the happens-before edges explicitly; elsewhere these compile to nothing.
 *   publication:  a writer releases an object before making it reachable
 *                 (node, node->value, live registry, cell snapshot); a reader
 *                 acquires it once it has reached it.
 *   grace period: every read section releases `global_epoch` as it ends; a
 *                 writer acquires it once its grace period is over, before
 *                 it frees or releases anything a section could have seen.
 *   records:      a thread releases its epoch record before unregistering
 *                 it; the thread that recycles it acquires it.
 */
#if defined(__SANITIZE_THREAD__)
#define WEAVE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEAVE_TSAN 1
#endif
#endif
#ifdef WEAVE_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define TSAN_ACQUIRE(p) do { if ((p) != NULL) __tsan_acquire((void *)(p)); } while (0)
#define TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define TSAN_ACQUIRE(p) ((void)0)
#define TSAN_RELEASE(p) ((void)0)
#endif

/*
 * Reclamation: one process-wide epoch, one record per thread. A writer defers
 * frees of table memory and of nodes through ck_epoch_call on its own record
 * and then waits out a grace period with ck_epoch_barrier before it releases
 * any value, so a reader inside a section never sees freed memory.
 */

static weave_value_fn value_retain;
static weave_value_fn value_release;

static ck_epoch_t global_epoch;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static pthread_key_t record_key;
static _Thread_local ck_epoch_record_t *thread_record;

static void record_thread_exit(void *record) {
    /* Each write drains its own deferred work before returning, so nothing is
     * pending here; the record goes back to the epoch's free list. */
    thread_record = NULL;
    TSAN_RELEASE(record);
    ck_epoch_unregister(record);
}

static void global_init(void) {
    ck_epoch_init(&global_epoch);
    if (pthread_key_create(&record_key, record_thread_exit) != 0) {
        abort();
    }
}

static ck_epoch_record_t *record_acquire_slow(void) {
    pthread_once(&global_once, global_init);
    ck_epoch_record_t *record = ck_epoch_recycle(&global_epoch, NULL);
    if (record != NULL) {
        TSAN_ACQUIRE(record);
    } else {
        record = aligned_alloc(CK_MD_CACHELINE, sizeof(*record));
        if (record == NULL) {
            abort();
        }
        ck_epoch_register(&global_epoch, record, NULL);
    }
    pthread_setspecific(record_key, record);
    thread_record = record;
    return record;
}

static inline ck_epoch_record_t *record_acquire(void) {
    ck_epoch_record_t *record = thread_record;
    if (CK_CC_LIKELY(record != NULL)) {
        return record;
    }
    return record_acquire_slow();
}

void weave_set_value_callbacks(weave_value_fn retain, weave_value_fn release) {
    value_retain = retain;
    value_release = release;
}

/* Table memory carries an epoch entry in front so its free can be deferred. */
struct deferred_block {
    ck_epoch_entry_t entry;
} __attribute__((aligned(16)));

static void deferred_block_free(ck_epoch_entry_t *entry) {
    TSAN_ACQUIRE(&global_epoch);
    free(entry);
}

static void *table_malloc(size_t size) {
    struct deferred_block *block = malloc(sizeof(*block) + size);
    return block == NULL ? NULL : block + 1;
}

static void table_free(void *pointer, size_t size, bool defer) {
    (void)size;
    if (pointer == NULL) {
        return;
    }
    struct deferred_block *block = (struct deferred_block *)pointer - 1;
    if (defer) {
        ck_epoch_call(record_acquire(), &block->entry, deferred_block_free);
    } else {
        free(block);
    }
}

static struct ck_malloc table_allocator = {
    .malloc = table_malloc,
    .realloc = NULL,
    .free = table_free,
};

struct weave_node {
    uintptr_t key;
    void *value;
    ck_epoch_entry_t entry;
    struct weave_node *unlinked_next; /* chains the nodes clear/destroy unlink */
};

CK_EPOCH_CONTAINER(struct weave_node, entry, node_of_entry)

static void node_free(ck_epoch_entry_t *entry) {
    TSAN_ACQUIRE(&global_epoch);
    free(node_of_entry(entry));
}

#define HASH_SEED 0x9e3779b97f4a7c15UL

static inline unsigned long key_hash(uintptr_t key) {
    /* Type metadata pointers are aligned and clustered: mix every bit. */
    uint64_t x = (uint64_t)key ^ HASH_SEED;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (unsigned long)x;
}

static unsigned long node_hash(const void *object, unsigned long seed) {
    (void)seed;
    return key_hash(((const struct weave_node *)object)->key);
}

static bool node_equal(const void *a, const void *b) {
    TSAN_ACQUIRE(a); /* the stored node; b is the probe */
    return ((const struct weave_node *)a)->key == ((const struct weave_node *)b)->key;
}

struct weave_registry {
    ck_hs_t table;
    pthread_mutex_t write_lock;
    weave_registry_t *parent;
    size_t removals_since_gc;
};

weave_registry_t *weave_registry_create(weave_registry_t *parent) {
    pthread_once(&global_once, global_init);
    weave_registry_t *registry = calloc(1, sizeof(*registry));
    if (registry == NULL) {
        return NULL;
    }
    if (!ck_hs_init(&registry->table, CK_HS_MODE_OBJECT | CK_HS_MODE_SPMC, node_hash, node_equal,
                    &table_allocator, 32, HASH_SEED)) {
        free(registry);
        return NULL;
    }
    pthread_mutex_init(&registry->write_lock, NULL);
    registry->parent = parent;
    return registry;
}

/* Must run inside a read section. */
static inline void *lookup(weave_registry_t *registry, uintptr_t key, bool search_parents) {
    struct weave_node probe = {.key = key};
    unsigned long hash = key_hash(key);
    for (; registry != NULL; registry = search_parents ? registry->parent : NULL) {
        struct weave_node *node = ck_hs_get(&registry->table, hash, &probe);
        if (node != NULL) {
            void *value = ck_pr_load_ptr(&node->value);
            TSAN_ACQUIRE(node);
            return value;
        }
    }
    return NULL;
}

static inline void *lookup_retained(weave_registry_t *registry, uintptr_t key, bool search_parents) {
    void *value = lookup(registry, key, search_parents);
    if (value != NULL) {
        value_retain(value);
    }
    return value;
}

static void *get_retained(weave_registry_t *registry, uintptr_t key, bool search_parents) {
    ck_epoch_record_t *record = record_acquire();
    ck_epoch_begin(record, NULL);
    void *value = lookup_retained(registry, key, search_parents);
    TSAN_RELEASE(&global_epoch);
    ck_epoch_end(record, NULL);
    return value;
}

void *weave_registry_get(weave_registry_t *registry, uintptr_t key) {
    return get_retained(registry, key, true);
}

void *weave_registry_get_local(weave_registry_t *registry, uintptr_t key) {
    return get_retained(registry, key, false);
}

/* Runs the deferred frees queued by this thread, then releases the values
 * that were unlinked; always called with no lock held. */
static void finish_write(void **released, size_t count) {
    ck_epoch_barrier(record_acquire());
    TSAN_ACQUIRE(&global_epoch);
    for (size_t i = 0; i < count; i++) {
        if (released[i] != NULL) {
            value_release(released[i]);
        }
    }
}

bool weave_registry_set(weave_registry_t *registry, uintptr_t key, void *value) {
    struct weave_node probe = {.key = key};
    unsigned long hash = key_hash(key);
    void *previous = NULL;

    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *node = ck_hs_get(&registry->table, hash, &probe);
    if (node != NULL) {
        previous = node->value;
        TSAN_RELEASE(node);
        ck_pr_store_ptr(&node->value, value);
    } else {
        node = malloc(sizeof(*node));
        if (node == NULL) {
            pthread_mutex_unlock(&registry->write_lock);
            return false;
        }
        node->key = key;
        node->value = value;
        /* The store of the node's fields must be visible before the node is. */
        ck_pr_fence_store();
        TSAN_RELEASE(node);
        if (!ck_hs_put(&registry->table, hash, node)) {
            pthread_mutex_unlock(&registry->write_lock);
            free(node);
            finish_write(NULL, 0);
            return false;
        }
    }
    pthread_mutex_unlock(&registry->write_lock);
    finish_write(&previous, 1);
    return true;
}

bool weave_registry_replace_if(weave_registry_t *registry, uintptr_t key, void *expected, void *value) {
    struct weave_node probe = {.key = key};
    bool replaced = false;

    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *node = ck_hs_get(&registry->table, key_hash(key), &probe);
    if (node != NULL && node->value == expected) {
        TSAN_RELEASE(node);
        ck_pr_store_ptr(&node->value, value);
        replaced = true;
    }
    pthread_mutex_unlock(&registry->write_lock);
    if (replaced) {
        finish_write(&expected, 1);
    }
    return replaced;
}

bool weave_registry_remove(weave_registry_t *registry, uintptr_t key) {
    struct weave_node probe = {.key = key};
    void *previous = NULL;

    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *node = ck_hs_remove(&registry->table, key_hash(key), &probe);
    if (node != NULL) {
        previous = node->value;
        ck_epoch_call(record_acquire(), &node->entry, node_free);
        /* Tombstones lengthen probes; compact once they outnumber live keys. */
        if (++registry->removals_since_gc > 64 + ck_hs_count(&registry->table)) {
            ck_hs_gc(&registry->table, 0, 0);
            registry->removals_since_gc = 0;
        }
    }
    pthread_mutex_unlock(&registry->write_lock);
    if (node != NULL) {
        finish_write(&previous, 1);
    }
    return node != NULL;
}

/* Unlinks every node into a list threaded through the nodes themselves, so
 * it needs no memory. Called with the write lock held. */
static struct weave_node *unlink_all(weave_registry_t *registry, size_t *count) {
    struct weave_node *list = NULL;
    size_t n = 0;
    ck_hs_iterator_t iterator = CK_HS_ITERATOR_INITIALIZER;
    void *object;
    while (ck_hs_next(&registry->table, &iterator, &object)) {
        struct weave_node *node = object;
        node->unlinked_next = list;
        list = node;
        n++;
    }
    *count = n;
    return list;
}

/* Once no reader can see them: release each value, free each node. Called
 * with no lock held. */
static void release_unlinked(struct weave_node *list) {
    ck_epoch_barrier(record_acquire());
    TSAN_ACQUIRE(&global_epoch);
    while (list != NULL) {
        struct weave_node *next = list->unlinked_next;
        value_release(list->value);
        free(list);
        list = next;
    }
}

size_t weave_registry_clear(weave_registry_t *registry) {
    size_t count = 0;
    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *list = unlink_all(registry, &count);
    if (!ck_hs_reset(&registry->table)) {
        /* No memory for a fresh table: empty this one in place. */
        for (struct weave_node *node = list; node != NULL; node = node->unlinked_next) {
            ck_hs_remove(&registry->table, key_hash(node->key), node);
        }
    }
    registry->removals_since_gc = 0;
    pthread_mutex_unlock(&registry->write_lock);
    release_unlinked(list);
    return count;
}

size_t weave_registry_count(weave_registry_t *registry) {
    pthread_mutex_lock(&registry->write_lock);
    size_t count = ck_hs_count(&registry->table);
    pthread_mutex_unlock(&registry->write_lock);
    return count;
}

void weave_registry_each(weave_registry_t *registry, void *context,
                         bool (*body)(void *context, uintptr_t key, void *value)) {
    size_t capacity;
    uintptr_t *keys;
    void **values;
    size_t n = 0;

    /* Snapshot under the lock, call out without it: body may write. */
    pthread_mutex_lock(&registry->write_lock);
    capacity = ck_hs_count(&registry->table);
    keys = malloc((capacity + 1) * sizeof(uintptr_t));
    values = malloc((capacity + 1) * sizeof(void *));
    if (keys != NULL && values != NULL) {
        ck_hs_iterator_t iterator = CK_HS_ITERATOR_INITIALIZER;
        void *object;
        while (n < capacity && ck_hs_next(&registry->table, &iterator, &object)) {
            struct weave_node *node = object;
            keys[n] = node->key;
            values[n] = node->value;
            value_retain(node->value);
            n++;
        }
    }
    pthread_mutex_unlock(&registry->write_lock);

    bool go_on = true;
    for (size_t i = 0; i < n; i++) {
        if (go_on) {
            go_on = body(context, keys[i], values[i]);
        }
        value_release(values[i]);
    }
    free(keys);
    free(values);
}

void weave_registry_destroy(weave_registry_t *registry) {
    if (registry == NULL) {
        return;
    }
    size_t count = 0;
    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *list = unlink_all(registry, &count);
    pthread_mutex_unlock(&registry->write_lock);
    /* A reader that reached this registry through the live pointer may still
     * be inside its section: nothing it can see is freed before this. */
    ck_epoch_synchronize(record_acquire());
    TSAN_ACQUIRE(&global_epoch);
    ck_hs_destroy(&registry->table);
    pthread_mutex_destroy(&registry->write_lock);
    free(registry);
    release_unlinked(list);
}

static weave_registry_t *live_registry;

void weave_live_set(weave_registry_t *registry) {
    TSAN_RELEASE(&live_registry);
    ck_pr_store_ptr(&live_registry, registry);
    ck_epoch_synchronize(record_acquire());
}

void *weave_live_get(uintptr_t key) {
    ck_epoch_record_t *record = record_acquire();
    ck_epoch_begin(record, NULL);
    weave_registry_t *registry = ck_pr_load_ptr(&live_registry);
    TSAN_ACQUIRE(&live_registry);
    void *value = registry == NULL ? NULL : lookup_retained(registry, key, true);
    TSAN_RELEASE(&global_epoch);
    ck_epoch_end(record, NULL);
    return value;
}

void *weave_live_peek(uintptr_t key) {
    ck_epoch_begin(record_acquire(), NULL);
    weave_registry_t *registry = ck_pr_load_ptr(&live_registry);
    TSAN_ACQUIRE(&live_registry);
    return registry == NULL ? NULL : lookup(registry, key, true);
}

void *weave_registry_peek(weave_registry_t *registry, uintptr_t key) {
    ck_epoch_begin(record_acquire(), NULL);
    return lookup(registry, key, true);
}

void weave_read_end(void) {
    TSAN_RELEASE(&global_epoch);
    ck_epoch_end(thread_record, NULL);
}

struct cell_snapshot {
    uint64_t generation;
    void *value;
    ck_epoch_entry_t entry;
};

struct weave_cell {
    struct cell_snapshot *current;
};

weave_cell_t *weave_cell_create(void) {
    pthread_once(&global_once, global_init);
    return calloc(1, sizeof(weave_cell_t));
}

static void cell_retire(struct cell_snapshot *snapshot) {
    if (snapshot == NULL) {
        return;
    }
    ck_epoch_synchronize(record_acquire());
    TSAN_ACQUIRE(&global_epoch);
    value_release(snapshot->value);
    free(snapshot);
}

void weave_cell_destroy(weave_cell_t *cell) {
    if (cell == NULL) {
        return;
    }
    cell_retire(ck_pr_fas_ptr(&cell->current, NULL));
    free(cell);
}

void *weave_cell_load(weave_cell_t *cell, uint64_t generation) {
    ck_epoch_record_t *record = record_acquire();
    void *value = NULL;
    ck_epoch_begin(record, NULL);
    struct cell_snapshot *snapshot = ck_pr_load_ptr(&cell->current);
    TSAN_ACQUIRE(snapshot);
    if (snapshot != NULL && snapshot->generation == generation) {
        value = snapshot->value;
        value_retain(value);
    }
    TSAN_RELEASE(&global_epoch);
    ck_epoch_end(record, NULL);
    return value;
}

void *weave_cell_peek(weave_cell_t *cell, uint64_t generation) {
    ck_epoch_begin(record_acquire(), NULL);
    struct cell_snapshot *snapshot = ck_pr_load_ptr(&cell->current);
    TSAN_ACQUIRE(snapshot);
    return snapshot != NULL && snapshot->generation == generation ? snapshot->value : NULL;
}

void weave_cell_store(weave_cell_t *cell, uint64_t generation, void *value) {
    struct cell_snapshot *snapshot = malloc(sizeof(*snapshot));
    if (snapshot == NULL) {
        /* A cache that cannot grow simply stays empty. */
        value_release(value);
        return;
    }
    snapshot->generation = generation;
    snapshot->value = value;
    ck_pr_fence_store();
    TSAN_RELEASE(snapshot);
    cell_retire(ck_pr_fas_ptr(&cell->current, snapshot));
}
