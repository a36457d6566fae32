#ifndef WEAVE_PORTABLE_CK_H
#define WEAVE_PORTABLE_CK_H

/* Included through weave_ck.h only, which decides between this and ck. */
#if defined(WEAVE_CK_PORTABLE)
/*
 * The pieces of Concurrency Kit weave_registry.c uses, with ck's names and
 * the semantics the registry relies on, over C11 <stdatomic.h> and pthreads:
 * the configuration without a system libck, and every CPU but x86-64
 * (weave_ck.h). Only what the
 * registry calls is here; portable_ck.c has the out-of-line parts and the
 * argument for the epoch's grace periods.
 *
 * Differences from ck, none visible to the registry:
 *   ck_pr     loads are acquire and stores release, read-modify-writes and
 *             ck_pr_fence_memory sequentially consistent. ck's x86-64 loads
 *             and stores are plain moves that TSO makes acquire and release,
 *             and the registry's publication and slot protocols were written
 *             against that; on arm64 ck's are relaxed. Asking C11 for the
 *             x86 ordering everywhere keeps the protocols correct on arm64
 *             without an argument from address dependencies, and lets
 *             ThreadSanitizer see every happens-before edge.
 *   ck_epoch  sections only with a NULL section (the type is incomplete);
 *             a deferred call carries the global epoch value of its own tick
 *             and runs once no active record began before that tick, so a
 *             poll never has to advance the epoch.
 *   ck_hs     only CK_HS_MODE_OBJECT | CK_HS_MODE_SPMC, linear probing, no
 *             probe bounds; entries never move inside a published array
 *             (growth, gc and reset_size publish a new one), so readers need
 *             no generation counters.
 * The out-of-line functions are renamed (weave_ck_*) so that a program that
 * also links a libck for another reason gets no clash.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The casts below read plain objects (the registry's declarations are
 * ck's plain types) through _Atomic lvalues: sound where the atomic type is
 * lock-free and laid out as the plain one, as on every target this builds
 * for; the build fails elsewhere rather than guess. One exception, by
 * design: a 64-bit atomic may need more alignment than a plain uint64_t (8
 * against 4 on i386, where a misaligned one is not atomic), so every 64-bit
 * object the registry hands to ck_pr_*_64 is declared _Alignas(8), and the
 * assertion is only that 8 is enough. */
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "pointer atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "unsigned int atomics must be lock-free");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(sizeof(_Atomic(void *)) == sizeof(void *) && _Alignof(_Atomic(void *)) == _Alignof(void *),
               "an atomic pointer must be laid out as a pointer");
_Static_assert(sizeof(_Atomic(unsigned int)) == sizeof(unsigned int) &&
                   _Alignof(_Atomic(unsigned int)) == _Alignof(unsigned int),
               "an atomic unsigned int must be laid out as an unsigned int");
_Static_assert(sizeof(_Atomic(uint64_t)) == sizeof(uint64_t) && _Alignof(_Atomic(uint64_t)) <= 8,
               "an atomic uint64_t must be a uint64_t aligned to at most 8");

#define CK_CC_LIKELY(x) (__builtin_expect(!!(x), 1))

/* ---- ck_pr ----------------------------------------------------------- */

static inline void *ck_pr_load_ptr(const void *target) {
    return atomic_load_explicit((void *_Atomic const *)target, memory_order_acquire);
}

static inline void ck_pr_store_ptr(void *target, const void *value) {
    atomic_store_explicit((void *_Atomic *)target, (void *)(uintptr_t)value, memory_order_release);
}

static inline unsigned int ck_pr_load_uint(const unsigned int *target) {
    return atomic_load_explicit((_Atomic(unsigned int) const *)target, memory_order_acquire);
}

static inline void ck_pr_store_uint(unsigned int *target, unsigned int value) {
    atomic_store_explicit((_Atomic(unsigned int) *)target, value, memory_order_release);
}

static inline uint64_t ck_pr_load_64(const uint64_t *target) {
    return atomic_load_explicit((_Atomic(uint64_t) const *)target, memory_order_acquire);
}

static inline bool ck_pr_cas_64(uint64_t *target, uint64_t compare, uint64_t set) {
    return atomic_compare_exchange_strong_explicit((_Atomic(uint64_t) *)target, &compare, set, memory_order_seq_cst,
                                                   memory_order_seq_cst);
}

static inline bool ck_pr_cas_ptr(void *target, void *compare, void *set) {
    return atomic_compare_exchange_strong_explicit((void *_Atomic *)target, &compare, set, memory_order_seq_cst,
                                                   memory_order_seq_cst);
}

/* ck's form: *value receives what target held (compare on success). */
static inline bool ck_pr_cas_uint_value(unsigned int *target, unsigned int compare, unsigned int set,
                                        unsigned int *value) {
    bool done = atomic_compare_exchange_strong_explicit((_Atomic(unsigned int) *)target, &compare, set,
                                                        memory_order_seq_cst, memory_order_seq_cst);
    *value = compare;
    return done;
}

static inline uint64_t ck_pr_faa_64(uint64_t *target, uint64_t delta) {
    return atomic_fetch_add_explicit((_Atomic(uint64_t) *)target, delta, memory_order_seq_cst);
}

static inline unsigned int ck_pr_faa_uint(unsigned int *target, unsigned int delta) {
    return atomic_fetch_add_explicit((_Atomic(unsigned int) *)target, delta, memory_order_seq_cst);
}

static inline void *ck_pr_fas_ptr(void *target, void *value) {
    return atomic_exchange_explicit((void *_Atomic *)target, value, memory_order_seq_cst);
}

/* Each at least as strong as ck's: load-load, store-store, full. */
static inline void ck_pr_fence_load(void) { atomic_thread_fence(memory_order_acquire); }
static inline void ck_pr_fence_store(void) { atomic_thread_fence(memory_order_release); }
static inline void ck_pr_fence_memory(void) { atomic_thread_fence(memory_order_seq_cst); }

/* ---- ck_stack -------------------------------------------------------- */

typedef struct ck_stack_entry {
    struct ck_stack_entry *next;
} ck_stack_entry_t;

typedef struct ck_stack {
    ck_stack_entry_t *head;
} ck_stack_t;

#define CK_STACK_INITIALIZER {NULL}

#define WEAVE_CK_CONTAINER(F, T, M, N)                                                             \
    static inline T *N(F *member) { return (T *)(void *)((char *)member - offsetof(T, M)); }

#define CK_STACK_CONTAINER(T, M, N) WEAVE_CK_CONTAINER(ck_stack_entry_t, T, M, N)

/* Any number of pushers against poppers that take the whole stack: no ABA,
 * since nothing pops a single entry. */
static inline void ck_stack_push_upmc(ck_stack_t *stack, ck_stack_entry_t *entry) {
    ck_stack_entry_t *head = atomic_load_explicit((ck_stack_entry_t *_Atomic *)&stack->head, memory_order_relaxed);
    do {
        entry->next = head;
    } while (!atomic_compare_exchange_weak_explicit((ck_stack_entry_t *_Atomic *)&stack->head, &head, entry,
                                                    memory_order_release, memory_order_relaxed));
}

static inline ck_stack_entry_t *ck_stack_batch_pop_upmc(ck_stack_t *stack) {
    return atomic_exchange_explicit((ck_stack_entry_t *_Atomic *)&stack->head, NULL, memory_order_acquire);
}

/* ---- ck_epoch -------------------------------------------------------- */

typedef struct ck_epoch_entry ck_epoch_entry_t;
typedef void ck_epoch_cb_t(ck_epoch_entry_t *);

struct ck_epoch_entry {
    ck_epoch_cb_t *function;
    ck_stack_entry_t stack_entry; /* links the owner's pending queue */
    uint64_t epoch;               /* the global epoch after ck_epoch_call's tick */
};

#define CK_EPOCH_CONTAINER(T, M, N) WEAVE_CK_CONTAINER(ck_epoch_entry_t, T, M, N)

/* Never defined: sections other than NULL are not supported. */
typedef struct ck_epoch_section ck_epoch_section_t;

typedef struct ck_epoch {
    _Atomic(uint64_t) epoch; /* only grows, by read-modify-writes (portable_ck.c) */
    _Atomic(unsigned int) n_free;
    ck_stack_t records; /* every record ever registered; never shrinks */
} ck_epoch_t;

/* One cache line: a grace period's scan reads link, active and epoch of
 * every record, and readers write active and epoch of their own. */
typedef struct ck_epoch_record {
    _Alignas(64) ck_stack_entry_t record_next;
    ck_epoch_t *global;
    _Atomic(unsigned int) state;  /* WEAVE_CK_RECORD_USED or _FREE */
    _Atomic(unsigned int) active; /* section depth; written by the owner only */
    _Atomic(uint64_t) epoch;      /* the global epoch read by the outermost begin */
    /* The owner's alone (a shared record never defers anything). */
    unsigned int n_pending;
    ck_epoch_entry_t *pending_head; /* oldest first, so epochs ascend */
    ck_epoch_entry_t *pending_tail;
    void *ct;
} ck_epoch_record_t;

typedef void ck_epoch_wait_cb_t(ck_epoch_t *, ck_epoch_record_t *, void *);

#define ck_epoch_init weave_ck_epoch_init
#define ck_epoch_register weave_ck_epoch_register
#define ck_epoch_unregister weave_ck_epoch_unregister
#define ck_epoch_recycle weave_ck_epoch_recycle
#define ck_epoch_call weave_ck_epoch_call
#define ck_epoch_poll weave_ck_epoch_poll
#define ck_epoch_synchronize weave_ck_epoch_synchronize
#define ck_epoch_synchronize_wait weave_ck_epoch_synchronize_wait
#define ck_epoch_barrier weave_ck_epoch_barrier
#define ck_epoch_barrier_wait weave_ck_epoch_barrier_wait

void ck_epoch_init(ck_epoch_t *epoch);
void ck_epoch_register(ck_epoch_t *epoch, ck_epoch_record_t *record, void *ct);
/* The record must be outside any section and have nothing pending. */
void ck_epoch_unregister(ck_epoch_record_t *record);
ck_epoch_record_t *ck_epoch_recycle(ck_epoch_t *epoch, void *ct);
void ck_epoch_call(ck_epoch_record_t *record, ck_epoch_entry_t *entry, ck_epoch_cb_t *function);
bool ck_epoch_poll(ck_epoch_record_t *record);
void ck_epoch_synchronize(ck_epoch_record_t *record);
void ck_epoch_synchronize_wait(ck_epoch_t *epoch, ck_epoch_wait_cb_t *cb, void *ct);
void ck_epoch_barrier(ck_epoch_record_t *record);
void ck_epoch_barrier_wait(ck_epoch_record_t *record, ck_epoch_wait_cb_t *cb, void *ct);

/*
 * Only the outermost begin publishes: active first, then (after a full
 * fence, the store-load order the grace period's Dekker argument needs) the
 * epoch it read. Nested sections only count.
 */
static inline void ck_epoch_begin(ck_epoch_record_t *record, ck_epoch_section_t *section) {
    (void)section;
    unsigned int active = atomic_load_explicit(&record->active, memory_order_relaxed);
    if (active == 0) {
        atomic_store_explicit(&record->active, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        uint64_t epoch = atomic_load_explicit(&record->global->epoch, memory_order_acquire);
        atomic_store_explicit(&record->epoch, epoch, memory_order_release);
    } else {
        atomic_store_explicit(&record->active, active + 1, memory_order_relaxed);
    }
}

/* True when this closed the outermost section. The release orders every
 * read of the section before a scan that sees the record idle. */
static inline bool ck_epoch_end(ck_epoch_record_t *record, ck_epoch_section_t *section) {
    (void)section;
    unsigned int active = atomic_load_explicit(&record->active, memory_order_relaxed) - 1;
    atomic_store_explicit(&record->active, active, memory_order_release);
    return active == 0;
}

/* ---- ck_hs ----------------------------------------------------------- */

#define CK_HS_MODE_SPMC 1
#define CK_HS_MODE_OBJECT 8

typedef unsigned long ck_hs_hash_cb_t(const void *, unsigned long);
typedef bool ck_hs_compare_cb_t(const void *, const void *);
typedef void *ck_hs_apply_fn_t(void *, void *);

/* free's last argument: the memory may still be read by a reader, so it
 * must outlive a grace period (the registry defers it through the epoch). */
struct ck_malloc {
    void *(*malloc)(size_t);
    void *(*realloc)(void *, size_t, size_t, bool);
    void (*free)(void *, size_t, bool);
};

struct ck_hs_map;

typedef struct ck_hs {
    struct ck_malloc *m;
    struct ck_hs_map *_Atomic map; /* replaced whole, never changed in place by a move */
    unsigned int mode;
    unsigned long seed;
    ck_hs_hash_cb_t *hf;
    ck_hs_compare_cb_t *compare;
} ck_hs_t;

typedef struct ck_hs_iterator {
    unsigned long offset;
} ck_hs_iterator_t;

#define CK_HS_ITERATOR_INITIALIZER {0}

#define ck_hs_init weave_ck_hs_init
#define ck_hs_destroy weave_ck_hs_destroy
#define ck_hs_get weave_ck_hs_get
#define ck_hs_apply weave_ck_hs_apply
#define ck_hs_remove weave_ck_hs_remove
#define ck_hs_gc weave_ck_hs_gc
#define ck_hs_reset_size weave_ck_hs_reset_size
#define ck_hs_count weave_ck_hs_count
#define ck_hs_next weave_ck_hs_next

/* One writer at a time (the caller's lock) for everything but get, which
 * any number of readers call without a lock, each inside an epoch section. */
bool ck_hs_init(ck_hs_t *hs, unsigned int mode, ck_hs_hash_cb_t *hf, ck_hs_compare_cb_t *compare,
                struct ck_malloc *m, unsigned long capacity, unsigned long seed);
void ck_hs_destroy(ck_hs_t *hs);
void *ck_hs_get(ck_hs_t *hs, unsigned long hash, const void *key);
/* One probe for key, then fn(the equal object or NULL, closure) decides:
 * NULL removes the object (if any), the same object changes nothing, any
 * other is stored in its place or inserted. False only if growing failed,
 * before fn was called. */
bool ck_hs_apply(ck_hs_t *hs, unsigned long hash, const void *key, ck_hs_apply_fn_t *fn, void *closure);
void *ck_hs_remove(ck_hs_t *hs, unsigned long hash, const void *key);
/* Always a full rebuild that drops the tombstones; cycles and seed are
 * accepted for ck's signature and ignored. */
bool ck_hs_gc(ck_hs_t *hs, unsigned long cycles, unsigned long seed);
bool ck_hs_reset_size(ck_hs_t *hs, unsigned long capacity);
unsigned long ck_hs_count(ck_hs_t *hs);
bool ck_hs_next(ck_hs_t *hs, ck_hs_iterator_t *iterator, void **object);

#endif /* WEAVE_CK_PORTABLE */
#endif
