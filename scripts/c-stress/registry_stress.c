/*
 * Stress and semantics test for the C registry (CSources/CWeaveRegistry).
 *
 * Pure C11 + pthreads. Built by scripts/sanitize.sh together with Concurrency
 * Kit's own sources under AddressSanitizer+UBSan and under ThreadSanitizer;
 * it also builds and runs without any sanitizer:
 *
 *   cc -std=c11 -O1 -pthread -ICSources/CWeaveRegistry/include \
 *      scripts/c-stress/registry_stress.c CSources/CWeaveRegistry/weave_registry.c -lck
 *
 * Values are small malloc'd objects with an atomic reference count and a magic
 * field that is checked on every retain, release and read. The last release
 * poisons the object and frees it, and records that the object's id was freed
 * (a second free of the same id is a failure). At the end every registry and
 * cell is destroyed and every object ever created must have been freed exactly
 * once.
 *
 * Environment (all optional):
 *   WEAVE_STRESS_READS    stable-key resolutions per concurrent round, summed
 *                         over all readers (default 1000000, minimum 1000000
 *                         unless WEAVE_STRESS_ALLOW_SHORT=1)
 *   WEAVE_STRESS_READERS  reader threads (default 4, minimum 3)
 *   WEAVE_STRESS_TIMEOUT  seconds a concurrent round may take (default 600)
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

/* The read-section ("peek") API is newer than the rest; reference it weakly
 * so this test still builds and runs (skipping those checks, and saying so)
 * against a registry without it. */
#pragma weak weave_registry_peek
#pragma weak weave_live_peek
#pragma weak weave_cell_peek
#pragma weak weave_read_end

static bool peek_api(void) {
    return weave_registry_peek != NULL && weave_live_peek != NULL && weave_cell_peek != NULL &&
           weave_read_end != NULL;
}

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
#define MAX_OBJECTS (1u << 22)

typedef struct test_obj test_obj;
typedef void (*obj_free_hook)(test_obj *obj);

struct test_obj {
    _Atomic uint64_t magic;
    atomic_long refs;
    uint64_t id;         /* unique, sequential */
    uintptr_t key;       /* the key (or generation) this value belongs to */
    uint64_t serial;     /* writer-assigned, monotonic per key */
    obj_free_hook on_free; /* runs once, just before the object is freed */
    void *hook_context;
};

static atomic_uint_fast64_t next_id;
static atomic_long live_objects;
static atomic_long freed_objects;
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
    obj->on_free = NULL;
    obj->hook_context = NULL;
    atomic_init(&obj->refs, 1);
    atomic_fetch_add_explicit(&live_objects, 1, memory_order_relaxed);
    /* Relaxed: the fields above reach other threads only through the
     * registry's or the cell's own publication, which is what TSan checks. */
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

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* Keys look like type metadata pointers: aligned and clustered. */
#define KEY(n) ((uintptr_t)0x7f3a12340000ULL + ((uintptr_t)(n) << 4))

/* ------------------------------------------------------------------------ */
/* Group 1: single-threaded semantics of the whole API                       */

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
    CHECK(!weave_registry_remove(r, KEY(1)), "remove on empty");

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
    CHECK(weave_registry_count(r) == 1, "count 1");

    /* Replace: the old value is released (after a grace period), once. */
    test_obj *b = obj_new(KEY(1), 2);
    CHECK(weave_registry_set(r, KEY(1), b), "replace with b");
    CHECK(refs_of(a) == 1, "replaced value released once, refs=%ld", refs_of(a));
    CHECK(weave_registry_count(r) == 1, "count still 1 after replace");

    /* replace_if: fails on a stale expected value, keeping the caller's ref. */
    test_obj *c = obj_new(KEY(1), 3);
    CHECK(!weave_registry_replace_if(r, KEY(1), a, c), "replace_if with stale expected");
    CHECK(refs_of(c) == 1 && refs_of(b) == 1, "failed replace_if touches no count");
    CHECK(!weave_registry_replace_if(r, KEY(2), b, c), "replace_if on a missing key");
    obj_retain_cb(b);
    CHECK(weave_registry_replace_if(r, KEY(1), b, c), "replace_if with current expected");
    CHECK(refs_of(b) == 1 && refs_of(c) == 1, "replace_if released expected, took c");
    obj_release_cb(b);
    obj_release_cb(a);

    /* replace_if with expected == value keeps exactly one stored reference. */
    obj_retain_cb(c);
    obj_retain_cb(c);
    CHECK(weave_registry_replace_if(r, KEY(1), c, c), "replace_if(c, c)");
    CHECK(refs_of(c) == 2, "replace_if(c, c) refs=%ld", refs_of(c));
    obj_release_cb(c);

    /* Many keys: growth from the initial capacity, each, remove, clear. */
    for (int i = 10; i < 10 + 200; i++) {
        CHECK(weave_registry_set(r, KEY(i), obj_new(KEY(i), 0)), "set key %d", i);
    }
    CHECK(weave_registry_count(r) == 201, "count 201, got %zu", weave_registry_count(r));
    for (int i = 10; i < 10 + 200; i++) {
        test_obj *v = weave_registry_get(r, KEY(i));
        check_value("after growth", v, KEY(i));
        if (v != NULL) {
            obj_release_cb(v);
        }
    }
    struct each_state all = {0};
    weave_registry_each(r, &all, each_body);
    CHECK(all.calls == 201 && all.bad == 0, "each visits every key once: %d", all.calls);
    struct each_state some = {.stop_after = 5};
    weave_registry_each(r, &some, each_body);
    CHECK(some.calls == 5, "each stops when body returns false: %d", some.calls);

    for (int i = 10; i < 10 + 200; i += 2) {
        CHECK(weave_registry_remove(r, KEY(i)), "remove %d", i);
        CHECK(!weave_registry_remove(r, KEY(i)), "second remove %d", i);
    }
    CHECK(weave_registry_count(r) == 101, "count 101, got %zu", weave_registry_count(r));
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
    CHECK(weave_registry_count(r) == 101, "count after gc rounds %zu", weave_registry_count(r));

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
    CHECK(cleared == 101, "clear returns the count, got %zu", cleared);
    CHECK(weave_registry_count(r) == 0, "empty after clear");
    CHECK(atomic_load(&live_objects) == live_before_clear - 101,
          "clear released every value");
    CHECK(weave_registry_get(r, KEY(11)) == NULL, "cleared key resolves");
    CHECK(weave_registry_clear(r) == 0, "clear of empty registry");
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
        case 2: {
            test_obj *next = obj_new(KEY(901), 2);
            CHECK(weave_registry_replace_if(r, KEY(901), hooked, next), "replace_if hooked");
            break;
        }
        case 3: weave_registry_clear(r); break;
        case 4: weave_registry_destroy(target); break;
        }
        CHECK(reentry.fired == path + 1, "release hook ran on path %d (%d)", path, reentry.fired);
    }
    weave_registry_destroy(other);
    CHECK(weave_registry_set(r, KEY(11), obj_new(KEY(11), 0)), "set after the clear path");

    /* Cells. */
    weave_cell_t *cell = weave_cell_create();
    CHECK(cell != NULL, "cell create");
    CHECK(weave_cell_load(cell, 1) == NULL, "empty cell");
    test_obj *v1 = obj_new(1, 1);
    weave_cell_store(cell, 1, v1);
    test_obj *loaded = weave_cell_load(cell, 1);
    CHECK(loaded == v1 && refs_of(v1) == 2, "cell load retains");
    if (loaded != NULL) {
        obj_release_cb(loaded);
    }
    CHECK(weave_cell_load(cell, 2) == NULL, "cell generation mismatch");
    test_obj *v2 = obj_new(2, 2);
    obj_retain_cb(v1);
    weave_cell_store(cell, 2, v2);
    CHECK(refs_of(v1) == 1, "cell store released the previous value");
    obj_release_cb(v1);
    CHECK(weave_cell_load(cell, 1) == NULL, "old generation after store");
    weave_cell_destroy(cell);
    weave_cell_destroy(NULL);

    /* Peek: inside a read section, no reference taken; always end it. */
    if (peek_api()) {
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
        weave_cell_t *peek_cell = weave_cell_create();
        CHECK(weave_cell_peek(peek_cell, 1) == NULL, "peek of an empty cell");
        weave_read_end();
        test_obj *cv = obj_new(7, 7);
        weave_cell_store(peek_cell, 7, cv);
        CHECK(weave_cell_peek(peek_cell, 7) == cv && refs_of(cv) == 1, "cell peek, unretained");
        weave_read_end();
        CHECK(weave_cell_peek(peek_cell, 8) == NULL, "cell peek, other generation");
        weave_read_end();
        weave_cell_destroy(peek_cell);
        CHECK(weave_live_peek(KEY(500)) == NULL, "live peek without a live registry");
        weave_read_end();
        weave_live_set(peek_child);
        CHECK(weave_live_peek(KEY(500)) == pv, "live peek through the parent");
        weave_read_end();
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
        struct timespec pause = {0, 30000000};
        nanosleep(&pause, NULL);
        CHECK(obj_valid(seen) && seen->key == KEY(500), "peeked value died inside the section");
        CHECK(atomic_load(&freed_flags[pv_id]) == 0, "peeked value freed inside the section");
        CHECK(!atomic_load(&remover.finished), "remove returned before the section ended");
        weave_read_end();
        pthread_join(remover.thread, NULL);
        CHECK(remover.removed, "concurrent remove");
        CHECK(atomic_load(&freed_flags[pv_id]) == 1, "removed value released after the section");
        weave_registry_destroy(peek_child);
        weave_registry_destroy(peek_parent);
    } else {
        printf("  peek API not present: skipping its checks\n");
    }

    /* Live registry. */
    CHECK(weave_live_get(KEY(11)) == NULL, "no live registry yet");
    weave_live_set(r);
    test_obj *live = weave_live_get(KEY(11));
    CHECK(check_value("live get", live, KEY(11)), "live get");
    if (live != NULL) {
        obj_release_cb(live);
    }
    weave_live_set(NULL);
    CHECK(weave_live_get(KEY(11)) == NULL, "live registry unset");

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
    }

    /* Removing the child's shadowing entry reveals the parent's. */
    CHECK(weave_registry_remove(child, KEY(2)), "remove shadow");
    test_obj *v = weave_registry_get(grandchild, KEY(2));
    CHECK(v != NULL && v->serial == 100, "parent value after removing the shadow");
    if (v != NULL) {
        obj_release_cb(v);
    }
    /* Clearing the child does not touch the parent. */
    weave_registry_clear(child);
    v = weave_registry_get(child, KEY(1));
    CHECK(v != NULL && v->serial == 100, "parent survives a child clear");
    if (v != NULL) {
        obj_release_cb(v);
    }
    CHECK(weave_registry_count(parent) == 2, "parent count");

    /* Live lookups search the live registry's parents. */
    weave_live_set(grandchild);
    v = weave_live_get(KEY(1));
    CHECK(v != NULL && v->serial == 100, "live get through parents");
    if (v != NULL) {
        obj_release_cb(v);
    }
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
/* Groups 3+: concurrent readers and writers                                  */

#define STABLE_KEY KEY(1)        /* in P, same object forever; never removed */
#define REPLACED_KEY KEY(2)      /* in P, value replaced with rising serials */
#define LIVE_KEY KEY(3)          /* in each live registry */
#define LIVE_FILL_BASE 3000      /* filled into each fresh live registry while */
#define LIVE_FILL_KEYS 100       /* it is live: growth 32 -> 256 under readers */
#define CHURN_BASE 1000          /* keys churned in C, the child of P */
#define CHURN_KEYS 128
#define PARENT_CHURN_BASE 5000   /* keys churned in P itself */
#define PARENT_CHURN_KEYS 96

struct stress {
    weave_registry_t *parent;  /* P */
    weave_registry_t *child;   /* C: readers resolve STABLE_KEY through it */
    weave_cell_t *cell;
    test_obj *stable;
    uint64_t stable_id;
    _Atomic uint64_t cell_generation;
    atomic_bool stop;         /* readers stop */
    atomic_bool writers_stop; /* writers stop, once every reader has */
    atomic_long writer_rounds;
    atomic_long swapper_rounds;
    atomic_long clears;
    atomic_long grows;
    atomic_long live_swaps;
    atomic_long cell_stores;
};

struct reader {
    pthread_t thread;
    struct stress *stress;
    int index;
    atomic_long stable_reads;
    long churn_hits;
    long churn_misses;
    long cell_hits;
    long live_reads;
    long peeks;
};

static void *reader_main(void *argument) {
    struct reader *reader = argument;
    struct stress *s = reader->stress;
    uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(reader->index + 1);
    uint64_t last_replaced_serial = 0;
    test_obj *held = NULL; /* one value kept across iterations */
    long iteration = 0;
    bool use_peek = peek_api();

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

        /* The cell: a hit must carry the generation asked for. */
        uint64_t generation = atomic_load_explicit(&s->cell_generation, memory_order_acquire);
        test_obj *cv = weave_cell_load(s->cell, generation);
        if (cv != NULL) {
            reader->cell_hits++;
            check_value("cell", cv, (uintptr_t)generation);
            obj_release_cb(cv);
        }

        /* The same reads through the peek API: no reference is taken, the
         * values must stay valid until weave_read_end. Sections nest. */
        if (use_peek) {
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
            test_obj *pg = weave_cell_peek(s->cell, generation);
            if (pg != NULL) {
                check_value("cell peek", pg, (uintptr_t)generation);
            }
            if ((pick & 0xff0) == 0x10) {
                sched_yield(); /* stay in the section across writer steps */
                CHECK(obj_valid(pr) && (pc == NULL || obj_valid(pc)) && obj_valid(pl) &&
                          (pg == NULL || obj_valid(pg)),
                      "peeked value died inside its read section");
            }
            for (int i = 0; i < 5; i++) {
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
                /* replace_if against the current value succeeds ... */
                test_obj *next = obj_new(key, ++serial[i]);
                if (!weave_registry_replace_if(s->child, key, v, next)) {
                    FAIL("replace_if with the current value failed (key %d)", i);
                    obj_release_cb(next);
                    serial[i]--;
                }
                /* ... and against the now stale one fails, keeping ours. */
                test_obj *stale = obj_new(key, 0);
                CHECK(!weave_registry_replace_if(s->child, key, v, stale),
                      "replace_if with a stale value succeeded");
                obj_release_cb(stale);
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

        /* Every few rounds clear C; put the stable key right back (same
         * object, so readers see no difference: it is in P as well). */
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

/* Writer 2: live registry swaps and cell stores. */
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
             * slots (ck_hs_reset keeps a table's size, so only fresh tables
             * grow). */
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

        /* Cell: store generation g, then announce it. The value stored under
         * generation g carries key g. */
        for (int i = 0; i < 4; i++) {
            uint64_t generation = atomic_load(&s->cell_generation) + 1;
            weave_cell_store(s->cell, generation, obj_new((uintptr_t)generation, generation));
            atomic_store_explicit(&s->cell_generation, generation, memory_order_release);
            test_obj *mine = weave_cell_load(s->cell, generation);
            if (check_value("cell own store", mine, (uintptr_t)generation)) {
                obj_release_cb(mine);
            }
            CHECK(weave_cell_load(s->cell, generation - 1) == NULL, "stale generation hit");
            atomic_fetch_add(&s->cell_stores, 1);
        }
        atomic_fetch_add(&s->swapper_rounds, 1);
        writer_pause();
    }
    weave_live_set(NULL);
    weave_registry_destroy(live[0]);
    weave_registry_destroy(live[1]);
    return NULL;
}

/* A round ends once the readers made reads_target stable reads and both
 * writers made this many rounds (each writer round replaces, removes and
 * re-adds 128 keys of C, churns 96 of P and clears C every 4th round). */
#define MIN_WRITER_ROUNDS 200
#define MIN_SWAPPER_ROUNDS 400

static long reads_target;
static int reader_count;
static double round_timeout;

static void group_concurrent(int round) {
    struct stress s;
    memset(&s, 0, sizeof(s));
    s.parent = weave_registry_create(NULL);
    s.child = weave_registry_create(s.parent);
    s.cell = weave_cell_create();
    s.stable = obj_new(STABLE_KEY, 1);
    s.stable_id = s.stable->id;
    obj_retain_cb(s.stable); /* ours, checked at the end */
    weave_registry_set(s.parent, STABLE_KEY, s.stable);
    weave_registry_set(s.parent, REPLACED_KEY, obj_new(REPLACED_KEY, 1));
    atomic_init(&s.cell_generation, 0);
    atomic_init(&s.stop, false);
    atomic_init(&s.writers_stop, false);

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
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    weave_registry_destroy(bootstrap);

    long total = 0;
    for (;;) {
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
        total = 0;
        for (int i = 0; i < reader_count; i++) {
            total += atomic_load_explicit(&readers[i].stable_reads, memory_order_relaxed);
        }
        bool enough = total >= reads_target && atomic_load(&s.writer_rounds) >= MIN_WRITER_ROUNDS &&
                      atomic_load(&s.swapper_rounds) >= MIN_SWAPPER_ROUNDS;
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
    long churn_hits = 0, churn_misses = 0, cell_hits = 0, live_reads = 0, peeks = 0;
    for (int i = 0; i < reader_count; i++) {
        pthread_join(readers[i].thread, NULL);
        churn_hits += readers[i].churn_hits;
        churn_misses += readers[i].churn_misses;
        cell_hits += readers[i].cell_hits;
        live_reads += readers[i].live_reads;
        peeks += readers[i].peeks;
    }
    atomic_store(&s.writers_stop, true);
    pthread_join(writer, NULL);
    pthread_join(swapper, NULL);
    total = 0;
    for (int i = 0; i < reader_count; i++) {
        total += atomic_load(&readers[i].stable_reads);
    }
    printf("  round %d: %.2f s, %d readers, %ld stable reads, churn %ld hits / %ld misses, "
           "%ld live reads, %ld cell hits, %ld peek sections; writer %ld rounds (%ld clears), "
           "%ld live swaps, %ld cell stores\n",
           round, now_seconds() - start, reader_count, total, churn_hits, churn_misses,
           live_reads, cell_hits, peeks, atomic_load(&s.writer_rounds), atomic_load(&s.clears),
           atomic_load(&s.live_swaps), atomic_load(&s.cell_stores));
    CHECK(total >= reads_target, "stable reads %ld < %ld", total, reads_target);

    /* Teardown: child first (the parent must outlive it). */
    weave_cell_destroy(s.cell);
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

static void run_group(const char *name, void (*body)(void)) {
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

static void group_concurrent_round_1(void) { group_concurrent(1); }
static void group_concurrent_round_2(void) { group_concurrent(2); }

static void group_accounting(void) {
    uint64_t created = atomic_load(&next_id);
    long live = atomic_load(&live_objects);
    long freed = atomic_load(&freed_objects);
    printf("  objects created %" PRIu64 ", freed %ld, live %ld\n", created, freed, live);
    CHECK(live == 0, "%ld objects were never released", live);
    CHECK((uint64_t)freed == created, "created %" PRIu64 " != freed %ld", created, freed);
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
    struct timespec pause = {0, 50000000};
    nanosleep(&pause, NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(weave_registry_count(spawners[i].registry) == 0, "detached registry not empty");
        weave_registry_destroy(spawners[i].registry);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    reads_target = env_long("WEAVE_STRESS_READS", 1000000);
    const char *allow_short = getenv("WEAVE_STRESS_ALLOW_SHORT");
    if (reads_target < 1000000 && !(allow_short != NULL && strcmp(allow_short, "1") == 0)) {
        reads_target = 1000000;
    }
    reader_count = (int)env_long("WEAVE_STRESS_READERS", 4);
    if (reader_count < 3) {
        reader_count = 3;
    }
    round_timeout = (double)env_long("WEAVE_STRESS_TIMEOUT", 600);

    freed_flags = calloc(MAX_OBJECTS, sizeof(*freed_flags));
    if (freed_flags == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    weave_set_value_callbacks(obj_retain_cb, obj_release_cb);
    printf("registry_stress: %d readers, %ld stable reads per concurrent round\n", reader_count,
           reads_target);

    double start = now_seconds();
    run_group("basic", group_basic);
    run_group("parent_child", group_parent_child);
    run_group("thread_churn", group_thread_churn);
    run_group("detached_thread_churn", group_detached_thread_churn);
    run_group("concurrent_round_1", group_concurrent_round_1);
    run_group("concurrent_round_2", group_concurrent_round_2); /* new threads: recycled records */
    run_group("accounting", group_accounting);
    free((void *)freed_flags);

    printf("total %.2f s, %ld failed checks\n", now_seconds() - start, atomic_load(&failures));
    printf("%d passed, %d failed\n", groups_passed, groups_failed);
    return groups_failed == 0 && atomic_load(&failures) == 0 ? 0 : 1;
}
