/*
 * Write cost of the C registry (CSources/CWeaveRegistry), measured, not
 * tested: built and run by scripts/write-latency.sh, which prints the
 * command, the machine's load and these figures.
 *
 *   write_latency burst [THREADS]      cost of a register (weave_registry_set
 *                                      replacing a key: a write that waits a
 *                                      grace period) before and after THREADS
 *                                      threads (default 2000) existed at once,
 *                                      each reading while all were alive
 *   write_latency latency [READERS]    latency distribution of the same write
 *                                      (p50, p99, p99.9, max) while READERS
 *                                      threads (default 2) resolve in a loop
 *                                      the way Swift's hot path does (peek,
 *                                      copy, read end)
 *
 * Environment: WRITE_LATENCY_WRITES (writes timed, latency mode, default
 * 200000), WRITE_LATENCY_PIN=1 (run every thread on CPU 0).
 *
 * It builds against any revision's weave_registry.c: the record counter it
 * prints is looked up weakly and shown as "n/a" where the registry has none.
 */
#define _GNU_SOURCE 1

#include "weave_registry.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma weak weave_debug_epoch_records
size_t weave_debug_epoch_records(void);

struct object {
    atomic_long refs;
    uintptr_t key;
    uint64_t serial;
};

static void object_retain(void *value) {
    atomic_fetch_add_explicit(&((struct object *)value)->refs, 1, memory_order_relaxed);
}

static void object_release(void *value) {
    struct object *object = value;
    if (atomic_fetch_sub_explicit(&object->refs, 1, memory_order_acq_rel) == 1) {
        free(object);
    }
}

static struct object *object_new(uintptr_t key, uint64_t serial) {
    struct object *object = malloc(sizeof(*object));
    if (object == NULL) {
        abort();
    }
    atomic_init(&object->refs, 1);
    object->key = key;
    object->serial = serial;
    return object;
}

#define KEY(i) ((uintptr_t)0x1000 + (uintptr_t)(i) * 16)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void records_line(const char *when) {
    if (weave_debug_epoch_records != NULL) {
        printf("%s: %zu epoch records registered\n", when, weave_debug_epoch_records());
    } else {
        printf("%s: epoch records n/a (this registry has no counter)\n", when);
    }
}

static void pin_if_asked(void) {
    const char *pin = getenv("WRITE_LATENCY_PIN");
    if (pin != NULL && strcmp(pin, "1") == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(0, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0) {
            perror("sched_setaffinity");
            exit(2);
        }
    }
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- burst ------------------------------------------------------------ */

static weave_registry_t *burst_registry;
static pthread_barrier_t burst_barrier;
static atomic_long burst_wrong;

static bool read_ok(uintptr_t key) {
    struct object *object = weave_registry_get(burst_registry, key);
    bool ok = object != NULL && object->key == key;
    if (object != NULL) {
        object_release(object);
    }
    struct object *peeked = weave_live_peek(key);
    ok = ok && peeked != NULL && peeked->key == key;
    weave_read_end();
    return ok;
}

static void *burst_thread(void *argument) {
    (void)argument;
    bool ok = read_ok(KEY(1));
    /* Every thread has read (and so holds its record) before any exits. */
    pthread_barrier_wait(&burst_barrier);
    ok = ok && read_ok(KEY(1));
    if (!ok) {
        atomic_fetch_add(&burst_wrong, 1);
    }
    return NULL;
}

/* Median over batches of the mean cost of one replacing set, in ns. */
static double register_cost_ns(uint64_t *serial) {
    enum { batches = 15, per_batch = 2000 };
    double means[batches];
    for (int b = 0; b < batches; b++) {
        uint64_t start = now_ns();
        for (int i = 0; i < per_batch; i++) {
            weave_registry_set(burst_registry, KEY(1), object_new(KEY(1), ++*serial));
        }
        means[b] = (double)(now_ns() - start) / per_batch;
    }
    for (int i = 1; i < batches; i++) {
        for (int j = i; j > 0 && means[j - 1] > means[j]; j--) {
            double t = means[j];
            means[j] = means[j - 1];
            means[j - 1] = t;
        }
    }
    return means[batches / 2];
}

static int run_burst(int threads) {
    pin_if_asked();
    burst_registry = weave_registry_create(NULL);
    weave_live_set(burst_registry);
    uint64_t serial = 0;
    weave_registry_set(burst_registry, KEY(1), object_new(KEY(1), serial));
    for (int i = 0; i < 1000; i++) { /* warm up */
        weave_registry_set(burst_registry, KEY(1), object_new(KEY(1), ++serial));
    }
    records_line("before the burst");
    double before = register_cost_ns(&serial);
    printf("register before the burst: %.3f us (median of 15 batches of 2000)\n", before / 1000);

    pthread_barrier_init(&burst_barrier, NULL, (unsigned)threads);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    pthread_t *ids = calloc((size_t)threads, sizeof(*ids));
    if (ids == NULL) {
        abort();
    }
    uint64_t start = now_ns();
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&ids[i], &attributes, burst_thread, NULL) != 0) {
            fprintf(stderr, "pthread_create failed at thread %d\n", i);
            return 2;
        }
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
    }
    printf("burst: %d threads alive at once, each read before any exited (%.0f ms), %ld wrong reads\n",
           threads, (double)(now_ns() - start) / 1e6, atomic_load(&burst_wrong));
    free(ids);
    pthread_attr_destroy(&attributes);
    pthread_barrier_destroy(&burst_barrier);

    records_line("after the burst");
    double after = register_cost_ns(&serial);
    printf("register after the burst: %.3f us (median of 15 batches of 2000)\n", after / 1000);
    weave_live_set(NULL);
    weave_registry_destroy(burst_registry);
    return atomic_load(&burst_wrong) == 0 ? 0 : 1;
}

/* ---- latency ---------------------------------------------------------- */

#define LATENCY_KEYS 64

static weave_registry_t *latency_registry;
static atomic_bool latency_stop;
static atomic_long latency_reads;
static atomic_long latency_wrong;

static void *latency_reader(void *argument) {
    unsigned int index = (unsigned int)(uintptr_t)argument;
    long reads = 0, wrong = 0;
    while (!atomic_load_explicit(&latency_stop, memory_order_relaxed)) {
        for (unsigned int i = 0; i < 256; i++) {
            uintptr_t key = KEY(1 + (index * 7 + i) % LATENCY_KEYS);
            struct object *object = weave_live_peek(key);
            /* Copy out inside the section, as Resolver.resolve does. */
            uintptr_t seen = object == NULL ? 0 : object->key;
            weave_read_end();
            wrong += seen != key;
        }
        reads += 256;
    }
    atomic_fetch_add(&latency_reads, reads);
    atomic_fetch_add(&latency_wrong, wrong);
    return NULL;
}

static int run_latency(int readers) {
    pin_if_asked();
    const char *writes_env = getenv("WRITE_LATENCY_WRITES");
    long writes = writes_env != NULL ? atol(writes_env) : 200000;
    if (writes < 1000) {
        writes = 1000;
    }
    latency_registry = weave_registry_create(NULL);
    for (int i = 1; i <= LATENCY_KEYS; i++) {
        weave_registry_set(latency_registry, KEY(i), object_new(KEY(i), 0));
    }
    weave_live_set(latency_registry);

    pthread_t ids[64];
    if (readers < 0 || readers > 64) {
        fprintf(stderr, "readers: 0 to 64\n");
        return 2;
    }
    for (int i = 0; i < readers; i++) {
        if (pthread_create(&ids[i], NULL, latency_reader, (void *)(uintptr_t)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 2;
        }
    }
    uint64_t *samples = malloc((size_t)writes * sizeof(*samples));
    if (samples == NULL) {
        abort();
    }
    uint64_t serial = 0;
    for (int i = 0; i < 2000; i++) { /* readers running, caches warm */
        weave_registry_set(latency_registry, KEY(1), object_new(KEY(1), ++serial));
    }
    uint64_t start = now_ns();
    for (long i = 0; i < writes; i++) {
        uintptr_t key = KEY(1 + i % LATENCY_KEYS);
        struct object *object = object_new(key, ++serial);
        uint64_t t0 = now_ns();
        weave_registry_set(latency_registry, key, object);
        samples[i] = now_ns() - t0;
    }
    double seconds = (double)(now_ns() - start) / 1e9;
    atomic_store(&latency_stop, true);
    for (int i = 0; i < readers; i++) {
        pthread_join(ids[i], NULL);
    }
    qsort(samples, (size_t)writes, sizeof(*samples), compare_u64);
    double sum = 0;
    for (long i = 0; i < writes; i++) {
        sum += (double)samples[i];
    }
#define AT(q) ((double)samples[(size_t)((double)(writes - 1) * (q))] / 1000)
    printf("writes %ld with %d reader thread(s)%s, %.2f s, reads %ld (%.1f M/s), wrong reads %ld\n",
           writes, readers, getenv("WRITE_LATENCY_PIN") != NULL ? " pinned to CPU 0" : "", seconds,
           atomic_load(&latency_reads), (double)atomic_load(&latency_reads) / seconds / 1e6,
           atomic_load(&latency_wrong));
    printf("register latency us: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  p99.99 %.2f  max %.2f  mean %.2f\n",
           AT(0.50), AT(0.90), AT(0.99), AT(0.999), AT(0.9999), (double)samples[writes - 1] / 1000,
           sum / (double)writes / 1000);
#undef AT
    free(samples);
    weave_live_set(NULL);
    weave_registry_destroy(latency_registry);
    return atomic_load(&latency_wrong) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    weave_set_value_callbacks(object_retain, object_release);
    if (argc >= 2 && strcmp(argv[1], "burst") == 0) {
        return run_burst(argc >= 3 ? atoi(argv[2]) : 2000);
    }
    if (argc >= 2 && strcmp(argv[1], "latency") == 0) {
        return run_latency(argc >= 3 ? atoi(argv[2]) : 2);
    }
    fprintf(stderr, "usage: %s burst [THREADS] | latency [READERS]\n", argv[0]);
    return 2;
}
