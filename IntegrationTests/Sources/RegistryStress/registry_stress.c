/*
 * Stress and semantics test for the C registry (CSources/CWeaveRegistry).
 *
 * Pure C11 + pthreads. Built by scripts/sanitize.sh together with Concurrency
 * Kit's own sources under AddressSanitizer+UBSan and under ThreadSanitizer;
 * without sanitizers, against Debian's libck:
 *
 *   swift run --package-path IntegrationTests RegistryStress
 *
 * Values are small malloc'd objects with an atomic reference count and a magic
 * field that is checked on every retain, release and read. The last release
 * poisons the object and frees it, and records that the object's id was freed
 * (a second free of the same id is a failure). Injection-slot boxes are the
 * same objects, holding a reference to the registry value they cache (as
 * Swift's ValueBox does) and dropping it when they are freed. At the end every
 * registry is destroyed, every slot's box swept, and every object ever
 * created must have been freed exactly once.
 *
 * Environment (all optional):
 *   WEAVE_STRESS_READS    stable-key resolutions per concurrent round, summed
 *                         over all readers (default 1000000, minimum 1000000
 *                         unless WEAVE_STRESS_ALLOW_SHORT=1); the slot group
 *                         makes half as many slot reads
 *   WEAVE_STRESS_READERS  reader threads (default 4, minimum 3)
 *   WEAVE_STRESS_TIMEOUT  seconds a concurrent round may take (default 600)
 *   WEAVE_STRESS_ONLY     comma-separated group names to run (accounting
 *                         always runs); for development, e.g. with a mutant
 *
 * The last line printed is "N passed, M failed" (N, M count check groups);
 * the exit status is non-zero when anything failed.
 */
#define _GNU_SOURCE 1

#include "weave_registry.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* weave_registry.c, built with WEAVE_STRESS_HOOKS (scripts/sanitize.sh
 * does): called by a write between its change and its completion. Weak: the
 * SwiftPM build of CWeaveRegistry has no hooks, and write_in_progress, the
 * one group that needs them, is then skipped. */
extern void (*weave_stress_mid_write)(void) __attribute__((weak));

/* ------------------------------------------------------------------------ */
/* Failure reporting                                                         */

static atomic_long failures;      /* total, all threads */
static atomic_long messages;      /* printed failure lines, capped */

static void fail_at(const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(const char *file, int line, const char *format, ...) {
    atomic_fetch_add(&failures, 1);
    if (atomic_fetch_add(&messages, 1) >= 40) {
        return;
    }
    char text[512];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(text, sizeof(text), format, arguments);
    va_end(arguments);
    fprintf(stderr, "FAIL %s:%d: %s\n", file, line, text);
}

#define FAIL(...) fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(condition, ...)                                                    \
    do {                                                                         \
        if (!(condition)) {                                                      \
            fail_at(__FILE__, __LINE__, __VA_ARGS__);                            \
        }                                                                        \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Reference-counted test values                                             */

#define OBJ_MAGIC 0x5745415645564c31ULL  /* "WEAVEVL1" */
#define OBJ_POISON 0xdeadbeefdeadbeefULL
#define MAX_OBJECTS (1u << 24)

typedef struct test_obj test_obj;
typedef void (*obj_free_hook)(test_obj *obj);

struct test_obj {
    _Atomic uint64_t magic;
    atomic_long refs;
    uint64_t id;         /* unique, sequential */
    uintptr_t key;       /* the key this value belongs to */
    uint64_t serial;     /* writer-assigned, monotonic per key */
    uint64_t generation; /* boxes: the generation the box was read at */
    obj_free_hook on_free; /* runs once, just before the object is freed */
    void *hook_context;  /* boxes: the cached value (a reference), or NULL */
};

static atomic_uint_fast64_t next_id;
static atomic_long live_objects;
static atomic_long freed_objects;
static atomic_long live_boxes;
static _Atomic unsigned char *freed_flags; /* freed_flags[id] counts frees */

static test_obj *obj_new(uintptr_t key, uint64_t serial) {
    test_obj *obj = malloc(sizeof(*obj));
    if (obj == NULL) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    /* Bookkeeping counters are relaxed on purpose: they must not give TSan
     * happens-before edges between threads that the registry should provide. */
    uint64_t id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    if (id >= MAX_OBJECTS) {
        fprintf(stderr, "too many objects (raise MAX_OBJECTS)\n");
        abort();
    }
    obj->id = id;
    obj->key = key;
    obj->serial = serial;
    obj->generation = 0;
    obj->on_free = NULL;
    obj->hook_context = NULL;
    atomic_init(&obj->refs, 1);
    atomic_fetch_add_explicit(&live_objects, 1, memory_order_relaxed);
    /* Relaxed: the fields above reach other threads only through the
     * registry's or the slot's own publication, which is what TSan checks. */
    atomic_store_explicit(&obj->magic, OBJ_MAGIC, memory_order_relaxed);
    return obj;
}

static bool obj_valid(const test_obj *obj) {
    return obj != NULL &&
           atomic_load_explicit(&((test_obj *)obj)->magic, memory_order_relaxed) == OBJ_MAGIC;
}

static void obj_retain_cb(void *value) {
    test_obj *obj = value;
    if (obj == NULL) {
        FAIL("retain callback called with NULL");
        return;
    }
    if (!obj_valid(obj)) {
        FAIL("retain of a dead object %p (magic %" PRIx64 ")", value,
             (uint64_t)atomic_load(&obj->magic));
        return;
    }
    long before = atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
    if (before <= 0) {
        FAIL("retain resurrected object id %" PRIu64 " (count was %ld)", obj->id, before);
    }
}

static void obj_release_cb(void *value) {
    test_obj *obj = value;
    if (obj == NULL) {
        FAIL("release callback called with NULL");
        return;
    }
    if (!obj_valid(obj)) {
        FAIL("release of a dead object %p (magic %" PRIx64 ")", value,
             (uint64_t)atomic_load(&obj->magic));
        return;
    }
    long before = atomic_fetch_sub_explicit(&obj->refs, 1, memory_order_acq_rel);
    if (before <= 0) {
        FAIL("over-release of object id %" PRIu64 " (count was %ld)", obj->id, before);
        return;
    }
    if (before == 1) {
        if (obj->on_free != NULL) {
            obj->on_free(obj);
        }
        unsigned char previous =
            atomic_fetch_add_explicit(&freed_flags[obj->id], 1, memory_order_relaxed);
        if (previous != 0) {
            FAIL("object id %" PRIu64 " freed %u times", obj->id, previous + 1u);
        }
        atomic_store_explicit(&obj->magic, OBJ_POISON, memory_order_relaxed);
        obj->key = (uintptr_t)OBJ_POISON;
        atomic_fetch_sub_explicit(&live_objects, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&freed_objects, 1, memory_order_relaxed);
        free(obj);
    }
}

/* A value read from the registry must be alive and belong to `key`. */
static bool check_value(const char *what, const test_obj *obj, uintptr_t key) {
    if (obj == NULL) {
        FAIL("%s: missing value for key %#" PRIxPTR, what, key);
        return false;
    }
    if (!obj_valid(obj)) {
        FAIL("%s: dead value %p for key %#" PRIxPTR, what, (const void *)obj, key);
        return false;
    }
    if (obj->key != key) {
        FAIL("%s: value for key %#" PRIxPTR " belongs to key %#" PRIxPTR, what, key, obj->key);
        return false;
    }
    if (atomic_load_explicit(&((test_obj *)obj)->refs, memory_order_relaxed) <= 0) {
        FAIL("%s: value id %" PRIu64 " has no reference", what, obj->id);
        return false;
    }
    return true;
}

static long refs_of(test_obj *obj) { return atomic_load(&obj->refs); }
static bool freed(uint64_t id) { return atomic_load(&freed_flags[id]) != 0; }

/* Boxes, as Swift's InjectionSlot makes them: an object caching the value
 * read for `key` at `generation`. Takes over the reference to `inner` (NULL:
 * the read missed) and releases it when the box is freed. */
static void box_free_hook(test_obj *box) {
    atomic_fetch_sub_explicit(&live_boxes, 1, memory_order_relaxed);
    if (box->hook_context != NULL) {
        obj_release_cb(box->hook_context);
    }
}

static test_obj *box_new(uintptr_t key, uint64_t generation, test_obj *inner) {
    test_obj *box = obj_new(key, inner != NULL ? inner->serial : 0);
    box->generation = generation;
    box->hook_context = inner;
    box->on_free = box_free_hook;
    atomic_fetch_add_explicit(&live_boxes, 1, memory_order_relaxed);
    return box;
}

/* A free hook that counts, through the int its object's context points to. */
static void count_free_hook(test_obj *obj) {
    atomic_fetch_add((atomic_int *)obj->hook_context, 1);
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

static uint64_t rng_next(uint64_t *state) {
    /* xorshift64* */
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static long env_long(const char *name, long fallback) {
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') {
        return fallback;
    }
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value <= 0) {
        fprintf(stderr, "ignoring bad %s=%s\n", name, text);
        return fallback;
    }
    return value;
}

/* Keys look like type metadata pointers: aligned and clustered. Slot keys
 * carry a low tag bit, as Swift's InjectedKey slots do. */
#define KEY(n) ((uintptr_t)0x7f3a12340000ULL + ((uintptr_t)(n) << 4))
#define SLOT_KEY(n) (KEY(n) | 1u)

/* Releases every box cached in any slot: advance the generation, then a
 * write that always sweeps (destroying an empty registry waits for a grace
 * period and sweeps every box older than the current generation). Call
 * with no other thread using slots. */
static void flush_slots(void) {
    weave_generation_advance();
    weave_registry_destroy(weave_registry_create(NULL));
}

/* ------------------------------------------------------------------------ */
/* Group 1: single-threaded semantics of the registry API                    */

struct each_state {
    int calls;
    int bad;
    int stop_after;
    weave_registry_t *registry; /* when set, body removes the key it sees */
};

static bool each_body(void *context, uintptr_t key, void *value) {
    struct each_state *state = context;
    state->calls++;
    test_obj *obj = value;
    if (!check_value("each", obj, key)) {
        state->bad++;
    } else if (refs_of(obj) < 2) {
        /* The registry's reference plus the one held for the call. */
        state->bad++;
        FAIL("each: value id %" PRIu64 " not retained during the call", obj->id);
    }
    if (state->registry != NULL) {
        /* Writing from inside body must not deadlock (no lock is held). */
        if (!weave_registry_remove(state->registry, key)) {
            state->bad++;
            FAIL("each: remove from body failed");
        }
    }
    return state->stop_after == 0 || state->calls < state->stop_after;
}

/* The lock-free read and the locked baseline read give the same answer,
 * each retained. */
static void check_same_reads(const char *what, weave_registry_t *registry, uintptr_t key) {
    test_obj *lock_free = weave_registry_get(registry, key);
    long refs_before = lock_free != NULL ? refs_of(lock_free) : 0;
    test_obj *locked = weave_registry_get_locked(registry, key);
    CHECK(lock_free == locked, "%s: get %p != get_locked %p (key %#" PRIxPTR ")", what,
          (void *)lock_free, (void *)locked, key);
    if (lock_free != NULL && locked == lock_free) {
        CHECK(refs_of(locked) == refs_before + 1, "%s: get_locked did not retain", what);
    }
    if (lock_free != NULL) {
        obj_release_cb(lock_free);
    }
    if (locked != NULL) {
        obj_release_cb(locked);
    }
}

static void check_same_live_reads(const char *what, uintptr_t key) {
    test_obj *lock_free = weave_live_get(key);
    test_obj *locked = weave_live_get_locked(key);
    CHECK(lock_free == locked, "%s: live_get %p != live_get_locked %p (key %#" PRIxPTR ")", what,
          (void *)lock_free, (void *)locked, key);
    if (lock_free != NULL) {
        obj_release_cb(lock_free);
    }
    if (locked != NULL) {
        obj_release_cb(locked);
    }
}

/* A value whose last release calls back into a registry: proves values are
 * never released under a registry lock (that would deadlock here). */
struct reentry {
    weave_registry_t *registry;
    uintptr_t key;
    int fired;
};

static void reentrant_free_hook(test_obj *obj) {
    struct reentry *reentry = obj->hook_context;
    reentry->fired++;
    void *value = weave_registry_get(reentry->registry, reentry->key);
    if (value != NULL) {
        obj_release_cb(value);
    }
    test_obj *fresh = obj_new(reentry->key, 0);
    if (!weave_registry_set(reentry->registry, reentry->key, fresh)) {
        FAIL("set from a release callback failed");
        obj_release_cb(fresh);
    }
}

struct remover {
    pthread_t thread;
    weave_registry_t *registry;
    uintptr_t key;
    bool removed;
    atomic_bool finished;
};

static void *remover_main(void *argument) {
    struct remover *remover = argument;
    remover->removed = weave_registry_remove(remover->registry, remover->key);
    atomic_store(&remover->finished, true);
    return NULL;
}

static void group_basic(void) {
    weave_registry_t *r = weave_registry_create(NULL);
    CHECK(r != NULL, "create");
    CHECK(weave_registry_count(r) == 0, "empty count");
    CHECK(weave_registry_get(r, KEY(1)) == NULL, "get on empty");
    CHECK(weave_registry_get_locked(r, KEY(1)) == NULL, "get_locked on empty");
    CHECK(!weave_registry_remove(r, KEY(1)), "remove on empty");
    CHECK(!weave_registry_remove_if(r, KEY(1), NULL), "remove_if on empty");

    test_obj *a = obj_new(KEY(1), 1);
    obj_retain_cb(a); /* keep our own reference to watch the count */
    CHECK(weave_registry_set(r, KEY(1), a), "set a");
    CHECK(refs_of(a) == 2, "set takes over one reference, refs=%ld", refs_of(a));
    test_obj *got = weave_registry_get(r, KEY(1));
    CHECK(got == a && refs_of(a) == 3, "get returns retained value");
    obj_release_cb(got);
    got = weave_registry_get_local(r, KEY(1));
    CHECK(got == a, "get_local");
    obj_release_cb(got);
    got = weave_registry_get_locked(r, KEY(1));
    CHECK(got == a && refs_of(a) == 3, "get_locked returns the retained value");
    obj_release_cb(got);
    CHECK(weave_registry_count(r) == 1, "count 1");

    /* Replace: the old value is released (after a grace period), once. */
    test_obj *b = obj_new(KEY(1), 2);
    CHECK(weave_registry_set(r, KEY(1), b), "replace with b");
    CHECK(refs_of(a) == 1, "replaced value released once, refs=%ld", refs_of(a));
    CHECK(weave_registry_count(r) == 1, "count still 1 after replace");
    check_same_reads("after replace", r, KEY(1));

    /* remove_if: only while the value is still the expected one. */
    CHECK(!weave_registry_remove_if(r, KEY(1), a), "remove_if with a stale expected value");
    CHECK(refs_of(a) == 1 && refs_of(b) == 1, "failed remove_if touches no count");
    CHECK(weave_registry_count(r) == 1, "failed remove_if removes nothing");
    CHECK(!weave_registry_remove_if(r, KEY(2), b), "remove_if on a missing key");
    CHECK(!weave_registry_remove_if(r, KEY(1), NULL), "remove_if expecting NULL");
    obj_retain_cb(b);
    CHECK(weave_registry_remove_if(r, KEY(1), b), "remove_if with the current value");
    CHECK(refs_of(b) == 1, "remove_if released the stored reference, refs=%ld", refs_of(b));
    CHECK(weave_registry_count(r) == 0 && weave_registry_get(r, KEY(1)) == NULL,
          "remove_if removed the key");
    CHECK(!weave_registry_remove_if(r, KEY(1), b), "second remove_if");
    obj_release_cb(b);
    obj_release_cb(a);

    /* put_if_absent: inserts only when the key is absent (taking over the
     * reference); otherwise returns the present value, retained, and leaves
     * the caller's value alone. Never advances the generation. */
    test_obj *p1 = obj_new(KEY(1), 3);
    obj_retain_cb(p1);
    uint64_t generation_before = weave_generation();
    CHECK(weave_registry_put_if_absent(r, KEY(1), p1) == NULL, "put_if_absent on an absent key");
    CHECK(refs_of(p1) == 2, "put_if_absent took over the reference, refs=%ld", refs_of(p1));
    CHECK(weave_generation() == generation_before, "put_if_absent advanced the generation");
    test_obj *p2 = obj_new(KEY(1), 4);
    test_obj *present = weave_registry_put_if_absent(r, KEY(1), p2);
    CHECK(present == p1 && refs_of(p1) == 3, "put_if_absent returns the present value, retained");
    CHECK(refs_of(p2) == 1, "put_if_absent on a present key took a reference");
    CHECK(weave_generation() == generation_before, "put_if_absent (present) advanced the generation");
    if (present != NULL) {
        obj_release_cb(present);
    }
    uint64_t p2_id = p2->id;
    obj_release_cb(p2);
    CHECK(freed(p2_id), "the refused value is the caller's to free");
    got = weave_registry_get(r, KEY(1));
    CHECK(got == p1 && refs_of(p1) == 3, "get after put_if_absent");
    if (got != NULL) {
        obj_release_cb(got);
    }
    check_same_reads("after put_if_absent", r, KEY(1));
    /* A value only a parent has does not count as present. */
    weave_registry_t *pc_child = weave_registry_create(r);
    test_obj *shadow = obj_new(KEY(1), 5);
    CHECK(weave_registry_put_if_absent(pc_child, KEY(1), shadow) == NULL,
          "put_if_absent looks at this registry only");
    got = weave_registry_get(pc_child, KEY(1));
    CHECK(got == shadow, "the child's own value shadows the parent's");
    if (got != NULL) {
        obj_release_cb(got);
    }
    CHECK(!weave_registry_remove_if(pc_child, KEY(2), p1), "remove_if in a child of a key it lacks");
    CHECK(weave_registry_remove_if(pc_child, KEY(1), shadow), "remove_if in the child");
    CHECK(!weave_registry_remove_if(pc_child, KEY(1), p1), "remove_if never reaches the parent");
    CHECK(refs_of(p1) == 2, "the parent's value is untouched");
    weave_registry_destroy(pc_child);
    CHECK(weave_registry_remove(r, KEY(1)), "remove the put_if_absent value");
    CHECK(refs_of(p1) == 1, "removed value released");
    obj_release_cb(p1);

    /* Many keys: growth from the initial capacity, each, remove, clear. */
    for (int i = 10; i < 10 + 200; i++) {
        CHECK(weave_registry_set(r, KEY(i), obj_new(KEY(i), 0)), "set key %d", i);
    }
    CHECK(weave_registry_count(r) == 200, "count 200, got %zu", weave_registry_count(r));
    for (int i = 10; i < 10 + 200; i++) {
        test_obj *v = weave_registry_get(r, KEY(i));
        check_value("after growth", v, KEY(i));
        if (v != NULL) {
            obj_release_cb(v);
        }
        check_same_reads("after growth", r, KEY(i));
    }
    struct each_state all = {0};
    weave_registry_each(r, &all, each_body);
    CHECK(all.calls == 200 && all.bad == 0, "each visits every key once: %d", all.calls);
    struct each_state some = {.stop_after = 5};
    weave_registry_each(r, &some, each_body);
    CHECK(some.calls == 5, "each stops when body returns false: %d", some.calls);

    for (int i = 10; i < 10 + 200; i += 2) {
        CHECK(weave_registry_remove(r, KEY(i)), "remove %d", i);
        CHECK(!weave_registry_remove(r, KEY(i)), "second remove %d", i);
    }
    CHECK(weave_registry_count(r) == 100, "count 100, got %zu", weave_registry_count(r));
    for (int i = 10; i < 10 + 200; i++) {
        test_obj *v = weave_registry_get(r, KEY(i));
        if (i % 2 == 0) {
            CHECK(v == NULL, "removed key %d still resolves", i);
        } else {
            check_value("after removals", v, KEY(i));
        }
        if (v != NULL) {
            obj_release_cb(v);
        }
        check_same_reads("after removals", r, KEY(i));
    }
    /* Remove and re-add enough keys to trigger the tombstone collection. */
    for (int round = 0; round < 4; round++) {
        for (int i = 300; i < 400; i++) {
            CHECK(weave_registry_set(r, KEY(i), obj_new(KEY(i), (uint64_t)round)), "set");
        }
        for (int i = 300; i < 400; i++) {
            CHECK(weave_registry_remove(r, KEY(i)), "remove");
        }
    }
    CHECK(weave_registry_count(r) == 100, "count after gc rounds %zu", weave_registry_count(r));

    /* each whose body writes to the same registry. */
    weave_registry_t *w = weave_registry_create(NULL);
    for (int i = 0; i < 10; i++) {
        weave_registry_set(w, KEY(i), obj_new(KEY(i), 0));
    }
    struct each_state writer = {.registry = w};
    weave_registry_each(w, &writer, each_body);
    CHECK(writer.calls == 10 && writer.bad == 0, "each with writing body: %d", writer.calls);
    CHECK(weave_registry_count(w) == 0, "body removed every key");
    weave_registry_destroy(w);

    long live_before_clear = atomic_load(&live_objects);
    size_t cleared = weave_registry_clear(r);
    CHECK(cleared == 100, "clear returns the count, got %zu", cleared);
    CHECK(weave_registry_count(r) == 0, "empty after clear");
    CHECK(atomic_load(&live_objects) == live_before_clear - 100,
          "clear released every value");
    CHECK(weave_registry_get(r, KEY(11)) == NULL, "cleared key resolves");
    CHECK(weave_registry_get_locked(r, KEY(11)) == NULL, "cleared key resolves (locked)");
    CHECK(weave_registry_clear(r) == 0, "clear of empty registry");
    /* The shrunken table grows again. */
    for (int i = 10; i < 10 + 200; i++) {
        CHECK(weave_registry_set(r, KEY(i), obj_new(KEY(i), 1)), "set after clear %d", i);
    }
    for (int i = 10; i < 10 + 200; i += 13) {
        check_same_reads("regrown after clear", r, KEY(i));
    }
    CHECK(weave_registry_clear(r) == 200, "second clear");
    CHECK(weave_registry_set(r, KEY(11), obj_new(KEY(11), 0)), "set after clear");

    /* Release callbacks that re-enter the registry, on every release path. */
    weave_registry_t *other = weave_registry_create(NULL);
    struct reentry reentry = {.registry = other, .key = KEY(900)};
    for (int path = 0; path < 5; path++) {
        test_obj *hooked = obj_new(KEY(901), 0);
        hooked->on_free = reentrant_free_hook;
        hooked->hook_context = &reentry;
        weave_registry_t *target = (path == 4) ? weave_registry_create(NULL) : r;
        CHECK(weave_registry_set(target, KEY(901), hooked), "set hooked");
        /* the release callback may also write to the registry being written */
        reentry.registry = (path == 4) ? other : r;
        switch (path) {
        case 0: weave_registry_set(r, KEY(901), obj_new(KEY(901), 1)); break;
        case 1: weave_registry_remove(r, KEY(901)); break;
        case 2: CHECK(weave_registry_remove_if(r, KEY(901), hooked), "remove_if hooked"); break;
        case 3: weave_registry_clear(r); break;
        case 4: weave_registry_destroy(target); break;
        }
        CHECK(reentry.fired == path + 1, "release hook ran on path %d (%d)", path, reentry.fired);
    }
    weave_registry_destroy(other);
    CHECK(weave_registry_set(r, KEY(11), obj_new(KEY(11), 0)), "set after the clear path");

    /* Peek: inside a read section, no reference taken; always end it. */
    weave_registry_t *peek_parent = weave_registry_create(NULL);
    weave_registry_t *peek_child = weave_registry_create(peek_parent);
    test_obj *pv = obj_new(KEY(500), 0);
    weave_registry_set(peek_parent, KEY(500), pv);
    test_obj *seen = weave_registry_peek(peek_child, KEY(500));
    CHECK(seen == pv && refs_of(pv) == 1, "peek finds the parent's value, unretained");
    test_obj *nested = weave_registry_peek(peek_child, KEY(501)); /* nested section */
    CHECK(nested == NULL, "peek of a missing key");
    weave_read_end();
    weave_read_end();
    weave_read_begin(); /* an explicit section, nesting a peek */
    CHECK(weave_registry_peek(peek_parent, KEY(500)) == pv, "peek inside weave_read_begin");
    weave_read_end();
    weave_read_end();
    CHECK(weave_live_peek(KEY(500)) == NULL, "live peek without a live registry");
    weave_read_end();
    CHECK(weave_live_get_locked(KEY(500)) == NULL, "live_get_locked without a live registry");
    weave_live_set(peek_child);
    CHECK(weave_live_peek(KEY(500)) == pv, "live peek through the parent");
    weave_read_end();
    check_same_live_reads("live through the parent", KEY(500));
    check_same_live_reads("live miss", KEY(502));
    weave_live_set(NULL);

    /* A value removed while a reader is inside its section stays alive
     * until the section ends: the remover waits for the grace period. */
    uint64_t pv_id = pv->id;
    struct remover remover = {.registry = peek_parent, .key = KEY(500)};
    seen = weave_registry_peek(peek_child, KEY(500));
    CHECK(seen == pv, "peek before the concurrent remove");
    if (pthread_create(&remover.thread, NULL, remover_main, &remover) != 0) {
        FAIL("pthread_create remover");
        abort();
    }
    sleep_ms(30);
    CHECK(obj_valid(seen) && seen->key == KEY(500), "peeked value died inside the section");
    CHECK(!freed(pv_id), "peeked value freed inside the section");
    CHECK(!atomic_load(&remover.finished), "remove returned before the section ended");
    weave_read_end();
    pthread_join(remover.thread, NULL);
    CHECK(remover.removed, "concurrent remove");
    CHECK(freed(pv_id), "removed value released after the section");
    weave_registry_destroy(peek_child);
    weave_registry_destroy(peek_parent);

    /* Live registry. */
    CHECK(weave_live_get(KEY(11)) == NULL, "no live registry yet");
    weave_live_set(r);
    test_obj *live = weave_live_get(KEY(11));
    CHECK(check_value("live get", live, KEY(11)), "live get");
    if (live != NULL) {
        obj_release_cb(live);
    }
    live = weave_live_get_locked(KEY(11));
    CHECK(check_value("live get locked", live, KEY(11)), "live get locked");
    if (live != NULL) {
        obj_release_cb(live);
    }
    check_same_live_reads("live", KEY(11));
    check_same_live_reads("live miss", KEY(12));
    weave_live_set(NULL);
    CHECK(weave_live_get(KEY(11)) == NULL, "live registry unset");
    CHECK(weave_live_get_locked(KEY(11)) == NULL, "live registry unset (locked)");

    weave_registry_destroy(r);
    weave_registry_destroy(NULL);
}

/* ------------------------------------------------------------------------ */
/* Group 2: parent / child                                                   */

static void group_parent_child(void) {
    weave_registry_t *parent = weave_registry_create(NULL);
    weave_registry_t *child = weave_registry_create(parent);
    weave_registry_t *grandchild = weave_registry_create(child);

    weave_registry_set(parent, KEY(1), obj_new(KEY(1), 100));
    weave_registry_set(parent, KEY(2), obj_new(KEY(2), 100));
    weave_registry_set(child, KEY(2), obj_new(KEY(2), 200));
    weave_registry_set(child, KEY(3), obj_new(KEY(3), 200));

    struct {
        weave_registry_t *registry;
        uintptr_t key;
        bool local;
        uint64_t serial; /* 0: must miss */
    } cases[] = {
        {child, KEY(1), false, 100},      {child, KEY(1), true, 0},
        {child, KEY(2), false, 200},      {child, KEY(2), true, 200},
        {parent, KEY(2), false, 100},     {parent, KEY(3), false, 0},
        {grandchild, KEY(1), false, 100}, {grandchild, KEY(2), false, 200},
        {grandchild, KEY(3), false, 200}, {grandchild, KEY(3), true, 0},
        {grandchild, KEY(4), false, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        test_obj *v = cases[i].local ? weave_registry_get_local(cases[i].registry, cases[i].key)
                                     : weave_registry_get(cases[i].registry, cases[i].key);
        if (cases[i].serial == 0) {
            CHECK(v == NULL, "case %zu must miss", i);
        } else if (check_value("parent/child", v, cases[i].key)) {
            CHECK(v->serial == cases[i].serial, "case %zu: serial %" PRIu64 " != %" PRIu64, i,
                  v->serial, cases[i].serial);
        }
        if (v != NULL) {
            obj_release_cb(v);
        }
        if (!cases[i].local) {
            check_same_reads("parent/child", cases[i].registry, cases[i].key);
        }
    }

    /* Removing the child's shadowing entry reveals the parent's. */
    CHECK(weave_registry_remove(child, KEY(2)), "remove shadow");
    test_obj *v = weave_registry_get(grandchild, KEY(2));
    CHECK(v != NULL && v->serial == 100, "parent value after removing the shadow");
    if (v != NULL) {
        obj_release_cb(v);
    }
    check_same_reads("after removing the shadow", grandchild, KEY(2));
    /* Clearing the child does not touch the parent. */
    weave_registry_clear(child);
    v = weave_registry_get(child, KEY(1));
    CHECK(v != NULL && v->serial == 100, "parent survives a child clear");
    if (v != NULL) {
        obj_release_cb(v);
    }
    check_same_reads("after a child clear", grandchild, KEY(1));
    check_same_reads("after a child clear", grandchild, KEY(3));
    CHECK(weave_registry_count(parent) == 2, "parent count");

    /* Live lookups search the live registry's parents. */
    weave_live_set(grandchild);
    v = weave_live_get(KEY(1));
    CHECK(v != NULL && v->serial == 100, "live get through parents");
    if (v != NULL) {
        obj_release_cb(v);
    }
    check_same_live_reads("live through parents", KEY(1));
    check_same_live_reads("live through parents", KEY(2));
    check_same_live_reads("live miss through parents", KEY(3));
    weave_live_set(NULL);

    weave_registry_destroy(grandchild);
    weave_registry_destroy(child);
    v = weave_registry_get(parent, KEY(2));
    CHECK(v != NULL && v->serial == 100, "parent intact after children are destroyed");
    if (v != NULL) {
        obj_release_cb(v);
    }
    weave_registry_destroy(parent);
}

/* ------------------------------------------------------------------------ */
/* Group 3: injection slots, single-threaded (plus one waiting writer)       */

/* A copy of weave_registry.c's key_hash and first slot table size, used
 * only to pick keys that share a home bucket there (and so a probe chain). */
#define COPY_HASH_SEED 0x9e3779b97f4a7c15UL
#define COPY_SLOT_INDEX_SIZE 1024u

static size_t copy_slot_bucket(uintptr_t key) {
    uint64_t x = (uint64_t)key ^ COPY_HASH_SEED;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (size_t)(x & (COPY_SLOT_INDEX_SIZE - 1));
}

static uintptr_t key_in_same_bucket(uintptr_t key, int search_from) {
    for (int n = search_from;; n++) {
        uintptr_t candidate = SLOT_KEY(n);
        if (candidate != key && copy_slot_bucket(candidate) == copy_slot_bucket(key)) {
            return candidate;
        }
    }
}

static uintptr_t key_in_other_bucket(uintptr_t key, int search_from) {
    for (int n = search_from;; n++) {
        uintptr_t candidate = SLOT_KEY(n);
        if (copy_slot_bucket(candidate) != copy_slot_bucket(key)) {
            return candidate;
        }
    }
}

/* Owners must live forever: static objects. */
static char owner_a, owner_b, owner_c;

struct finder {
    pthread_t thread;
    uintptr_t key;
    void *owner;
    bool published; /* before the finder started: a miss is wrong too */
    atomic_bool stop;
    long wrong;
    long finds;
};

static void *finder_main(void *argument) {
    struct finder *finder = argument;
    while (!atomic_load_explicit(&finder->stop, memory_order_relaxed)) {
        void *found = weave_slot_find(finder->key);
        finder->wrong += found != finder->owner && (found != NULL || finder->published);
        finder->finds++;
    }
    return NULL;
}

/* What the writes below do to a slot that caches a box of `key`. */
enum write_kind {
    WRITE_SET_REPLACE,
    WRITE_SET_INSERT,
    WRITE_REMOVE,
    WRITE_REMOVE_IF,
    WRITE_CLEAR,
    WRITE_ADVANCE,
    WRITE_LIVE_SET,
    WRITE_KINDS
};
static const char *const write_names[WRITE_KINDS] = {
    "set (replace)", "set (insert)", "remove", "remove_if", "clear", "generation_advance",
    "live_set",
};
/* Whether the write releases the registered value itself. */
static bool write_drops_value(enum write_kind kind) {
    return kind == WRITE_SET_REPLACE || kind == WRITE_REMOVE || kind == WRITE_REMOVE_IF ||
           kind == WRITE_CLEAR;
}

struct slot_fixture {
    weave_registry_t *registry;
    uintptr_t key;
    test_obj *value; /* registered; the registry's reference */
    uint64_t value_id;
    weave_slot_t *slot;
    uint64_t box_id;
};

static int next_fixture_key = 2000;

/* A registry holding key -> value, and a fresh slot caching a box of it,
 * read and installed the way InjectionSlot.refresh() does. */
static void fixture_make(struct slot_fixture *f) {
    int n = next_fixture_key++;
    f->registry = weave_registry_create(NULL);
    f->key = KEY(n);
    f->value = obj_new(f->key, 1);
    f->value_id = f->value->id;
    CHECK(weave_registry_set(f->registry, f->key, f->value), "fixture set");
    f->slot = weave_slot_create(SLOT_KEY(n));
    CHECK(f->slot != NULL, "slot create");
    CHECK(weave_slot_peek(f->slot) == NULL, "a new slot caches nothing");
    weave_slot_read_end();
    uint64_t generation = weave_generation();
    test_obj *read = weave_registry_get(f->registry, f->key);
    CHECK(read == f->value, "fixture read");
    test_obj *box = box_new(f->key, generation, read);
    f->box_id = box->id;
    CHECK(weave_slot_install(f->slot, generation, box), "fixture install");
    test_obj *peeked = weave_slot_peek(f->slot);
    CHECK(peeked == box, "the installed box is served");
    weave_slot_read_end();
    CHECK(refs_of(f->value) == 2, "value held by the registry and the box");
}

static void fixture_write(enum write_kind kind, struct slot_fixture *f) {
    switch (kind) {
    case WRITE_SET_REPLACE:
        CHECK(weave_registry_set(f->registry, f->key, obj_new(f->key, 2)), "replace");
        break;
    case WRITE_SET_INSERT: {
        uintptr_t other = f->key + ((uintptr_t)1 << 20);
        CHECK(weave_registry_set(f->registry, other, obj_new(other, 1)), "insert");
        break;
    }
    case WRITE_REMOVE:
        CHECK(weave_registry_remove(f->registry, f->key), "remove");
        break;
    case WRITE_REMOVE_IF:
        CHECK(weave_registry_remove_if(f->registry, f->key, f->value), "remove_if");
        break;
    case WRITE_CLEAR:
        CHECK(weave_registry_clear(f->registry) == 1, "clear");
        break;
    case WRITE_ADVANCE:
        weave_generation_advance();
        break;
    case WRITE_LIVE_SET:
        weave_live_set(f->registry);
        break;
    case WRITE_KINDS:
        break;
    }
}

static void fixture_destroy(enum write_kind kind, struct slot_fixture *f) {
    if (kind == WRITE_LIVE_SET) {
        weave_live_set(NULL);
    }
    weave_registry_destroy(f->registry);
}

/* After a write that made the box stale has returned. */
static void check_after_write(enum write_kind kind, struct slot_fixture *f, bool box_freed,
                              bool value_freed) {
    const char *name = write_names[kind];
    CHECK(box_freed, "%s: the stale box was not released by the time the write returned", name);
    if (write_drops_value(kind)) {
        CHECK(value_freed, "%s: the value was not released (box and registry) by the return",
              name);
    } else {
        CHECK(!value_freed && refs_of(f->value) == 1,
              "%s: the registered value lost its registry reference", name);
    }
    CHECK(weave_slot_peek(f->slot) == NULL, "%s: peek serves a box after a write", name);
    weave_slot_read_end();
}

struct blocked_write {
    pthread_t thread;
    enum write_kind kind;
    struct slot_fixture *fixture;
    atomic_bool finished;
    bool box_freed;   /* as seen right after the write returned */
    bool value_freed;
};

static void *blocked_write_main(void *argument) {
    struct blocked_write *w = argument;
    fixture_write(w->kind, w->fixture);
    w->box_freed = freed(w->fixture->box_id);
    w->value_freed = freed(w->fixture->value_id);
    atomic_store(&w->finished, true);
    return NULL;
}

static void group_slots(void) {
    /* find / create / publish; keys of one home bucket share the index
     * until all its probe buckets are taken; then eviction of the home. */
    uintptr_t ka = SLOT_KEY(1500);
    uintptr_t kb = key_in_same_bucket(ka, 1501);
    uintptr_t kc = key_in_other_bucket(ka, 1501);
    CHECK(weave_slot_find(ka) == NULL, "find before any slot exists");
    weave_slot_t *sa = weave_slot_create(ka);
    CHECK(sa != NULL, "slot create");
    CHECK(weave_slot_find(ka) == NULL, "a created slot is not findable before publish");
    weave_slot_publish(sa, &owner_a);
    CHECK(weave_slot_find(ka) == &owner_a, "find returns the published owner");
    CHECK(weave_slot_find(kb) == NULL, "find of another key of the same bucket");
    weave_slot_t *sb = weave_slot_create(kb);
    CHECK(weave_slot_find(ka) == &owner_a, "creating a slot evicts nothing");
    weave_slot_publish(sb, &owner_b);
    CHECK(weave_slot_find(kb) == &owner_b, "find of the second key");
    CHECK(weave_slot_find(ka) == &owner_a, "a second key of the same bucket evicts nothing");
    weave_slot_publish(sa, &owner_a);
    CHECK(weave_slot_find(ka) == &owner_a && weave_slot_find(kb) == &owner_b,
          "publishing a slot again changes nothing");
    {
        /* Forty more keys of ka's home bucket: one probe chain, all
         * findable, and ka and kb stay. */
        enum { CHAIN = 40 };
        static char fill_owner[CHAIN];
        uintptr_t fill[CHAIN];
        int from = 1501;
        for (int i = 0; i < CHAIN; i++) {
            uintptr_t next;
            do {
                next = SLOT_KEY(from);
                from++;
            } while (next == kb || next == ka || copy_slot_bucket(next) != copy_slot_bucket(ka));
            fill[i] = next;
            weave_slot_publish(weave_slot_create(next), &fill_owner[i]);
        }
        CHECK(weave_slot_find(ka) == &owner_a && weave_slot_find(kb) == &owner_b,
              "a chain of %d keys of one home bucket keeps its first keys", CHAIN);
        for (int i = 0; i < CHAIN; i++) {
            CHECK(weave_slot_find(fill[i]) == &fill_owner[i], "chained key %d findable", i);
        }
    }
    weave_slot_t *sc = weave_slot_create(kc);
    weave_slot_publish(sc, &owner_c);
    CHECK(weave_slot_find(kc) == &owner_c && weave_slot_find(ka) == &owner_a,
          "a slot of another bucket evicts nothing");
    CHECK(weave_slot_find(kc + 2) == NULL, "find of a key without a slot");

    /* Publishing again (as Swift does to give a resolve's slot its owner),
     * and growing the index while other threads' lock-free weave_slot_find
     * read: a slot published before never goes missing, find never returns
     * another slot's owner, and TSan sees no race on the tables, buckets or
     * slot->owner. */
    {
        enum { FINDERS = 3, GROWN = 20000 };
        struct finder finders[FINDERS] = {
            {.key = ka, .owner = &owner_a, .published = true},
            {.key = kb, .owner = &owner_b, .published = true},
            {.key = kc, .owner = &owner_c, .published = true},
        };
        for (int i = 0; i < FINDERS; i++) {
            atomic_init(&finders[i].stop, false);
            if (pthread_create(&finders[i].thread, NULL, finder_main, &finders[i]) != 0) {
                FAIL("pthread_create finder");
                abort();
            }
        }
        for (int i = 0; i < 20000; i++) {
            weave_slot_publish(sb, &owner_b);
            weave_slot_publish(sa, &owner_a);
        }
        /* Enough slots for the index to grow several times under them. */
        static char grown_owner;
        for (int i = 0; i < GROWN; i++) {
            weave_slot_publish(weave_slot_create(SLOT_KEY(100000 + i)), &grown_owner);
        }
        long finds = 0;
        for (int i = 0; i < FINDERS; i++) {
            atomic_store(&finders[i].stop, true);
            pthread_join(finders[i].thread, NULL);
            CHECK(finders[i].wrong == 0, "find of a published slot returned NULL or another owner %ld times",
                  finders[i].wrong);
            finds += finders[i].finds;
        }
        CHECK(finds > 0, "the finders ran");
        for (int i = 0; i < GROWN; i++) {
            if (weave_slot_find(SLOT_KEY(100000 + i)) != &grown_owner) {
                FAIL("slot %d of the grown index not findable", i);
                break;
            }
        }
        CHECK(weave_slot_find(ka) == &owner_a, "find after the republish loop");
    }

    /* peek returns NULL until install; install needs the current generation
     * and no current box; it never advances the generation. */
    weave_registry_t *r = weave_registry_create(NULL);
    uintptr_t key = KEY(1600);
    test_obj *v = obj_new(key, 1);
    weave_registry_set(r, key, v);
    CHECK(weave_slot_peek(sa) == NULL, "peek of an empty slot");
    weave_slot_read_end();
    uint64_t g = weave_generation();
    test_obj *box = box_new(key, g, weave_registry_get(r, key));
    uint64_t box_id = box->id;
    CHECK(!weave_slot_install(sa, g + 1, box), "install with a future generation");
    CHECK(!weave_slot_install(sa, g - 1, box), "install with a past generation");
    CHECK(refs_of(box) == 1, "a refused install keeps the caller's reference");
    CHECK(weave_slot_peek(sa) == NULL, "nothing cached after refused installs");
    weave_slot_read_end();
    CHECK(weave_slot_install(sa, g, box), "install with the current generation");
    CHECK(weave_generation() == g, "install advanced the generation");
    CHECK(refs_of(box) == 1, "install took over the reference");
    CHECK(weave_slot_peek(sa) == box, "peek serves the installed box");
    weave_slot_read_end();
    CHECK(weave_slot_peek(sa) == box, "a second peek serves it again");
    weave_slot_read_end();
    CHECK(weave_slot_peek(sb) == NULL, "another slot caches nothing");
    weave_slot_read_end();
    test_obj *second = box_new(key, g, weave_registry_get(r, key));
    uint64_t second_id = second->id;
    CHECK(!weave_slot_install(sa, g, second), "install while a current box is cached");
    CHECK(refs_of(second) == 1 && refs_of(v) == 3, "the refused box is the caller's");
    obj_release_cb(second);
    CHECK(freed(second_id) && refs_of(v) == 2, "the refused box freed, its value reference too");
    CHECK(weave_slot_peek(sa) == box, "the first box is still served");
    weave_slot_read_end();
#if UINTPTR_MAX > 0xffffffffu
    /* An address whose top bits the tag would clobber is never cached (a
     * 32-bit address always fits below the tag). */
    CHECK(!weave_slot_install(sb, g, (void *)((uintptr_t)1 << 62)),
          "install of an address with its top bits set");
    CHECK(weave_slot_peek(sb) == NULL, "nothing cached for that address");
    weave_slot_read_end();
#endif

    /* Writes that change nothing a reader saw keep the box current. */
    test_obj *absent = obj_new(key + 16, 1);
    CHECK(weave_registry_put_if_absent(r, key + 16, absent) == NULL, "put_if_absent (absent)");
    test_obj *refused = obj_new(key, 9);
    test_obj *present = weave_registry_put_if_absent(r, key, refused);
    CHECK(present == v, "put_if_absent (present)");
    obj_release_cb(present);
    obj_release_cb(refused);
    CHECK(weave_generation() == g, "put_if_absent advanced the generation");
    CHECK(weave_slot_peek(sa) == box, "put_if_absent made the box stale");
    weave_slot_read_end();
    CHECK(!freed(box_id), "put_if_absent released the cached box");

    /* A write makes it stale: not served, released by the time it returns,
     * and with it the value (the registry's and the box's references). */
    uint64_t v_id = v->id;
    CHECK(weave_registry_remove(r, key), "remove");
    CHECK(weave_generation() > g, "remove advanced the generation");
    CHECK(freed(box_id), "remove: the stale box was released before remove returned");
    CHECK(freed(v_id), "remove: the value was released before remove returned");
    CHECK(weave_slot_peek(sa) == NULL, "peek after remove");
    weave_slot_read_end();
    test_obj *late = box_new(key, g, NULL);
    CHECK(!weave_slot_install(sa, g, late), "install with the generation before the remove");
    obj_release_cb(late);
    weave_registry_destroy(r);

    /* Every kind of write, single-threaded: the box is stale after it and
     * released by the time it returns; the value too when the write
     * dropped it. */
    for (int kind = 0; kind < WRITE_KINDS; kind++) {
        struct slot_fixture f;
        fixture_make(&f);
        fixture_write((enum write_kind)kind, &f);
        check_after_write((enum write_kind)kind, &f, freed(f.box_id), freed(f.value_id));
        fixture_destroy((enum write_kind)kind, &f);
    }

    /* The same with a reader inside its section, holding the box: the write
     * waits for the section, the box stays valid until it ends, and is
     * released (with the value it holds, when the write dropped it) before
     * the write returns. */
    for (int kind = 0; kind < WRITE_KINDS; kind++) {
        struct slot_fixture f;
        fixture_make(&f);
        test_obj *held = weave_slot_peek(f.slot);
        CHECK(held != NULL && held->id == f.box_id, "%s: peek before the write", write_names[kind]);
        struct blocked_write w = {.kind = (enum write_kind)kind, .fixture = &f};
        atomic_init(&w.finished, false);
        if (pthread_create(&w.thread, NULL, blocked_write_main, &w) != 0) {
            FAIL("pthread_create writer");
            abort();
        }
        sleep_ms(30);
        CHECK(!atomic_load(&w.finished), "%s returned while a reader held a box in its section",
              write_names[kind]);
        if (held != NULL) {
            test_obj *inner = held->hook_context;
            CHECK(obj_valid(held) && held->key == f.key && !freed(f.box_id),
                  "%s: the held box died inside the section", write_names[kind]);
            CHECK(obj_valid(inner) && inner->id == f.value_id && !freed(f.value_id),
                  "%s: the held box's value died inside the section", write_names[kind]);
        }
        weave_slot_read_end();
        pthread_join(w.thread, NULL);
        check_after_write((enum write_kind)kind, &f, w.box_freed, w.value_freed);
        fixture_destroy((enum write_kind)kind, &f);
    }

    /* A stale box is never served; a box installed over it is released by
     * the next write. */
    {
        struct slot_fixture f;
        fixture_make(&f);
        weave_registry_destroy(weave_registry_create(NULL)); /* sweeps, keeps the current box */
        weave_generation_advance();
        /* The sweep of that destroy kept the current box; the advance made
         * it stale, and the next write must release it (slots_dirty stays set
         * while a sweep keeps a box). */
        CHECK(freed(f.box_id),
              "generation_advance after a sweep that kept a current box returned without "
              "releasing that (now stale) box");
        CHECK(weave_slot_peek(f.slot) == NULL, "a stale box is never served");
        weave_slot_read_end();
        uint64_t now = weave_generation();
        test_obj *fresh = box_new(f.key, now, weave_registry_get(f.registry, f.key));
        uint64_t fresh_id = fresh->id;
        CHECK(weave_slot_install(f.slot, now, fresh), "install over a stale box");
        weave_generation_advance();
        CHECK(freed(f.box_id), "the stale box replaced by an install was never released");
        CHECK(freed(fresh_id), "the box installed over a stale one was not swept");
        CHECK(refs_of(f.value) == 1, "value references after the retire");
        fixture_destroy(WRITE_ADVANCE, &f);
    }

    /* The 16-bit generation tag: after 2^16 generations the tag of a box
     * matches again; the forced periodic sweep must have released it. The
     * destroy keeps the box cached across the first advance (see above). */
    {
        struct slot_fixture f;
        fixture_make(&f);
        weave_registry_destroy(weave_registry_create(NULL));
        uint64_t start = weave_generation();
        for (uint32_t i = 0; i < 0x10000u; i++) {
            weave_generation_advance();
        }
        CHECK(weave_generation() - start == (uint64_t)0x10000u << 16, "generation advanced by 2^16");
        CHECK(weave_slot_peek(f.slot) == NULL, "a box 2^16 generations old is served again");
        weave_slot_read_end();
        CHECK(freed(f.box_id), "a box 2^16 generations old was never swept");
        fixture_destroy(WRITE_ADVANCE, &f);
    }

    flush_slots();
    CHECK(atomic_load(&live_boxes) == 0, "%ld boxes left after the slot group",
          atomic_load(&live_boxes));
}

/* ------------------------------------------------------------------------ */
/* Group 4: weave_retire and weave_defer_release                             */

struct section_holder {
    pthread_t thread;
    atomic_int state; /* 0 start, 1 inside the section, 2 may leave */
};

static void *section_holder_main(void *argument) {
    struct section_holder *holder = argument;
    weave_read_begin();
    atomic_store(&holder->state, 1);
    while (atomic_load(&holder->state) != 2) {
        sched_yield();
    }
    weave_read_end();
    return NULL;
}

static void holder_start(struct section_holder *holder) {
    atomic_init(&holder->state, 0);
    if (pthread_create(&holder->thread, NULL, section_holder_main, holder) != 0) {
        FAIL("pthread_create holder");
        abort();
    }
    while (atomic_load(&holder->state) != 1) {
        sched_yield();
    }
}

static void holder_finish(struct section_holder *holder) {
    atomic_store(&holder->state, 2);
    pthread_join(holder->thread, NULL);
}

struct advancer {
    pthread_t thread;
    atomic_bool finished;
};

static void *advancer_main(void *argument) {
    struct advancer *advancer = argument;
    weave_generation_advance();
    atomic_store(&advancer->finished, true);
    return NULL;
}

struct deferrer {
    pthread_t thread;
    test_obj *value;
    size_t pending_after; /* weave_debug_pending on that thread after the call */
};

static void *deferrer_main(void *argument) {
    struct deferrer *deferrer = argument;
    weave_defer_release(deferrer->value);
    deferrer->pending_after = weave_debug_pending();
    return NULL; /* the thread-exit destructor drains its record */
}

static test_obj *counted_obj(uintptr_t key, atomic_int *counter) {
    test_obj *obj = obj_new(key, 0);
    obj->on_free = count_free_hook;
    obj->hook_context = counter;
    return obj;
}

static void group_retire_defer(void) {
    /* Start from a drained state: a releasing write empties the retire list
     * and reclaims this thread's deferred work. */
    weave_registry_t *r = weave_registry_create(NULL);
    weave_registry_set(r, KEY(800), obj_new(KEY(800), 0));
    weave_registry_set(r, KEY(800), obj_new(KEY(800), 1));
    CHECK(weave_debug_pending() == 0, "pending after a releasing write: %zu",
          weave_debug_pending());

    /* retire: kept until the next write, released by it, after its grace
     * period; every kind of write does it. */
    for (int kind = 0; kind < 6; kind++) {
        atomic_int frees = 0;
        test_obj *v = counted_obj(KEY(801), &frees);
        weave_retire(v);
        CHECK(weave_debug_pending() == 1, "retire: pending %zu", weave_debug_pending());
        CHECK(atomic_load(&frees) == 0, "retire released at once");
        static const char *const names[] = {"advance", "set", "set (insert)", "remove", "clear",
                                            "live_set"};
        switch (kind) {
        case 0: weave_generation_advance(); break;
        case 1: weave_registry_set(r, KEY(800), obj_new(KEY(800), 2)); break;
        case 2: weave_registry_set(r, KEY(802), obj_new(KEY(802), 0)); break;
        case 3: weave_registry_remove(r, KEY(802)); break;
        case 4: weave_registry_clear(r); break;
        case 5: weave_live_set(r); weave_live_set(NULL); break;
        }
        CHECK(atomic_load(&frees) == 1, "retire: not released by the next write (%s)",
              names[kind]);
        CHECK(weave_debug_pending() == 0, "retire: pending %zu after %s", weave_debug_pending(),
              names[kind]);
    }

    /* retire while a reader is inside its section: the write waits. */
    {
        atomic_int frees = 0;
        struct section_holder holder;
        holder_start(&holder);
        weave_retire(counted_obj(KEY(803), &frees));
        struct advancer advancer;
        atomic_init(&advancer.finished, false);
        if (pthread_create(&advancer.thread, NULL, advancer_main, &advancer) != 0) {
            FAIL("pthread_create advancer");
            abort();
        }
        sleep_ms(30);
        CHECK(!atomic_load(&advancer.finished), "a write returned inside a reader's section");
        CHECK(atomic_load(&frees) == 0, "retired value released inside a reader's section");
        holder_finish(&holder);
        pthread_join(advancer.thread, NULL);
        CHECK(atomic_load(&frees) == 1, "retired value not released after the section");
    }

    /* defer_release: not while a section that may see it is open; after a
     * later poll (a write that releases nothing) or a barrier. */
    {
        atomic_int frees = 0;
        struct section_holder holder;
        holder_start(&holder);
        weave_defer_release(counted_obj(KEY(804), &frees));
        CHECK(weave_debug_pending() >= 1, "defer: nothing pending");
        CHECK(atomic_load(&frees) == 0, "deferred value released inside a reader's section");
        weave_generation_advance(); /* polls; the holder is still inside */
        weave_defer_release(counted_obj(KEY(804), &frees)); /* polls again */
        CHECK(atomic_load(&frees) == 0, "deferred value released by a poll inside a section");
        holder_finish(&holder);
        weave_generation_advance(); /* nothing to release: a poll */
        CHECK(atomic_load(&frees) == 2, "deferred values not released by a poll after the section "
                                        "(%d of 2)", atomic_load(&frees));
        CHECK(weave_debug_pending() == 0, "defer: pending %zu", weave_debug_pending());
    }
    {
        atomic_int frees = 0;
        struct section_holder holder;
        holder_start(&holder);
        weave_defer_release(counted_obj(KEY(805), &frees));
        CHECK(atomic_load(&frees) == 0, "deferred value released inside a reader's section");
        holder_finish(&holder);
        weave_registry_set(r, KEY(800), obj_new(KEY(800), 3)); /* releases: a barrier */
        CHECK(atomic_load(&frees) == 1, "deferred value not released by a barrier");
        CHECK(weave_debug_pending() == 0, "defer: pending %zu", weave_debug_pending());
    }

    /* defer_release inside the caller's own section. */
    {
        atomic_int frees = 0;
        weave_read_begin();
        weave_defer_release(counted_obj(KEY(806), &frees));
        weave_defer_release(counted_obj(KEY(806), &frees));
        CHECK(atomic_load(&frees) == 0, "deferred value released inside the caller's section");
        weave_read_end();
        weave_generation_advance();
        CHECK(atomic_load(&frees) == 2, "deferred values not released after the section (%d)",
              atomic_load(&frees));
    }

    /* A thread that defers and exits: its record's deferred value goes at
     * thread exit, once the reader here has left its section. */
    {
        atomic_int frees = 0;
        struct deferrer deferrer = {.value = counted_obj(KEY(807), &frees)};
        weave_read_begin();
        if (pthread_create(&deferrer.thread, NULL, deferrer_main, &deferrer) != 0) {
            FAIL("pthread_create deferrer");
            abort();
        }
        sleep_ms(30);
        CHECK(atomic_load(&frees) == 0, "deferred value released inside a reader's section");
        weave_read_end();
        pthread_join(deferrer.thread, NULL);
        CHECK(deferrer.pending_after >= 1, "defer: nothing pending on the deferring thread");
        CHECK(atomic_load(&frees) == 1, "deferred value not released at thread exit");
    }

    weave_registry_destroy(r);
    CHECK(weave_debug_pending() == 0, "pending at the end: %zu", weave_debug_pending());
}

/* ------------------------------------------------------------------------ */
/* Thread exit drains deferred work that deferred work queued                */

/*
 * A thread's exit must leave nothing on its epoch record: unregistering
 * forgets what is still queued there (both configurations), so a value
 * deferred then is never released. The exit ran one barrier, but a callback
 * that barrier runs can defer more (a release whose deinit drops the last
 * reference to something else); a reader that entered its section after
 * that barrier began keeps the new entry pending past any poll. Here the
 * first value's release defers a second one while such a reader is inside.
 */
struct exit_chain {
    pthread_t exiting;
    pthread_t reader;
    atomic_int reader_state; /* 0 wait, 1 enter, 2 inside, 3 left */
    test_obj *first;
    test_obj *second;
    atomic_int second_frees;
    size_t pending_after; /* weave_debug_pending on the exiting thread */
};

static void *exit_chain_reader(void *argument) {
    struct exit_chain *chain = argument;
    while (atomic_load(&chain->reader_state) != 1) {
        sched_yield();
    }
    weave_read_begin();
    atomic_store(&chain->reader_state, 2);
    sleep_ms(30); /* long enough for the exiting thread to reach its unregister */
    weave_read_end();
    atomic_store(&chain->reader_state, 3);
    return NULL;
}

/* The first value's release, run by the exiting thread's exit barrier. */
static void exit_chain_free_hook(test_obj *obj) {
    struct exit_chain *chain = obj->hook_context;
    atomic_store(&chain->reader_state, 1);
    while (atomic_load(&chain->reader_state) != 2) {
        sched_yield();
    }
    weave_defer_release(chain->second);
}

static void *exit_chain_main(void *argument) {
    struct exit_chain *chain = argument;
    weave_defer_release(chain->first);
    chain->pending_after = weave_debug_pending();
    return NULL; /* the thread-exit destructor runs the first release */
}

/* One exiting thread; returns whether the chained value was released. */
static bool exit_drain_once(int round) {
    struct exit_chain chain = {0};
    atomic_init(&chain.reader_state, 0);
    atomic_init(&chain.second_frees, 0);
    chain.second = counted_obj(KEY(820), &chain.second_frees);
    chain.first = obj_new(KEY(821), 0);
    uint64_t first_id = chain.first->id;
    chain.first->on_free = exit_chain_free_hook;
    chain.first->hook_context = &chain;
    if (pthread_create(&chain.reader, NULL, exit_chain_reader, &chain) != 0) {
        FAIL("pthread_create exit_chain_reader");
        abort();
    }
    /* A section open here keeps the first value pending until the exit. */
    weave_read_begin();
    if (pthread_create(&chain.exiting, NULL, exit_chain_main, &chain) != 0) {
        FAIL("pthread_create exit_chain_main");
        abort();
    }
    sleep_ms(30);
    CHECK(!freed(first_id), "exit_drain: the first value was released inside a reader's section");
    weave_read_end();
    pthread_join(chain.exiting, NULL);
    pthread_join(chain.reader, NULL);
    CHECK(chain.pending_after >= 1, "exit_drain: nothing pending on the exiting thread");
    CHECK(freed(first_id), "exit_drain: the first deferred value was not released at thread exit");
    bool released = atomic_load(&chain.second_frees) == 1;
    CHECK(released,
          "exit_drain (round %d): a value deferred by a deferred release during thread exit was never "
          "released (the exit unregistered its record with work pending)", round);
    return released;
}

/* Several rounds: with ck 0.7.1 the exit barrier's own dispatch loop runs
 * the new entry when ck filed it under a bucket the loop has still to visit,
 * which depends on the global epoch's value; each round moves the epoch. */
static void group_exit_drain(void) {
    int released = 0;
    for (int round = 0; round < 8; round++) {
        released += exit_drain_once(round);
    }
    printf("  %d of 8 rounds released the chained value\n", released);
}

/* ------------------------------------------------------------------------ */
/* Cached reads through slots, shared by the concurrent groups               */

enum target_kind {
    TARGET_STABLE,   /* always resolves, to one object */
    TARGET_REPLACED, /* always resolves; serials rise; the writer announces them */
    TARGET_OPTIONAL, /* set and removed: may miss */
    TARGET_LIVE,     /* through the live registry; always resolves */
};

struct slot_target {
    weave_slot_t *slot;
    uintptr_t key;               /* the registry key its boxes cache */
    weave_registry_t *registry;  /* read through; NULL: the live registry */
    enum target_kind kind;
    uint64_t stable_id;          /* TARGET_STABLE */
    _Atomic uint64_t *published; /* TARGET_REPLACED: the last serial whose set returned */
};

struct slot_stats {
    long hits;
    long misses;
    long installs;
    long lost;    /* refused installs */
    long lingers; /* sections held across a yield */
    uint64_t last_serial; /* TARGET_REPLACED: never goes back for one reader */
};

/* A value read for the target (directly or out of a box). */
static void check_target_value(const char *what, const struct slot_target *t, test_obj *v,
                               uint64_t published, struct slot_stats *stats) {
    if (t->kind == TARGET_OPTIONAL && v == NULL) {
        return;
    }
    if (!check_value(what, v, t->key)) {
        return;
    }
    if (t->kind == TARGET_STABLE && v->id != t->stable_id) {
        FAIL("%s: stable key resolved to id %" PRIu64 ", expected %" PRIu64, what, v->id,
             t->stable_id);
    }
    if (t->kind == TARGET_REPLACED) {
        if (v->serial < published) {
            FAIL("%s: serial %" PRIu64 " older than %" PRIu64 ", whose set had returned", what,
                 v->serial, published);
        }
        if (v->serial < stats->last_serial) {
            FAIL("%s: serial went back from %" PRIu64 " to %" PRIu64, what, stats->last_serial,
                 v->serial);
        }
        stats->last_serial = v->serial;
    }
}

/* A box peeked between generations g0 and g1 (both loaded by the reader):
 * alive, of this key, read at a generation in [g0, g1] (else it is stale),
 * holding a valid value. Call inside the read section. */
static void check_box(const char *what, const struct slot_target *t, test_obj *box, uint64_t g0,
                      uint64_t g1, uint64_t published, struct slot_stats *stats) {
    if (!check_value(what, box, t->key)) {
        return;
    }
    if (box->generation < g0 || box->generation > g1) {
        FAIL("%s: stale box served: read at generation %" PRIu64 ", peeked between %" PRIu64
             " and %" PRIu64, what, box->generation, g0, g1);
    }
    check_target_value(what, t, box->hook_context, published, stats);
}

/* One cached read, the way InjectionSlot.value() and refresh() do it, with
 * every check. `linger`: stay in the section across a yield. */
static void slot_read(const struct slot_target *t, struct slot_stats *stats, bool linger) {
    uint64_t published =
        t->published != NULL ? atomic_load_explicit(t->published, memory_order_relaxed) : 0;
    uint64_t g0 = weave_generation();
    test_obj *box = weave_slot_peek(t->slot);
    uint64_t g1 = weave_generation();
    if (box != NULL) {
        check_box("slot peek", t, box, g0, g1, published, stats);
        if (linger) {
            sched_yield(); /* writers advance, sweep and release meanwhile */
            test_obj *inner = box->hook_context;
            CHECK(obj_valid(box) && refs_of(box) > 0 && (inner == NULL || obj_valid(inner)),
                  "a peeked box (or its value) died inside its read section");
            stats->lingers++;
        }
        weave_slot_read_end();
        stats->hits++;
        return;
    }
    weave_slot_read_end();
    stats->misses++;

    /* The refresh: the generation first, then the read. */
    uint64_t g = weave_generation();
    test_obj *v = t->registry != NULL ? weave_registry_get(t->registry, t->key)
                                      : weave_live_get(t->key);
    check_target_value("slot refresh read", t, v, published, stats);
    if (v != NULL && !obj_valid(v)) {
        return; /* reported; do not box a dead object */
    }
    test_obj *fresh = box_new(t->key, g, v);
    uint64_t fresh_id = fresh->id;
    if (!weave_slot_install(t->slot, g, fresh)) {
        stats->lost++;
        obj_release_cb(fresh);
        return;
    }
    stats->installs++;
    /* While the generation stays g the slot serves exactly this box. */
    uint64_t h0 = weave_generation();
    test_obj *again = weave_slot_peek(t->slot);
    uint64_t h1 = weave_generation();
    if (h0 == g && h1 == g) {
        CHECK(again != NULL && obj_valid(again) && again->id == fresh_id,
              "a box installed at the current generation is not served");
    }
    if (again != NULL) {
        check_box("slot peek after install", t, again, h0, h1, published, stats);
    }
    weave_slot_read_end();
}

/* ------------------------------------------------------------------------ */
/* Groups 5+: concurrent readers and writers                                  */

#define STABLE_KEY KEY(1)        /* in P, same object forever; never removed */
#define REPLACED_KEY KEY(2)      /* in P, value replaced with rising serials */
#define LIVE_KEY KEY(3)          /* in each live registry */
#define RETIRED_KEY KEY(4)       /* values the swapper retires and defers */
#define LIVE_FILL_BASE 3000      /* filled into each fresh live registry while */
#define LIVE_FILL_KEYS 100       /* it is live: growth 32 -> 256 under readers */
#define CHURN_BASE 1000          /* keys churned in C, the child of P */
#define CHURN_KEYS 128
#define PARENT_CHURN_BASE 5000   /* keys churned in P itself */
#define PARENT_CHURN_KEYS 96
#define ROUND_SLOT_CHURN 8       /* slots over churn keys in the rounds */
#define ROUND_TARGETS (3 + ROUND_SLOT_CHURN)

struct stress {
    weave_registry_t *parent;  /* P */
    weave_registry_t *child;   /* C: readers resolve STABLE_KEY through it */
    test_obj *stable;
    uint64_t stable_id;
    struct slot_target targets[ROUND_TARGETS]; /* stable, replaced, live, churn... */
    _Atomic uint64_t replaced_published;
    atomic_bool stop;         /* readers stop */
    atomic_bool writers_stop; /* writers stop, once every reader has */
    atomic_long writer_rounds;
    atomic_long swapper_rounds;
    atomic_long clears;
    atomic_long grows;
    atomic_long live_swaps;
    atomic_long advances;
};

struct reader {
    pthread_t thread;
    struct stress *stress;
    int index;
    atomic_long stable_reads;
    long churn_hits;
    long churn_misses;
    long live_reads;
    long locked_reads;
    long peeks;
    struct slot_stats slots;
};

static void *reader_main(void *argument) {
    struct reader *reader = argument;
    struct stress *s = reader->stress;
    uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(reader->index + 1);
    uint64_t last_replaced_serial = 0;
    test_obj *held = NULL; /* one value kept across iterations */
    long iteration = 0;

    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        iteration++;
        /* The stable key, through the child (which is being cleared and
         * regrown) and its parent: must always resolve to the same object. */
        for (int i = 0; i < 8; i++) {
            test_obj *v = weave_registry_get(s->child, STABLE_KEY);
            if (check_value("stable", v, STABLE_KEY) && v->id != s->stable_id) {
                FAIL("stable key resolved to id %" PRIu64 ", expected %" PRIu64, v->id,
                     s->stable_id);
            }
            if (v != NULL) {
                obj_release_cb(v);
            }
        }
        atomic_fetch_add_explicit(&reader->stable_reads, 8, memory_order_relaxed);

        /* A key whose value the writer keeps replacing: serials never go
         * backwards for one reader. */
        test_obj *r = weave_registry_get(s->child, REPLACED_KEY);
        if (check_value("replaced", r, REPLACED_KEY)) {
            if (r->serial < last_replaced_serial) {
                FAIL("replaced key went back from serial %" PRIu64 " to %" PRIu64,
                     last_replaced_serial, r->serial);
            }
            last_replaced_serial = r->serial;
        }
        /* Keep this one across the next iteration, then drop it. */
        if (held != NULL) {
            CHECK(obj_valid(held), "held value died while referenced");
            obj_release_cb(held);
        }
        held = r;

        /* Churned keys: may be missing, must never be another key's value. */
        uint64_t pick = rng_next(&rng);
        uintptr_t key = (pick & 1) ? KEY(CHURN_BASE + (pick >> 8) % CHURN_KEYS)
                                   : KEY(PARENT_CHURN_BASE + (pick >> 8) % PARENT_CHURN_KEYS);
        test_obj *c = (pick & 2) ? weave_registry_get(s->child, key)
                                 : weave_registry_get_local((pick & 1) ? s->child : s->parent, key);
        if (c != NULL) {
            reader->churn_hits++;
            check_value("churn", c, key);
            if ((pick & 0x3f0) == 0) {
                sched_yield(); /* hold it across a writer step */
                CHECK(obj_valid(c), "churned value died while referenced");
            }
            obj_release_cb(c);
        } else {
            reader->churn_misses++;
        }

        /* The live registry (swapped and destroyed by another thread). */
        test_obj *l = weave_live_get(LIVE_KEY);
        reader->live_reads++;
        if (check_value("live", l, LIVE_KEY)) {
            obj_release_cb(l);
        }
        uintptr_t fill = KEY(LIVE_FILL_BASE + (pick >> 16) % LIVE_FILL_KEYS);
        test_obj *lf = weave_live_get(fill); /* may be missing */
        if (lf != NULL) {
            check_value("live fill", lf, fill);
            obj_release_cb(lf);
        }
        if ((iteration & 7) == 0) {
            test_obj *ls = weave_live_get(STABLE_KEY); /* through the live registry's parent */
            if (check_value("live stable", ls, STABLE_KEY)) {
                CHECK(ls->id == s->stable_id, "live stable id");
                obj_release_cb(ls);
            }
        }

        /* The baseline locked reads, against the same writers. */
        if ((iteration & 15) == 0) {
            test_obj *ks = weave_registry_get_locked(s->child, STABLE_KEY);
            if (check_value("locked stable", ks, STABLE_KEY)) {
                CHECK(ks->id == s->stable_id, "locked stable id");
                obj_release_cb(ks);
            }
            test_obj *kc = weave_registry_get_locked(s->child, key);
            if (kc != NULL) {
                check_value("locked churn", kc, key);
                obj_release_cb(kc);
            }
            test_obj *kl = weave_live_get_locked(LIVE_KEY);
            if (check_value("locked live", kl, LIVE_KEY)) {
                obj_release_cb(kl);
            }
            reader->locked_reads += 3;
        }

        /* A cached read through a slot (refreshing it on a miss). */
        slot_read(&s->targets[(pick >> 24) % ROUND_TARGETS], &reader->slots,
                  (pick & 0xff0) == 0x20);

        /* The same reads through the peek API: no reference is taken, the
         * values must stay valid until weave_read_end (weave_slot_read_end
         * for the slot). Sections nest; a slot read sits inside them. */
        {
            const struct slot_target *rt = &s->targets[1];
            uint64_t published = atomic_load_explicit(&s->replaced_published, memory_order_relaxed);
            test_obj *ps = weave_registry_peek(s->child, STABLE_KEY);
            if (check_value("peek stable", ps, STABLE_KEY) && ps->id != s->stable_id) {
                FAIL("peeked stable id %" PRIu64 ", expected %" PRIu64, ps->id, s->stable_id);
            }
            test_obj *pr = weave_registry_peek(s->child, REPLACED_KEY);
            check_value("peek replaced", pr, REPLACED_KEY);
            test_obj *pc = weave_registry_peek(s->child, key);
            if (pc != NULL) {
                check_value("peek churn", pc, key);
            }
            test_obj *pl = weave_live_peek(LIVE_KEY);
            check_value("live peek", pl, LIVE_KEY);
            uint64_t g0 = weave_generation();
            test_obj *pb = weave_slot_peek(rt->slot);
            uint64_t g1 = weave_generation();
            if (pb != NULL) {
                check_box("nested slot peek", rt, pb, g0, g1, published, &reader->slots);
            }
            if ((pick & 0xff0) == 0x10) {
                sched_yield(); /* stay in the section across writer steps */
                CHECK(obj_valid(pr) && (pc == NULL || obj_valid(pc)) && obj_valid(pl) &&
                          (pb == NULL || (obj_valid(pb) && obj_valid(pb->hook_context))),
                      "peeked value died inside its read section");
            }
            weave_slot_read_end();
            for (int i = 0; i < 4; i++) {
                weave_read_end();
            }
            reader->peeks++;
        }
        if ((iteration & 63) == 0) {
            /* More threads than cores: let the writers, which spin while
             * waiting for a grace period, run. */
            sched_yield();
        }
    }
    if (held != NULL) {
        obj_release_cb(held);
    }
    return NULL;
}

/* Writers wait for grace periods by spinning; on a small machine with more
 * threads than cores a writer that never sleeps starves the readers it is
 * waiting for. A short pause per round keeps both sides moving. */
static void writer_pause(void) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
}

/* Writer 1: registry churn on P and C. */
static void *writer_main(void *argument) {
    struct stress *s = argument;
    uint64_t serial[CHURN_KEYS] = {0};
    bool present[CHURN_KEYS] = {false};
    bool parent_present[PARENT_CHURN_KEYS] = {false};
    uint64_t replaced_serial = 1;
    uint64_t rng = 0xC0FFEE;
    long round = 0;

    while (!atomic_load_explicit(&s->writers_stop, memory_order_relaxed)) {
        round++;
        /* Register or replace every churn key in C (the table grows from
         * 32 slots while readers probe it). */
        for (int i = 0; i < CHURN_KEYS; i++) {
            uintptr_t key = KEY(CHURN_BASE + i);
            if (!weave_registry_set(s->child, key, obj_new(key, ++serial[i]))) {
                FAIL("set churn key %d", i);
            }
            present[i] = true;
        }
        atomic_fetch_add(&s->grows, 1);

        /* The writer is the only one writing C: it reads its own writes. */
        for (int i = 0; i < CHURN_KEYS; i += 7) {
            uintptr_t key = KEY(CHURN_BASE + i);
            test_obj *v = weave_registry_get_local(s->child, key);
            if (check_value("writer get", v, key)) {
                CHECK(v->serial == serial[i], "writer reads its own write for key %d", i);
                /* put_if_absent on a present key returns it, retained, and
                 * leaves ours to us ... */
                test_obj *mine = obj_new(key, 0);
                test_obj *present_value = weave_registry_put_if_absent(s->child, key, mine);
                CHECK(present_value == v, "put_if_absent on a present key (key %d)", i);
                if (present_value != NULL) {
                    obj_release_cb(present_value);
                }
                obj_release_cb(mine);
                /* ... remove_if against a stale value fails ... */
                test_obj *stale = obj_new(key, 0);
                CHECK(!weave_registry_remove_if(s->child, key, stale),
                      "remove_if with a stale value succeeded (key %d)", i);
                obj_release_cb(stale);
                /* ... against the current one succeeds, and put_if_absent
                 * puts a new value in the hole. */
                if (!weave_registry_remove_if(s->child, key, v)) {
                    FAIL("remove_if with the current value failed (key %d)", i);
                } else {
                    test_obj *next = obj_new(key, ++serial[i]);
                    test_obj *raced = weave_registry_put_if_absent(s->child, key, next);
                    if (raced != NULL) {
                        FAIL("put_if_absent on a removed key found a value (key %d)", i);
                        obj_release_cb(raced);
                        obj_release_cb(next);
                    }
                }
            }
            if (v != NULL) {
                obj_release_cb(v);
            }
        }

        /* Remove a random half, twice checking the result. */
        for (int i = 0; i < CHURN_KEYS; i++) {
            if (rng_next(&rng) & 1) {
                bool removed = weave_registry_remove(s->child, KEY(CHURN_BASE + i));
                CHECK(removed == present[i], "remove result for key %d", i);
                present[i] = false;
            }
        }

        /* Every few rounds clear C (its table shrinks back to 32 slots);
         * put the stable key right back (same object, so readers see no
         * difference: it is in P as well). */
        if (round % 4 == 0) {
            size_t expected = 0;
            for (int i = 0; i < CHURN_KEYS; i++) {
                expected += present[i];
                present[i] = false;
            }
            size_t had_stable = 0;
            test_obj *in_child = weave_registry_get_local(s->child, STABLE_KEY);
            if (in_child != NULL) {
                had_stable = 1;
                obj_release_cb(in_child);
            }
            size_t cleared = weave_registry_clear(s->child);
            CHECK(cleared == expected + had_stable, "clear returned %zu, expected %zu", cleared,
                  expected + had_stable);
            obj_retain_cb(s->stable);
            if (!weave_registry_set(s->child, STABLE_KEY, s->stable)) {
                FAIL("re-adding the stable key");
                obj_release_cb(s->stable);
            }
            atomic_fetch_add(&s->clears, 1);
        }

        /* Churn P itself (never its stable key): growth, removals and the
         * tombstone collection in the table readers fall back to. */
        for (int i = 0; i < PARENT_CHURN_KEYS; i++) {
            uintptr_t key = KEY(PARENT_CHURN_BASE + i);
            if (parent_present[i] && (rng_next(&rng) & 3) != 0) {
                CHECK(weave_registry_remove(s->parent, key), "remove parent key %d", i);
                parent_present[i] = false;
            } else {
                if (!weave_registry_set(s->parent, key, obj_new(key, (uint64_t)round))) {
                    FAIL("set parent key %d", i);
                }
                parent_present[i] = true;
            }
        }
        if (!weave_registry_set(s->parent, REPLACED_KEY, obj_new(REPLACED_KEY, ++replaced_serial))) {
            FAIL("replace REPLACED_KEY");
        }
        /* Relaxed: announces, gives readers no ordering of their own. */
        atomic_store_explicit(&s->replaced_published, replaced_serial, memory_order_relaxed);

        /* each on the churned registry, concurrently with readers. */
        if (round % 8 == 0) {
            struct each_state state = {0};
            weave_registry_each(s->child, &state, each_body);
            CHECK(state.bad == 0, "each saw bad values");
        }
        atomic_fetch_add(&s->writer_rounds, 1);
        writer_pause();
    }
    return NULL;
}

/* Writer 2: live registry swaps, generation advances, retired and deferred
 * values. */
static void *swapper_main(void *argument) {
    struct stress *s = argument;
    weave_registry_t *live[2];
    uint64_t serial = 0;
    for (int i = 0; i < 2; i++) {
        live[i] = weave_registry_create(s->parent);
        weave_registry_set(live[i], LIVE_KEY, obj_new(LIVE_KEY, ++serial));
    }
    int current = 0;
    weave_live_set(live[current]);
    long round = 0;

    while (!atomic_load_explicit(&s->writers_stop, memory_order_relaxed)) {
        round++;
        int other = 1 - current;
        if (round % 2 == 0) {
            /* Swap between two registries that both stay alive, changing
             * the one that is not live. */
            weave_registry_set(live[other], LIVE_KEY, obj_new(LIVE_KEY, ++serial));
            weave_live_set(live[other]);
        } else {
            /* Swap to a fresh registry and destroy the previous one right
             * away: allowed once weave_live_set has returned. */
            weave_registry_destroy(live[other]);
            live[other] = weave_registry_create(s->parent);
            weave_registry_set(live[other], LIVE_KEY, obj_new(LIVE_KEY, ++serial));
            weave_live_set(live[other]);
            /* Grow the table readers are now probing, from its initial 32
             * slots. */
            for (int i = 0; i < LIVE_FILL_KEYS; i++) {
                uintptr_t key = KEY(LIVE_FILL_BASE + i);
                weave_registry_set(live[other], key, obj_new(key, serial));
            }
            weave_registry_destroy(live[current]);
            live[current] = weave_registry_create(s->parent);
            weave_registry_set(live[current], LIVE_KEY, obj_new(LIVE_KEY, ++serial));
        }
        current = other;
        atomic_fetch_add(&s->live_swaps, 1);

        /* Injection-context changes: every cached box goes stale. */
        for (int i = 0; i < 4; i++) {
            weave_generation_advance();
            atomic_fetch_add(&s->advances, 1);
        }
        if (round % 8 == 0) {
            weave_retire(obj_new(RETIRED_KEY, (uint64_t)round));
            weave_defer_release(obj_new(RETIRED_KEY, (uint64_t)round));
        }
        atomic_fetch_add(&s->swapper_rounds, 1);
        writer_pause();
    }
    weave_live_set(NULL);
    weave_registry_destroy(live[0]);
    weave_registry_destroy(live[1]);
    return NULL;
}

/* A round ends once the readers made reads_target stable reads and the
 * writer made writer_rounds_target rounds (each replaces, removes and
 * re-adds 128 keys of C, churns 96 of P and clears C every 4th round), the
 * swapper twice as many. 200 by default; WEAVE_STRESS_WRITER_ROUNDS sets
 * it (below 200 only with WEAVE_STRESS_ALLOW_SHORT=1): under TSan a writer
 * round waits for grace periods among instrumented readers, and 200 of
 * them took minutes. */
#define DEFAULT_WRITER_ROUNDS 200

static long reads_target;
static long writer_rounds_target;
static int reader_count;
static double round_timeout;

static void sum_slot_stats(struct slot_stats *total, const struct slot_stats *one) {
    total->hits += one->hits;
    total->misses += one->misses;
    total->installs += one->installs;
    total->lost += one->lost;
    total->lingers += one->lingers;
}

static void group_concurrent(int round) {
    struct stress s;
    memset(&s, 0, sizeof(s));
    s.parent = weave_registry_create(NULL);
    s.child = weave_registry_create(s.parent);
    s.stable = obj_new(STABLE_KEY, 1);
    s.stable_id = s.stable->id;
    obj_retain_cb(s.stable); /* ours, checked at the end */
    weave_registry_set(s.parent, STABLE_KEY, s.stable);
    weave_registry_set(s.parent, REPLACED_KEY, obj_new(REPLACED_KEY, 1));
    atomic_init(&s.replaced_published, 0);
    atomic_init(&s.stop, false);
    atomic_init(&s.writers_stop, false);
    /* Slots are immortal: new ones (new keys) per round. */
    int slot_base = 10000 + round * 100;
    s.targets[0] = (struct slot_target){weave_slot_create(SLOT_KEY(slot_base)), STABLE_KEY,
                                        s.child, TARGET_STABLE, s.stable_id, NULL};
    s.targets[1] = (struct slot_target){weave_slot_create(SLOT_KEY(slot_base + 1)), REPLACED_KEY,
                                        s.child, TARGET_REPLACED, 0, &s.replaced_published};
    s.targets[2] = (struct slot_target){weave_slot_create(SLOT_KEY(slot_base + 2)), LIVE_KEY,
                                        NULL, TARGET_LIVE, 0, NULL};
    for (int i = 0; i < ROUND_SLOT_CHURN; i++) {
        uintptr_t key = KEY(CHURN_BASE + i * (CHURN_KEYS / ROUND_SLOT_CHURN));
        s.targets[3 + i] = (struct slot_target){weave_slot_create(SLOT_KEY(slot_base + 3 + i)),
                                                key, s.child, TARGET_OPTIONAL, 0, NULL};
    }

    struct reader *readers = calloc((size_t)reader_count, sizeof(*readers));
    pthread_t writer, swapper;
    /* The live registry must exist before readers start. */
    weave_registry_t *bootstrap = weave_registry_create(s.parent);
    weave_registry_set(bootstrap, LIVE_KEY, obj_new(LIVE_KEY, 0));
    weave_live_set(bootstrap);

    double start = now_seconds();
    for (int i = 0; i < reader_count; i++) {
        readers[i].stress = &s;
        readers[i].index = i + round * 100;
        atomic_init(&readers[i].stable_reads, 0);
        if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]) != 0) {
            FAIL("pthread_create reader");
            abort();
        }
    }
    if (pthread_create(&writer, NULL, writer_main, &s) != 0 ||
        pthread_create(&swapper, NULL, swapper_main, &s) != 0) {
        FAIL("pthread_create writer");
        abort();
    }
    /* swapper_main has installed its own live registry once it has made a
     * swap; the bootstrap one goes once the swapper's first round is done. */
    while (atomic_load(&s.swapper_rounds) == 0 && now_seconds() - start < round_timeout) {
        sleep_ms(1);
    }
    weave_registry_destroy(bootstrap);

    long total = 0;
    for (;;) {
        sleep_ms(20);
        total = 0;
        for (int i = 0; i < reader_count; i++) {
            total += atomic_load_explicit(&readers[i].stable_reads, memory_order_relaxed);
        }
        bool enough = total >= reads_target && atomic_load(&s.writer_rounds) >= writer_rounds_target &&
                      atomic_load(&s.swapper_rounds) >= 2 * writer_rounds_target;
        if (enough) {
            break;
        }
        if (now_seconds() - start > round_timeout) {
            FAIL("round %d timed out after %.0f s (stable reads %ld, writer rounds %ld)", round,
                 round_timeout, total, atomic_load(&s.writer_rounds));
            break;
        }
    }
    atomic_store(&s.stop, true);
    long churn_hits = 0, churn_misses = 0, live_reads = 0, locked_reads = 0, peeks = 0;
    struct slot_stats slots = {0};
    for (int i = 0; i < reader_count; i++) {
        pthread_join(readers[i].thread, NULL);
        churn_hits += readers[i].churn_hits;
        churn_misses += readers[i].churn_misses;
        live_reads += readers[i].live_reads;
        locked_reads += readers[i].locked_reads;
        peeks += readers[i].peeks;
        sum_slot_stats(&slots, &readers[i].slots);
    }
    atomic_store(&s.writers_stop, true);
    pthread_join(writer, NULL);
    pthread_join(swapper, NULL);
    total = 0;
    for (int i = 0; i < reader_count; i++) {
        total += atomic_load(&readers[i].stable_reads);
    }
    printf("  round %d: %.2f s, %d readers, %ld stable reads, churn %ld hits / %ld misses, "
           "%ld live reads, %ld locked reads, %ld peek sections; slots %ld hits / %ld misses, "
           "%ld installs, %ld refused; writer %ld rounds (%ld clears), %ld live swaps, "
           "%ld advances\n",
           round, now_seconds() - start, reader_count, total, churn_hits, churn_misses,
           live_reads, locked_reads, peeks, slots.hits, slots.misses, slots.installs, slots.lost,
           atomic_load(&s.writer_rounds), atomic_load(&s.clears), atomic_load(&s.live_swaps),
           atomic_load(&s.advances));
    CHECK(total >= reads_target, "stable reads %ld < %ld", total, reads_target);
    CHECK(slots.hits > 0 && slots.installs > 0, "slots: %ld hits, %ld installs", slots.hits,
          slots.installs);

    /* Teardown: release every cached box, then the child first (the parent
     * must outlive it). */
    flush_slots();
    CHECK(atomic_load(&live_boxes) == 0, "%ld boxes survived the flush", atomic_load(&live_boxes));
    weave_registry_destroy(s.child);
    weave_registry_destroy(s.parent);
    CHECK(refs_of(s.stable) == 1, "stable object has %ld references after teardown",
          refs_of(s.stable));
    obj_release_cb(s.stable);
    free(readers);
}

/* ------------------------------------------------------------------------ */
/* The concurrent slot group: readers read through slots only (peek, and     */
/* refresh + install on a miss) while writers change what the slots cache.   */

#define CS_STABLE_KEY KEY(7000)   /* in P; never removed */
#define CS_REPLACED_KEY KEY(7001) /* in P; replaced with rising serials */
#define CS_CHURN_BASE 7100        /* in C; set, removed, remove_if'd, put_if_absent'd */
#define CS_CHURN_KEYS 16
#define CS_TARGETS (2 + CS_CHURN_KEYS)
#define CS_MIN_WRITER_ROUNDS 300
#define CS_MIN_ADVANCES 2000

struct cs_state {
    weave_registry_t *parent;
    weave_registry_t *child;
    test_obj *stable;
    struct slot_target targets[CS_TARGETS];
    _Atomic uint64_t replaced_published;
    atomic_bool stop;
    atomic_bool writers_stop;
    atomic_long writer_rounds;
    atomic_long writes;
    atomic_long advances;
    atomic_long clears;
};

struct cs_reader {
    pthread_t thread;
    struct cs_state *s;
    int index;
    atomic_long reads;
    long locked_reads;
    struct slot_stats stats;
    struct slot_stats locked; /* serial bookkeeping of the locked reads */
};

static void *cs_reader_main(void *argument) {
    struct cs_reader *reader = argument;
    struct cs_state *s = reader->s;
    uint64_t rng = 0xD1B54A32D192ED03ULL * (uint64_t)(reader->index + 1);
    long n = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        uint64_t pick = rng_next(&rng);
        /* A quarter of the reads on the replaced key, the rest spread. */
        size_t index = (pick & 3) == 0 ? 1 : (size_t)((pick >> 8) % CS_TARGETS);
        const struct slot_target *t = &s->targets[index];
        slot_read(t, &reader->stats, ((pick >> 40) & 0x7f) == 0);
        atomic_fetch_add_explicit(&reader->reads, 1, memory_order_relaxed);
        if (((pick >> 48) & 3) == 0) {
            /* The locked baseline read of the same key, against the same
             * writes (its nodes and tables are freed all the time). */
            test_obj *v = weave_registry_get_locked(t->registry, t->key);
            check_target_value("locked read", t, v, 0, &reader->locked);
            if (v != NULL) {
                obj_release_cb(v);
            }
            reader->locked_reads++;
        }
        if ((++n & 63) == 0) {
            sched_yield();
        }
    }
    return NULL;
}

/* Writer: everything that changes a registration, on C; the replaced key
 * on P. */
static void *cs_writer_main(void *argument) {
    struct cs_state *s = argument;
    uint64_t serial[CS_CHURN_KEYS] = {0};
    bool present[CS_CHURN_KEYS] = {false};
    uint64_t replaced_serial = 1;
    uint64_t rng = 0xFEEDFACE;
    long round = 0;
    while (!atomic_load_explicit(&s->writers_stop, memory_order_relaxed)) {
        round++;
        for (int i = 0; i < CS_CHURN_KEYS; i++) {
            uintptr_t key = KEY(CS_CHURN_BASE + i);
            switch (rng_next(&rng) % 6) {
            case 0: /* set (insert or replace) */
                CHECK(weave_registry_set(s->child, key, obj_new(key, ++serial[i])), "cs set");
                present[i] = true;
                break;
            case 1: /* remove */
                CHECK(weave_registry_remove(s->child, key) == present[i], "cs remove result");
                present[i] = false;
                break;
            case 2: { /* remove_if with the current value */
                test_obj *v = weave_registry_get_local(s->child, key);
                CHECK((v != NULL) == present[i], "cs writer reads its own writes");
                if (v != NULL) {
                    CHECK(weave_registry_remove_if(s->child, key, v), "cs remove_if (current)");
                    obj_release_cb(v);
                    present[i] = false;
                }
                break;
            }
            case 3: { /* remove_if with a stale value */
                test_obj *stale = obj_new(key, 0);
                CHECK(!weave_registry_remove_if(s->child, key, stale), "cs remove_if (stale)");
                obj_release_cb(stale);
                break;
            }
            case 4: { /* put_if_absent */
                test_obj *mine = obj_new(key, serial[i] + 1);
                test_obj *found = weave_registry_put_if_absent(s->child, key, mine);
                CHECK((found == NULL) == !present[i], "cs put_if_absent result");
                if (found != NULL) {
                    check_value("cs put_if_absent present", found, key);
                    obj_release_cb(found);
                    obj_release_cb(mine);
                } else {
                    serial[i]++;
                    present[i] = true;
                }
                break;
            }
            default:
                break;
            }
            atomic_fetch_add_explicit(&s->writes, 1, memory_order_relaxed);
        }
        CHECK(weave_registry_set(s->parent, CS_REPLACED_KEY,
                                 obj_new(CS_REPLACED_KEY, ++replaced_serial)),
              "cs replace");
        /* Relaxed: announces, gives readers no ordering of their own. */
        atomic_store_explicit(&s->replaced_published, replaced_serial, memory_order_relaxed);
        if (round % 16 == 0) {
            size_t expected = 0;
            for (int i = 0; i < CS_CHURN_KEYS; i++) {
                expected += present[i];
                present[i] = false;
            }
            CHECK(weave_registry_clear(s->child) == expected, "cs clear count");
            atomic_fetch_add(&s->clears, 1);
        }
        atomic_fetch_add(&s->writer_rounds, 1);
        writer_pause();
    }
    return NULL;
}

/* Advancer: injection-context changes, retired and deferred values. */
static void *cs_advancer_main(void *argument) {
    struct cs_state *s = argument;
    long n = 0;
    while (!atomic_load_explicit(&s->writers_stop, memory_order_relaxed)) {
        n++;
        weave_generation_advance();
        atomic_fetch_add(&s->advances, 1);
        if (n % 16 == 0) {
            weave_retire(obj_new(RETIRED_KEY, (uint64_t)n));
        } else if (n % 16 == 8) {
            weave_defer_release(obj_new(RETIRED_KEY, (uint64_t)n));
        }
        if (n % 4 == 0) {
            writer_pause();
        }
    }
    return NULL;
}

static void group_concurrent_slots(void) {
    struct cs_state s;
    memset(&s, 0, sizeof(s));
    s.parent = weave_registry_create(NULL);
    s.child = weave_registry_create(s.parent);
    s.stable = obj_new(CS_STABLE_KEY, 1);
    obj_retain_cb(s.stable);
    weave_registry_set(s.parent, CS_STABLE_KEY, s.stable);
    weave_registry_set(s.parent, CS_REPLACED_KEY, obj_new(CS_REPLACED_KEY, 1));
    atomic_init(&s.replaced_published, 0);
    atomic_init(&s.stop, false);
    atomic_init(&s.writers_stop, false);
    s.targets[0] = (struct slot_target){weave_slot_create(SLOT_KEY(7000)), CS_STABLE_KEY, s.child,
                                        TARGET_STABLE, s.stable->id, NULL};
    s.targets[1] = (struct slot_target){weave_slot_create(SLOT_KEY(7001)), CS_REPLACED_KEY,
                                        s.child, TARGET_REPLACED, 0, &s.replaced_published};
    for (int i = 0; i < CS_CHURN_KEYS; i++) {
        s.targets[2 + i] = (struct slot_target){weave_slot_create(SLOT_KEY(CS_CHURN_BASE + i)),
                                                KEY(CS_CHURN_BASE + i), s.child, TARGET_OPTIONAL,
                                                0, NULL};
    }

    long target_reads = reads_target / 2;
    struct cs_reader *readers = calloc((size_t)reader_count, sizeof(*readers));
    pthread_t writer, advancer;
    double start = now_seconds();
    for (int i = 0; i < reader_count; i++) {
        readers[i].s = &s;
        readers[i].index = i;
        atomic_init(&readers[i].reads, 0);
        if (pthread_create(&readers[i].thread, NULL, cs_reader_main, &readers[i]) != 0) {
            FAIL("pthread_create slot reader");
            abort();
        }
    }
    if (pthread_create(&writer, NULL, cs_writer_main, &s) != 0 ||
        pthread_create(&advancer, NULL, cs_advancer_main, &s) != 0) {
        FAIL("pthread_create slot writer");
        abort();
    }
    long total = 0;
    for (;;) {
        sleep_ms(20);
        total = 0;
        for (int i = 0; i < reader_count; i++) {
            total += atomic_load_explicit(&readers[i].reads, memory_order_relaxed);
        }
        if (total >= target_reads && atomic_load(&s.writer_rounds) >= CS_MIN_WRITER_ROUNDS &&
            atomic_load(&s.advances) >= CS_MIN_ADVANCES) {
            break;
        }
        if (now_seconds() - start > round_timeout) {
            FAIL("slot group timed out after %.0f s (slot reads %ld, writer rounds %ld, "
                 "advances %ld)", round_timeout, total, atomic_load(&s.writer_rounds),
                 atomic_load(&s.advances));
            break;
        }
    }
    atomic_store(&s.stop, true);
    struct slot_stats stats = {0};
    long locked_reads = 0;
    for (int i = 0; i < reader_count; i++) {
        pthread_join(readers[i].thread, NULL);
        sum_slot_stats(&stats, &readers[i].stats);
        locked_reads += readers[i].locked_reads;
    }
    atomic_store(&s.writers_stop, true);
    pthread_join(writer, NULL);
    pthread_join(advancer, NULL);
    printf("  %.2f s, %d readers, %ld slot reads: %ld hits / %ld misses, %ld installs, "
           "%ld refused, %ld lingering sections; %ld locked reads; writer %ld rounds "
           "(%ld writes, %ld clears), %ld advances, %ld boxes cached at the end\n",
           now_seconds() - start, reader_count, total, stats.hits, stats.misses, stats.installs,
           stats.lost, stats.lingers, locked_reads, atomic_load(&s.writer_rounds),
           atomic_load(&s.writes),
           atomic_load(&s.clears), atomic_load(&s.advances), atomic_load(&live_boxes));
    CHECK(stats.hits > 0 && stats.installs > 0 && stats.lingers > 0,
          "slots: %ld hits, %ld installs, %ld lingers", stats.hits, stats.installs, stats.lingers);

    flush_slots();
    CHECK(atomic_load(&live_boxes) == 0, "%ld boxes survived the flush", atomic_load(&live_boxes));
    weave_registry_destroy(s.child);
    weave_registry_destroy(s.parent);
    CHECK(refs_of(s.stable) == 1, "stable object has %ld references after teardown",
          refs_of(s.stable));
    obj_release_cb(s.stable);
    free(readers);
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */

static int groups_passed;
static int groups_failed;
static const char *only_groups; /* WEAVE_STRESS_ONLY: comma-separated names, or NULL */

static bool group_selected(const char *name) {
    if (only_groups == NULL || strcmp(name, "accounting") == 0) {
        return true;
    }
    size_t length = strlen(name);
    for (const char *p = only_groups; (p = strstr(p, name)) != NULL; p += length) {
        bool starts = p == only_groups || p[-1] == ',';
        bool ends = p[length] == '\0' || p[length] == ',';
        if (starts && ends) {
            return true;
        }
    }
    return false;
}

static void run_group(const char *name, void (*body)(void)) {
    if (!group_selected(name)) {
        printf("group %s: skipped (WEAVE_STRESS_ONLY)\n", name);
        return;
    }
    long before = atomic_load(&failures);
    double start = now_seconds();
    printf("group %s ...\n", name);
    fflush(stdout);
    body();
    long failed = atomic_load(&failures) - before;
    printf("group %s: %s (%.2f s)\n", name, failed == 0 ? "ok" : "FAILED", now_seconds() - start);
    fflush(stdout);
    if (failed == 0) {
        groups_passed++;
    } else {
        groups_failed++;
    }
}

/* ------------------------------------------------------------------------ */
/* A write in progress: between a write's change and its completion (the
 * window another core can read in), a reader may see the new table but a
 * slot must not serve the box cached before the write, and a generation
 * loaded then must not let a box in. Without that, one reader saw a value
 * in the table and then an older one through a slot (concurrent_slots:
 * "serial went back"). Deterministic: the write calls back into the test. */

static struct slot_fixture *mid_fixture;
static enum write_kind mid_kind;
static int mid_calls;

static void mid_write_reader(void) {
    struct slot_fixture *f = mid_fixture;
    const char *name = write_names[mid_kind];
    mid_calls++;
    test_obj *direct = weave_registry_get(f->registry, f->key);
    if (mid_kind == WRITE_LIVE_SET) {
        test_obj *live = weave_live_get(f->key);
        CHECK(live == f->value, "%s: the new live registry is not read inside the write", name);
        if (live != NULL) {
            obj_release_cb(live);
        }
    } else if (mid_kind == WRITE_SET_REPLACE) {
        CHECK(direct != NULL && direct != f->value && direct->serial == 2,
              "%s: the table does not hold the new value inside the write", name);
    } else {
        CHECK(direct == NULL, "%s: the table still holds the value inside the write", name);
    }
    test_obj *peeked = weave_slot_peek(f->slot);
    CHECK(peeked == NULL,
          "%s: a slot served the box cached before a write while the write was in progress "
          "(a reader sees the new table, then the old value)", name);
    weave_slot_read_end();
    uint64_t g = weave_generation();
    test_obj *box = box_new(f->key, g, direct);
    CHECK(!weave_slot_install(f->slot, g, box),
          "%s: a box read inside a write was installed", name);
    obj_release_cb(box); /* and with it `direct` */
}

static void group_write_in_progress(void) {
    static const enum write_kind kinds[] = {WRITE_SET_REPLACE, WRITE_REMOVE, WRITE_REMOVE_IF,
                                            WRITE_CLEAR, WRITE_LIVE_SET};
    if (&weave_stress_mid_write == NULL) {
        printf("  skipped: weave_registry.c was built without WEAVE_STRESS_HOOKS\n");
        return;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        struct slot_fixture f;
        fixture_make(&f);
        mid_fixture = &f;
        mid_kind = kinds[i];
        mid_calls = 0;
        weave_stress_mid_write = mid_write_reader;
        fixture_write(kinds[i], &f);
        weave_stress_mid_write = NULL;
        CHECK(mid_calls == 1, "%s: called back %d times, expected once", write_names[kinds[i]],
              mid_calls);
        check_after_write(kinds[i], &f, freed(f.box_id), freed(f.value_id));
        fixture_destroy(kinds[i], &f);
    }
}

static void group_concurrent_round_1(void) { group_concurrent(1); }
static void group_concurrent_round_2(void) { group_concurrent(2); }

static void group_accounting(void) {
    /* Deferred values of this thread and anything still retired. */
    flush_slots();
    CHECK(weave_debug_pending() == 0, "%zu values still pending", weave_debug_pending());
    uint64_t created = atomic_load(&next_id);
    long live = atomic_load(&live_objects);
    long freed_count = atomic_load(&freed_objects);
    printf("  objects created %" PRIu64 ", freed %ld, live %ld\n", created, freed_count, live);
    CHECK(live == 0, "%ld objects were never released", live);
    CHECK((uint64_t)freed_count == created, "created %" PRIu64 " != freed %ld", created,
          freed_count);
    CHECK(atomic_load(&live_boxes) == 0, "%ld boxes never released", atomic_load(&live_boxes));
    uint64_t never = 0, twice = 0;
    for (uint64_t id = 0; id < created; id++) {
        unsigned char count = atomic_load(&freed_flags[id]);
        never += count == 0;
        twice += count > 1;
    }
    CHECK(never == 0 && twice == 0, "%" PRIu64 " objects never freed, %" PRIu64 " freed twice",
          never, twice);
}

/* A thread that only reads, then exits: its epoch record is unregistered by
 * the registry's thread-exit destructor and recycled by the next one. */
static void *short_lived_reader(void *argument) {
    weave_registry_t *registry = argument;
    for (int i = 0; i < 100; i++) {
        test_obj *v = weave_registry_get(registry, KEY(1));
        if (check_value("short-lived", v, KEY(1))) {
            obj_release_cb(v);
        }
    }
    /* and one that writes, so its record has deferred work drained */
    weave_registry_set(registry, KEY(2), obj_new(KEY(2), 0));
    return NULL;
}

static void group_thread_churn(void) {
    weave_registry_t *registry = weave_registry_create(NULL);
    weave_registry_set(registry, KEY(1), obj_new(KEY(1), 0));
    for (int wave = 0; wave < 50; wave++) {
        pthread_t threads[4];
        for (int i = 0; i < 4; i++) {
            if (pthread_create(&threads[i], NULL, short_lived_reader, registry) != 0) {
                FAIL("pthread_create");
                abort();
            }
        }
        for (int i = 0; i < 4; i++) {
            pthread_join(threads[i], NULL);
        }
    }
    weave_registry_destroy(registry);
}

/* Detached threads that write and exit while other, unrelated detached
 * threads start: epoch records are unregistered by one thread and recycled
 * by another with nothing but ck's own record state ordering the two (no
 * pthread_join, no shared lock: each spawner has its own registry). */
struct spawner {
    pthread_t thread;
    weave_registry_t *registry;
    atomic_int done;
    int index;
};

static void *detached_worker(void *argument) {
    struct spawner *spawner = argument;
    /* Touch nothing the other spawner's workers touch (no shared value, no
     * shared lock), so only ck orders one worker's exit before another
     * worker's reuse of its record. */
    uintptr_t key = KEY(60 + spawner->index);
    weave_registry_set(spawner->registry, key, obj_new(key, 0));
    for (int i = 0; i < 20; i++) {
        test_obj *v = weave_registry_get(spawner->registry, key);
        if (check_value("detached reader", v, key)) {
            obj_release_cb(v);
        }
    }
    /* remove defers the node through ck_epoch_call on this thread's record */
    CHECK(weave_registry_remove(spawner->registry, key), "detached remove");
    atomic_fetch_add_explicit(&spawner->done, 1, memory_order_release);
    return NULL;
}

static void *spawner_main(void *argument) {
    struct spawner *spawner = argument;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < 100; i++) {
        pthread_t worker;
        if (pthread_create(&worker, &attributes, detached_worker, spawner) != 0) {
            FAIL("pthread_create detached");
            abort();
        }
        while (atomic_load_explicit(&spawner->done, memory_order_acquire) <= i) {
            sched_yield();
        }
    }
    pthread_attr_destroy(&attributes);
    return NULL;
}

static void group_detached_thread_churn(void) {
    struct spawner spawners[2];
    for (int i = 0; i < 2; i++) {
        spawners[i].registry = weave_registry_create(NULL);
        spawners[i].index = i;
        atomic_init(&spawners[i].done, 0);
        if (pthread_create(&spawners[i].thread, NULL, spawner_main, &spawners[i]) != 0) {
            FAIL("pthread_create spawner");
            abort();
        }
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(spawners[i].thread, NULL);
    }
    /* The last workers may still be in their thread-exit destructors. */
    sleep_ms(50);
    for (int i = 0; i < 2; i++) {
        CHECK(weave_registry_count(spawners[i].registry) == 0, "detached registry not empty");
        weave_registry_destroy(spawners[i].registry);
    }
}

/* ------------------------------------------------------------------------ */
/* Thread burst: more threads alive at once than there are epoch records     */

/* Under ThreadSanitizer fewer: TSan runs at most 256 threads at once (its
 * thread slots); with more, a thread waiting for a slot can hold a lock a
 * reader needs while the slot's owner waits for that reader's grace period,
 * and the group hangs (seen with 640 threads on a loaded machine, twice).
 * scripts/sanitize.sh builds the TSan run with WEAVE_EPOCH_RECORDS_MAX=64,
 * so 200 threads are still more than three times the record bound. */
#if defined(__SANITIZE_THREAD__)
#define BURST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BURST_UNDER_TSAN 1
#endif
#endif
#ifdef BURST_UNDER_TSAN
#define BURST_THREADS 200
#else
#define BURST_THREADS 2000
#endif
_Static_assert(BURST_THREADS > 2 * WEAVE_EPOCH_RECORDS_MAX, "the burst must outnumber the epoch records");
#define BURST_STABLE KEY(70)   /* never replaced while the burst runs */
#define BURST_REPLACED KEY(71) /* replaced over and over by the writer */
#define BURST_DEFERRED KEY(72) /* values each burst thread defers */
#define BURST_GROW_BASE 8000   /* one key per burst thread, in its own table */

struct burst {
    weave_registry_t *registry; /* live while the burst runs */
    weave_registry_t *grow;     /* grown (resized) by burst threads' inserts */
    weave_slot_t *slot;         /* caches BURST_STABLE */
    pthread_barrier_t all_read;
    atomic_int owners;
    atomic_int record_less;
    atomic_long most_records;
    atomic_bool writer_stop;
    atomic_long writes;
};

struct burst_thread {
    pthread_t thread;
    struct burst *burst;
    int index;
};

static void burst_note_records(struct burst *b) {
    long now = (long)weave_debug_epoch_records();
    long seen = atomic_load(&b->most_records);
    while (now > seen && !atomic_compare_exchange_weak(&b->most_records, &seen, now)) {
    }
}

static void burst_get(const char *what, test_obj *v, uintptr_t key) {
    if (check_value(what, v, key)) {
        obj_release_cb(v);
    }
}

/* Every read entry point, then writes, from a thread that may own no record. */
static void burst_work(struct burst *b, int index) {
    burst_get("burst get", weave_registry_get(b->registry, BURST_STABLE), BURST_STABLE);
    burst_get("burst get_local", weave_registry_get_local(b->registry, BURST_STABLE), BURST_STABLE);
    burst_get("burst live_get", weave_live_get(BURST_STABLE), BURST_STABLE);
    burst_get("burst get_locked", weave_registry_get_locked(b->registry, BURST_REPLACED),
              BURST_REPLACED);
    burst_get("burst live_get_locked", weave_live_get_locked(BURST_REPLACED), BURST_REPLACED);

    /* Nested sections (some held across a yield) while the writer replaces
     * the value and waits for grace periods: nothing peeked may die before
     * the outermost section ends. */
    test_obj *replaced = weave_registry_peek(b->registry, BURST_REPLACED);
    test_obj *live = weave_live_peek(BURST_REPLACED);
    weave_read_begin();
    test_obj *box = weave_slot_peek(b->slot);
    burst_get("burst get inside a section", weave_registry_get(b->registry, BURST_REPLACED),
              BURST_REPLACED);
    if (index % 32 == 0) {
        sched_yield();
    }
    check_value("burst peek", replaced, BURST_REPLACED);
    check_value("burst live peek", live, BURST_REPLACED);
    if (box != NULL) {
        CHECK(obj_valid(box) && check_value("burst boxed value", box->hook_context, BURST_STABLE),
              "a peeked box died inside its section");
    }
    weave_slot_read_end();
    weave_read_end();
    weave_read_end();
    weave_read_end();

    /* The refresh InjectionSlot does: generation, read, install. */
    uint64_t g = weave_generation();
    test_obj *v = weave_registry_get(b->registry, BURST_STABLE);
    if (check_value("burst refresh", v, BURST_STABLE)) {
        test_obj *fresh = box_new(BURST_STABLE, g, v);
        if (!weave_slot_install(b->slot, g, fresh)) {
            obj_release_cb(fresh);
        }
    }

    /* Writes: inserts that resize the table (the old table memory must
     * outlive every reader), a remove that waits for a grace period, a
     * deferred release. */
    uintptr_t key = KEY(BURST_GROW_BASE + index);
    CHECK(weave_registry_set(b->grow, key, obj_new(key, (uint64_t)index)), "burst insert");
    burst_get("burst own key", weave_registry_get(b->grow, key), key);
    if (index % 8 == 0) {
        CHECK(weave_registry_remove(b->grow, key), "burst remove");
    }
    weave_defer_release(obj_new(BURST_DEFERRED, 0));
}

static void *burst_main(void *argument) {
    struct burst_thread *t = argument;
    struct burst *b = t->burst;
    burst_get("burst first read", weave_registry_get(b->registry, BURST_STABLE), BURST_STABLE);
    /* All are alive and have read (so have or lack a record) before any goes on. */
    pthread_barrier_wait(&b->all_read);
    atomic_fetch_add(weave_debug_thread_owns_record() ? &b->owners : &b->record_less, 1);
    burst_note_records(b);
    burst_work(b, t->index);
    return NULL;
}

static void *burst_writer(void *argument) {
    struct burst *b = argument;
    uint64_t serial = 0;
    while (!atomic_load(&b->writer_stop)) {
        weave_registry_set(b->registry, BURST_REPLACED, obj_new(BURST_REPLACED, ++serial));
        if (serial % 8 == 0) {
            weave_generation_advance();
        }
        atomic_fetch_add(&b->writes, 1);
        sched_yield();
    }
    return NULL;
}

static void *owns_after_burst(void *argument) {
    bool *owns = argument;
    burst_get("after the burst", weave_live_get(BURST_STABLE), BURST_STABLE);
    *owns = weave_debug_thread_owns_record();
    return NULL;
}

static void group_thread_burst(void) {
    static struct burst b;
    b.registry = weave_registry_create(NULL);
    b.grow = weave_registry_create(NULL);
    b.slot = weave_slot_create(SLOT_KEY(70));
    weave_registry_set(b.registry, BURST_STABLE, obj_new(BURST_STABLE, 0));
    weave_registry_set(b.registry, BURST_REPLACED, obj_new(BURST_REPLACED, 0));
    weave_live_set(b.registry);
    printf("  %zu epoch records before (bound %d)\n", weave_debug_epoch_records(),
           WEAVE_EPOCH_RECORDS_MAX);

    pthread_t writer;
    if (pthread_create(&writer, NULL, burst_writer, &b) != 0) {
        FAIL("pthread_create writer");
        abort();
    }
    pthread_barrier_init(&b.all_read, NULL, BURST_THREADS);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    struct burst_thread *threads = calloc(BURST_THREADS, sizeof(*threads));
    if (threads == NULL) {
        abort();
    }
    for (int i = 0; i < BURST_THREADS; i++) {
        threads[i].burst = &b;
        threads[i].index = i;
        if (pthread_create(&threads[i].thread, &attributes, burst_main, &threads[i]) != 0) {
            FAIL("pthread_create burst thread %d", i);
            abort();
        }
    }
    for (int i = 0; i < BURST_THREADS; i++) {
        pthread_join(threads[i].thread, NULL);
    }
    atomic_store(&b.writer_stop, true);
    pthread_join(writer, NULL);
    pthread_attr_destroy(&attributes);
    pthread_barrier_destroy(&b.all_read);
    burst_note_records(&b);

    int owners = atomic_load(&b.owners), record_less = atomic_load(&b.record_less);
    long most = atomic_load(&b.most_records);
    printf("  %d threads at once: %d owned a record, %d read through shared records; at most %ld "
           "records registered, %zu after; %ld writes meanwhile\n",
           BURST_THREADS, owners, record_less, most, weave_debug_epoch_records(),
           atomic_load(&b.writes));
    CHECK(most <= WEAVE_EPOCH_RECORDS_MAX, "%ld epoch records registered, bound %d", most,
          WEAVE_EPOCH_RECORDS_MAX);
    CHECK(weave_debug_epoch_records() <= WEAVE_EPOCH_RECORDS_MAX, "%zu records after the burst",
          weave_debug_epoch_records());
    CHECK(owners + record_less == BURST_THREADS, "%d threads reported", owners + record_less);
    CHECK(owners < WEAVE_EPOCH_RECORDS_MAX && record_less >= BURST_THREADS - WEAVE_EPOCH_RECORDS_MAX,
          "%d of %d threads owned a record at once", owners, BURST_THREADS);

    /* Every insert of a burst thread is there, with its value; the removed
     * ones are gone. */
    size_t expected = 0;
    for (int i = 0; i < BURST_THREADS; i++) {
        uintptr_t key = KEY(BURST_GROW_BASE + i);
        test_obj *v = weave_registry_get(b.grow, key);
        if (i % 8 == 0) {
            CHECK(v == NULL, "removed key %d still present", i);
            if (v != NULL) {
                obj_release_cb(v);
            }
            continue;
        }
        expected++;
        if (check_value("grown table", v, key)) {
            CHECK(v->serial == (uint64_t)i, "key %d holds serial %" PRIu64, i, v->serial);
            obj_release_cb(v);
        }
    }
    CHECK(weave_registry_count(b.grow) == expected, "grown table holds %zu keys, expected %zu",
          weave_registry_count(b.grow), expected);

    /* Records come back: a thread started after the burst owns one again. */
    bool owns = false;
    pthread_t late;
    if (pthread_create(&late, NULL, owns_after_burst, &owns) != 0) {
        FAIL("pthread_create late");
        abort();
    }
    pthread_join(late, NULL);
    CHECK(owns, "a thread started after the burst owns no epoch record");

    free(threads);
    weave_live_set(NULL);
    weave_registry_destroy(b.grow);
    weave_registry_destroy(b.registry);
    flush_slots();
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    reads_target = env_long("WEAVE_STRESS_READS", 1000000);
    const char *allow_short = getenv("WEAVE_STRESS_ALLOW_SHORT");
    if (reads_target < 1000000 && !(allow_short != NULL && strcmp(allow_short, "1") == 0)) {
        reads_target = 1000000;
    }
    writer_rounds_target = env_long("WEAVE_STRESS_WRITER_ROUNDS", DEFAULT_WRITER_ROUNDS);
    if (writer_rounds_target < DEFAULT_WRITER_ROUNDS && !(allow_short != NULL && strcmp(allow_short, "1") == 0)) {
        writer_rounds_target = DEFAULT_WRITER_ROUNDS;
    }
    reader_count = (int)env_long("WEAVE_STRESS_READERS", 4);
    if (reader_count < 3) {
        reader_count = 3;
    }
    round_timeout = (double)env_long("WEAVE_STRESS_TIMEOUT", 600);
    only_groups = getenv("WEAVE_STRESS_ONLY");
    if (only_groups != NULL && *only_groups == '\0') {
        only_groups = NULL;
    }

    freed_flags = calloc(MAX_OBJECTS, sizeof(*freed_flags));
    if (freed_flags == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    weave_set_value_callbacks(obj_retain_cb, obj_release_cb);
    printf("registry_stress: %d readers, %ld stable reads and %ld writer rounds per concurrent round, %ld slot reads\n",
           reader_count, reads_target, writer_rounds_target, reads_target / 2);

    double start = now_seconds();
    run_group("basic", group_basic);
    run_group("parent_child", group_parent_child);
    run_group("slots", group_slots);
    run_group("write_in_progress", group_write_in_progress);
    run_group("retire_defer", group_retire_defer);
    run_group("exit_drain", group_exit_drain);
    run_group("thread_churn", group_thread_churn);
    run_group("detached_thread_churn", group_detached_thread_churn);
    run_group("thread_burst", group_thread_burst);
    run_group("concurrent_slots", group_concurrent_slots);
    run_group("concurrent_round_1", group_concurrent_round_1);
    run_group("concurrent_round_2", group_concurrent_round_2); /* new threads: recycled records */
    run_group("accounting", group_accounting);
    free((void *)freed_flags);

    printf("total %.2f s, %ld failed checks\n", now_seconds() - start, atomic_load(&failures));
    printf("%d passed, %d failed\n", groups_passed, groups_failed);
    return groups_failed == 0 && atomic_load(&failures) == 0 ? 0 : 1;
}
