#include "weave_registry.h"

#include "weave_ck.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

/*
 * ThreadSanitizer cannot see the ordering ck provides: its x86-64 ck_pr_*
 * helpers are inline asm and libck.so is not instrumented. Under TSan, state
 * the happens-before edges explicitly; elsewhere these compile to nothing.
 *   publication:  a writer releases an object before making it reachable
 *                 (node, node->value, live registry, slot box, slot); a reader
 *                 acquires it once it has reached it.
 *   grace period: every read section releases `global_epoch` as it ends; a
 *                 writer acquires it once its grace period is over, before
 *                 it frees or releases anything a section could have seen.
 *   records:      a thread releases its epoch record before unregistering
 *                 it; the thread that recycles it acquires it.
 * On the portable layer (WEAVE_CK_PORTABLE, weave_ck.h) the ck pieces are
 * portable_ck.c's C11 atomics, which TSan sees; these edges are then
 * redundant (scripts/sanitize.sh also runs that build with them compiled
 * out).
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

static weave_value_fn value_retain;
static weave_value_fn value_release;

/* The stress test's builds only: a function a write calls between its change
 * and its completion, to read from inside that window. */
#ifdef WEAVE_STRESS_HOOKS
void (*weave_stress_mid_write)(void);
#define MID_WRITE()                                                                                \
    do {                                                                                           \
        if (weave_stress_mid_write != NULL) {                                                      \
            weave_stress_mid_write();                                                              \
        }                                                                                          \
    } while (0)
#else
#define MID_WRITE() ((void)0)
#endif

/*
 * Reclamation: one process-wide epoch. Readers wrap every dereference in a
 * read section. Writers unlink, advance the generation, then wait out one
 * grace period (ck_epoch_synchronize) before they release anything a
 * section could have seen; nothing else ever waits. Table memory freed by a
 * resize is deferred with ck_epoch_call.
 *
 * Records are bounded. ck never takes a record off its global list, and every
 * grace period and every poll scans the whole list, so with one record per
 * thread a burst of 2,000 threads made every later write walk 2,000 records
 * (16 us per register instead of 0.27 us) for the rest of the process. At most
 * WEAVE_EPOCH_RECORDS_MAX records are ever registered, from one static array
 * (contiguous, so a scan streams through it). EPOCH_SHARED_RECORDS of them are
 * shared; each of the others is owned by one thread at a time, found through
 * thread_record, given back by the thread-exit destructor and recycled by the
 * next thread that needs one.
 *
 * A thread that finds every owned record held by a live thread is
 * record-less. Its outermost read section borrows a shared record, holding
 * that record's mutex until the section ends (ck's begin and end are plain
 * stores meant for one thread, and the mutex makes the borrower that one
 * thread); nested sections reuse it. Grace periods and polls see shared
 * records like any other, so the read API, the peek forms and every deferred
 * free keep their meaning for these threads. A borrower holds the mutex only
 * inside a read section, which by contract neither blocks nor writes, so a
 * borrower never waits on anything while holding it and no lock order
 * involves it. A record-less thread never owns deferred work: its writes wait
 * with ck_epoch_synchronize_wait (which needs no record), and what it would
 * defer through a record goes to lists the next write empties (weave_retire
 * for values, retired_blocks for table memory). It tries again for an owned
 * record at each outermost section and each write, which costs two loads
 * while none is free.
 *
 * Why 256 (WEAVE_EPOCH_RECORDS_MAX, weave_registry.h): a scan reads one
 * cache line per record from one 64 KB array, about 2 ns a record here, so
 * a full table adds about half a microsecond to a write (register measured
 * 0.23 us before and 0.72 us after a burst of 2,000 threads, against 36 us
 * unbounded; 128 gave 0.49, 512 gave 1.5 as the array outgrows the L2's
 * share). 248 owned records are about one per worker of libdispatch's
 * largest pool (255), and far more than any pool sized by CPU count on the
 * machines this targets, so the shared records' mutex is paid only in a
 * real burst. Eight shared records: a borrower is usually on a CPU, and a
 * borrower preempted inside its section only makes others try the next.
 */
static ck_epoch_t global_epoch;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static pthread_key_t record_key;
static _Thread_local ck_epoch_record_t *thread_record;

#define EPOCH_SHARED_RECORDS 8u
#define EPOCH_OWNED_RECORDS (WEAVE_EPOCH_RECORDS_MAX - EPOCH_SHARED_RECORDS)
_Static_assert(WEAVE_EPOCH_RECORDS_MAX > EPOCH_SHARED_RECORDS, "no owned records");

static ck_epoch_record_t owned_records[EPOCH_OWNED_RECORDS];
static unsigned int owned_records_made;

struct shared_record {
    ck_epoch_record_t record;
    pthread_mutex_t lock;
};
static struct shared_record shared_records[EPOCH_SHARED_RECORDS];
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static unsigned int shared_next;
/* The shared record this thread's open section borrowed, else NULL. */
static _Thread_local struct shared_record *thread_shared;

/*
 * Slot reads (weave_slot_peek, the cached read of every @Injected property)
 * take a section of their own, cheaper than ck's. ck_epoch_begin publishes
 * the record as active with a locked exchange (a full fence on x86, 5 of the
 * read's 20 ns here) so that a writer's scan sees it; a slot read instead
 * makes its owned record's sequence odd with a plain store, and the writer
 * pays for the order: before it scans the sequences it runs
 * membarrier(PRIVATE_EXPEDITED), which makes every thread of the process
 * execute a full fence at some point of its program while the call runs
 * (liburcu's memb flavour, Linux 4.14+). A reader whose odd store came
 * before that point is seen odd and waited for until its sequence moves; a
 * reader whose store came after it loads, after it, the slot words the
 * writer cleared before the call (and the generation it advanced), so it
 * finds no box the write frees.
 * IntegrationTests/Models/slot_reads.pml checks this on a TSO store buffer.
 *
 * Without the syscall (another kernel or OS, a seccomp filter), or with
 * WEAVE_SLOT_READ_FENCE set, the reader fences after its store, as ck does
 * (valgrind passes the call through: callgrind counts the fenceless form).
 * Threads with no owned record read slots in a shared ck section, which the
 * writer's ck grace period covers. Only slot boxes are protected this way:
 * a slot read touches nothing else the registry frees (a kept weak instance
 * is read in a ck section of its own, SharedInstanceHolder.current), and
 * boxes are released only by finish_write, after slot_readers_wait. A write
 * that frees no box does not call it, so writes with nothing cached
 * (startup registrations, docs/write-latency.md's) pay nothing for it.
 */
struct slot_reader {
    uint64_t sequence; /* odd inside a slot read; written by its owner only */
} __attribute__((aligned(64)));
static struct slot_reader slot_readers[EPOCH_OWNED_RECORDS];
static _Thread_local struct slot_reader *thread_slot_reader;
/* Set once, in global_init, before any slot read can use it. */
static bool slot_reads_fenceless;

static void record_thread_exit(void *pointer) {
    ck_epoch_record_t *record = pointer;
    /* Unregistering forgets whatever is still queued on the record (ck's
     * and portable_ck.c's alike), so everything must run first. One barrier
     * is not enough: a callback it runs (a release whose deinit drops the
     * last reference to another value) can defer more, and a section begun
     * since keeps that entry pending past the barrier's grace period. A
     * thread exit is no request path: wait as often as it takes. */
    while (ck_pr_load_uint(&record->n_pending) != 0) {
        ck_epoch_barrier(record);
    }
    thread_record = NULL;
    thread_slot_reader = NULL;
    TSAN_RELEASE(record);
    ck_epoch_unregister(record);
}

static bool membarrier_register(void) {
#if defined(__linux__) && defined(SYS_membarrier)
    if (getenv("WEAVE_SLOT_READ_FENCE") != NULL) {
        return false;
    }
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
    return false;
#endif
}

/* Every thread of the process executes a full fence before this returns. */
static void membarrier_all(void) {
#if defined(__linux__) && defined(SYS_membarrier)
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
        abort(); /* registered in global_init: cannot fail */
    }
#endif
}

static void global_init(void) {
    ck_epoch_init(&global_epoch);
    slot_reads_fenceless = membarrier_register();
    if (pthread_key_create(&record_key, record_thread_exit) != 0) {
        abort();
    }
}

/* An owned record for this thread: a recycled one, or one not yet handed
 * out while fewer than EPOCH_OWNED_RECORDS were; else NULL. Never called
 * while this thread has a shared section open: the section must end on the
 * record it began on. */
static ck_epoch_record_t *record_try_acquire(void) {
    pthread_once(&global_once, global_init);
    ck_epoch_record_t *record = ck_epoch_recycle(&global_epoch, NULL);
    if (record != NULL) {
        TSAN_ACQUIRE(record);
    } else {
        unsigned int made = ck_pr_load_uint(&owned_records_made);
        do {
            if (made >= EPOCH_OWNED_RECORDS) {
                return NULL;
            }
        } while (!ck_pr_cas_uint_value(&owned_records_made, made, made + 1, &made));
        record = &owned_records[made];
        ck_epoch_register(&global_epoch, record, NULL);
    }
    pthread_setspecific(record_key, record);
    thread_record = record;
    /* Only owned records are ever unregistered, so recycled ones are too. */
    thread_slot_reader = &slot_readers[record - owned_records];
    return record;
}

/* The record a write polls and defers through, or NULL for a record-less
 * thread. */
static inline ck_epoch_record_t *record_for_write(void) {
    ck_epoch_record_t *record = thread_record;
    if (CK_CC_LIKELY(record != NULL)) {
        return record;
    }
    return thread_shared == NULL ? record_try_acquire() : NULL;
}

static void shared_init(void) {
    pthread_once(&global_once, global_init);
    for (unsigned int i = 0; i < EPOCH_SHARED_RECORDS; i++) {
        pthread_mutex_init(&shared_records[i].lock, NULL);
        ck_epoch_register(&global_epoch, &shared_records[i].record, NULL);
    }
}

static void shared_section_begin(void) {
    struct shared_record *shared = thread_shared;
    if (shared == NULL) {
        pthread_once(&shared_once, shared_init);
        /* Any free one rather than a fixed one: only a borrower preempted
         * inside its section keeps a record busy for long. */
        unsigned int start = ck_pr_faa_uint(&shared_next, 1);
        for (unsigned int i = 0; i < EPOCH_SHARED_RECORDS; i++) {
            struct shared_record *candidate = &shared_records[(start + i) % EPOCH_SHARED_RECORDS];
            if (pthread_mutex_trylock(&candidate->lock) == 0) {
                shared = candidate;
                break;
            }
        }
        if (shared == NULL) {
            shared = &shared_records[start % EPOCH_SHARED_RECORDS];
            pthread_mutex_lock(&shared->lock);
        }
        thread_shared = shared;
    }
    ck_epoch_begin(&shared->record, NULL);
}

static void shared_section_end(void) {
    struct shared_record *shared = thread_shared;
    if (ck_epoch_end(&shared->record, NULL)) {
        thread_shared = NULL;
        pthread_mutex_unlock(&shared->lock);
    }
}

/* The section's record when it is owned (acquiring one if it can), else
 * NULL after entering a shared section. */
static ck_epoch_record_t *section_begin_slow(void) {
    ck_epoch_record_t *record = thread_shared == NULL ? record_try_acquire() : NULL;
    if (record != NULL) {
        ck_epoch_begin(record, NULL);
    } else {
        shared_section_begin();
    }
    return record;
}

/* For the peek forms, whose section ends in weave_read_end. */
static inline void section_begin(void) {
    ck_epoch_record_t *record = thread_record;
    if (CK_CC_LIKELY(record != NULL)) {
        ck_epoch_begin(record, NULL);
        return;
    }
    (void)section_begin_slow();
}

/* Sections that open and close in one function take the owned record first
 * and pass it down, so that path tests for a record once, as before; the
 * body is inlined into both branches. */
#define WITH_SECTION(result, call)                                 \
    do {                                                           \
        ck_epoch_record_t *section_record_ = thread_record;        \
        if (CK_CC_LIKELY(section_record_ != NULL)) {               \
            ck_epoch_begin(section_record_, NULL);                 \
            result = call;                                         \
            TSAN_RELEASE(&global_epoch);                           \
            ck_epoch_end(section_record_, NULL);                   \
        } else {                                                   \
            section_record_ = section_begin_slow();                \
            result = call;                                         \
            TSAN_RELEASE(&global_epoch);                           \
            if (section_record_ != NULL) {                         \
                ck_epoch_end(section_record_, NULL);               \
            } else {                                               \
                shared_section_end();                              \
            }                                                      \
        }                                                          \
    } while (0)

size_t weave_debug_epoch_records(void) {
    pthread_once(&global_once, global_init);
    size_t count = 0;
    for (ck_stack_entry_t *cursor = ck_pr_load_ptr(&global_epoch.records.head); cursor != NULL;
         cursor = ck_pr_load_ptr(&cursor->next)) {
        count++;
    }
    return count;
}

bool weave_debug_thread_owns_record(void) {
    return thread_record != NULL;
}

static _Thread_local void *thread_context;

void *weave_thread_context(void) {
    return thread_context;
}

void weave_set_thread_context(void *context) {
    thread_context = context;
}

void weave_set_value_callbacks(weave_value_fn retain, weave_value_fn release) {
    value_retain = retain;
    value_release = release;
}

bool weave_debug_slot_reads_fenceless(void) {
    pthread_once(&global_once, global_init);
    return slot_reads_fenceless;
}

/* A slot read begins, in this thread's own sequence or, for a thread
   without an owned record, in a shared ck section. */
static inline void slot_read_begin(void) {
    struct slot_reader *reader = thread_slot_reader;
    if (!CK_CC_LIKELY(reader != NULL)) {
        if (thread_shared != NULL || record_try_acquire() == NULL) {
            shared_section_begin();
            return;
        }
        reader = thread_slot_reader;
    }
    uint64_t sequence = __atomic_load_n(&reader->sequence, __ATOMIC_RELAXED);
#ifdef WEAVE_CHECK_SECTIONS
    if (sequence & 1) {
        abort(); /* a slot read inside a slot read */
    }
#endif
    __atomic_store_n(&reader->sequence, sequence + 1, __ATOMIC_RELAXED);
    if (CK_CC_LIKELY(slot_reads_fenceless)) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
}

void weave_slot_read_end(void) {
    struct slot_reader *reader = thread_slot_reader;
    if (CK_CC_LIKELY(reader != NULL)) {
        uint64_t sequence = __atomic_load_n(&reader->sequence, __ATOMIC_RELAXED);
#ifdef WEAVE_CHECK_SECTIONS
        if (!(sequence & 1)) {
            abort(); /* weave_slot_read_end without weave_slot_peek */
        }
#endif
        /* Release: the read's loads before a writer's scan sees it even. */
        __atomic_store_n(&reader->sequence, sequence + 1, __ATOMIC_RELEASE);
    } else {
        TSAN_RELEASE(&global_epoch);
        shared_section_end();
    }
}

void weave_read_begin(void) {
    section_begin();
}

void weave_read_end(void) {
    TSAN_RELEASE(&global_epoch);
    ck_epoch_record_t *record = thread_record;
    if (CK_CC_LIKELY(record != NULL)) {
        ck_epoch_end(record, NULL);
    } else {
        shared_section_end();
    }
}

/* ---- generation and the retire list ---------------------------------- */

/*
 * The generation word: the number of completed writes above WRITER_SHIFT,
 * the number of writes in progress below it. A write marks itself in
 * progress before it changes a table and completes after, and a slot serves
 * a box only when no write is in progress and the count equals the box's
 * tag. Without the in-progress mark, a box read just before a write's store
 * stayed current until its advance, so one reader could see the new value
 * in the table and then the old one in a slot. Every operation adds to the
 * word, so it only grows.
 */
#define WRITER_SHIFT 16
#define WRITERS_MASK ((uint64_t)0xffff)
#define ONE_WRITE ((uint64_t)1 << WRITER_SHIFT)
/* _Alignas(8): a 64-bit atomic on a 4-byte boundary (i386's alignment of a
 * plain uint64_t) is not atomic. */
static _Alignas(8) uint64_t generation = ONE_WRITE;

/* Every slot ever made, for the sweep; and whether any slot cached a box
 * since the last sweep. */
struct weave_slot {
    /* The box pointer in the low 48 bits, the generation tag of the box in
     * the top 16, or 0. 64 bits on every target, so one atomic word holds
     * both with 32-bit pointers too (arm64_32, armv7, i386); on x86-64 its
     * loads and compare-and-swaps are the same instructions as a pointer's. */
    _Alignas(8) uint64_t word;
    uintptr_t key;
    void *owner;
    struct weave_slot *next;
};
static weave_slot_t *all_slots;
static unsigned int slots_dirty;

#define TAG_SHIFT 48
#define TAG_MASK ((uint64_t)0xffff)
#define POINTER_MASK (((uint64_t)1 << TAG_SHIFT) - 1)
_Static_assert(sizeof(((struct weave_slot *)0)->word) * CHAR_BIT == TAG_SHIFT + 16,
               "the slot word holds a 48-bit pointer field and a 16-bit tag");
_Static_assert(WRITER_SHIFT + 16 <= 64, "the tag is 16 bits of the 64-bit generation");
/* A 32-bit pointer always fits the pointer field; a 64-bit one is checked
 * by weave_slot_install, which never caches an address above 48 bits. */
_Static_assert(sizeof(void *) * CHAR_BIT <= TAG_SHIFT || sizeof(void *) == 8,
               "pointers must be 32 bits (fit the field) or 64 (checked at install)");
/* A sweep runs at least this often (in generations), so no cached box can
 * live long enough for its 16-bit tag to match again. */
#define FORCED_SWEEP_PERIOD 0x4000u

static inline uint64_t tag_of_generation(uint64_t g) {
    return (g >> WRITER_SHIFT) & TAG_MASK;
}
static inline uint64_t tag_of_word(uint64_t w) { return (w >> TAG_SHIFT) & TAG_MASK; }
static inline void *pointer_of_word(uint64_t w) { return (void *)(uintptr_t)(w & POINTER_MASK); }

/* Values retired by readers (stale boxes a refresh replaced), released by
 * the next write after its grace period. A Treiber stack of small nodes. */
struct retired {
    void *value;
    struct retired *next;
};
static struct retired *retire_head;

void weave_retire(void *value) {
    struct retired *node = malloc(sizeof(*node));
    if (node == NULL) {
        abort();
    }
    node->value = value;
    struct retired *head;
    do {
        head = ck_pr_load_ptr(&retire_head);
        node->next = head;
        ck_pr_fence_store(); /* the node's fields before the node (arm64) */
        TSAN_RELEASE(node);
    } while (!ck_pr_cas_ptr(&retire_head, head, node));
}

/* Marks a write in progress: from here until write_complete no slot serves
 * a box. Before the write changes anything a reader can see. */
static inline void write_begin(void) {
    ck_pr_faa_64(&generation, 1);
    ck_pr_fence_memory();
}

/* Counts the write and clears its mark, in one addition; returns whether
 * this write must sweep (see FORCED_SWEEP_PERIOD). After the write's
 * changes are visible. */
static bool write_complete(void) {
    ck_pr_fence_memory();
    uint64_t next = ck_pr_faa_64(&generation, ONE_WRITE - 1) + (ONE_WRITE - 1);
    return ((next >> WRITER_SHIFT) % FORCED_SWEEP_PERIOD) == 0;
}

/* A write whose change was made before it (the injection context). */
static bool advance_generation(void) {
    uint64_t next = ck_pr_faa_64(&generation, ONE_WRITE) + ONE_WRITE;
    return ((next >> WRITER_SHIFT) % FORCED_SWEEP_PERIOD) == 0;
}

uintptr_t weave_read_mode_word = 0;

void weave_read_mode_scope_began(void) {
    __atomic_add_fetch(&weave_read_mode_word, WEAVE_READ_MODE_ONE_SCOPE, __ATOMIC_SEQ_CST);
}

void weave_read_mode_scope_ended(void) {
    __atomic_sub_fetch(&weave_read_mode_word, WEAVE_READ_MODE_ONE_SCOPE, __ATOMIC_SEQ_CST);
}

void weave_read_mode_overlay_began(void) {
    __atomic_add_fetch(&weave_read_mode_word, WEAVE_READ_MODE_ONE_SCOPE + WEAVE_READ_MODE_ONE_OVERLAY, __ATOMIC_SEQ_CST);
}

void weave_read_mode_overlay_ended(void) {
    __atomic_sub_fetch(&weave_read_mode_word, WEAVE_READ_MODE_ONE_SCOPE + WEAVE_READ_MODE_ONE_OVERLAY, __ATOMIC_SEQ_CST);
}

void weave_read_mode_set_counting(bool counting) {
    if (counting) {
        __atomic_or_fetch(&weave_read_mode_word, WEAVE_READ_MODE_COUNTING, __ATOMIC_SEQ_CST);
    } else {
        __atomic_and_fetch(&weave_read_mode_word, ~WEAVE_READ_MODE_COUNTING, __ATOMIC_SEQ_CST);
    }
}

void weave_read_mode_set_baseline(bool baseline) {
    if (baseline) {
        __atomic_or_fetch(&weave_read_mode_word, WEAVE_READ_MODE_BASELINE, __ATOMIC_SEQ_CST);
    } else {
        __atomic_and_fetch(&weave_read_mode_word, ~WEAVE_READ_MODE_BASELINE, __ATOMIC_SEQ_CST);
    }
}

uint64_t weave_generation(void) {
    return ck_pr_load_64(&generation);
}

/* A released value collected by a write, released after its grace period. */
struct release_list {
    void **values;
    size_t count;
};

/* Boxes whose tag is older than `current`'s (by less than half the tag
 * space: a newer tag, from a write that raced this one, stays). */
static inline bool tag_is_older(uint64_t tag, uint64_t current) {
    uint64_t distance = (current - tag) & TAG_MASK;
    return distance != 0 && distance < 0x8000;
}

static struct retired *sweep_slots(uint64_t current, struct retired *list) {
    uint64_t current_tag = tag_of_generation(current);
    bool kept = false;
    for (weave_slot_t *slot = ck_pr_load_ptr(&all_slots); slot != NULL; slot = slot->next) {
        TSAN_ACQUIRE(slot);
        uint64_t word = ck_pr_load_64(&slot->word);
        if (word == 0) {
            continue;
        }
        if (!tag_is_older(tag_of_word(word), current_tag)) {
            /* Current now, stale after the next advance: that write must
             * sweep too, even if it releases nothing itself. */
            kept = true;
            continue;
        }
        if (ck_pr_cas_64(&slot->word, word, 0)) {
            struct retired *node = malloc(sizeof(*node));
            if (node == NULL) {
                abort();
            }
            node->value = pointer_of_word(word);
            node->next = list;
            list = node;
        }
    }
    if (kept) {
        ck_pr_store_uint(&slots_dirty, 1);
    }
    return list;
}

/* Table memory a record-less writer freed, each block's epoch entry linking
 * it (no record to defer it through); freed by the next write after its
 * grace period. */
static ck_stack_t retired_blocks = CK_STACK_INITIALIZER;

CK_STACK_CONTAINER(ck_epoch_entry_t, stack_entry, epoch_entry_of_stack_entry)

static void retire_block(ck_epoch_entry_t *entry) {
    TSAN_RELEASE(entry);
    ck_stack_push_upmc(&retired_blocks, &entry->stack_entry);
}

static void free_retired_blocks(ck_stack_entry_t *cursor) {
    while (cursor != NULL) {
        ck_epoch_entry_t *entry = epoch_entry_of_stack_entry(cursor);
        TSAN_ACQUIRE(entry);
        cursor = cursor->next;
        free(entry);
    }
}

/*
 * How a write waits for a grace period. ck spins on the records that hold it
 * up; when one belongs to a reader preempted inside its section, spinning
 * keeps a CPU from that reader, and with as many readers as CPUs the write
 * waited out whole time slices (issue 10, item 7: p99.9 24 ms with two
 * readers on two cores). Past a short spin, which covers any section that
 * is running, the writer sleeps between scans instead.
 */
#define GRACE_SPIN_NS 20000
#define GRACE_SLEEP_NS 20000

#define GRACE_SPIN_UNTIMED 64

struct grace_wait {
    unsigned int blocked;   /* times a record held it up */
    uint64_t blocked_since; /* ns, from the first timed one */
};

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void grace_blocked(ck_epoch_t *epoch, ck_epoch_record_t *record, void *context) {
    (void)epoch;
    (void)record;
    struct grace_wait *wait = context;
    /* A running section ends within a few scans; reading the clock on
     * those would cost more than they do. */
    if (++wait->blocked < GRACE_SPIN_UNTIMED) {
        return;
    }
    uint64_t now = monotonic_ns();
    if (wait->blocked == GRACE_SPIN_UNTIMED) {
        wait->blocked_since = now;
    } else if (now - wait->blocked_since >= GRACE_SPIN_NS) {
        struct timespec pause = {0, GRACE_SLEEP_NS};
        nanosleep(&pause, NULL);
    }
}

/* One grace period; then, with a record, what it deferred. */
static void grace_period(ck_epoch_record_t *record) {
    struct grace_wait wait = {0};
    if (record != NULL) {
        ck_epoch_barrier_wait(record, grace_blocked, &wait);
    } else {
        ck_epoch_synchronize_wait(&global_epoch, grace_blocked, &wait);
    }
}

/*
 * Waits until no slot read that began before this call can still hold a box
 * the caller took out of its slot (or off the retire list): after the
 * generation advanced and the boxes were unlinked, before they are
 * released.
 */
static void slot_readers_wait(void) {
    if (slot_reads_fenceless) {
        membarrier_all();
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    unsigned int made = ck_pr_load_uint(&owned_records_made);
    if (made > EPOCH_OWNED_RECORDS) {
        made = EPOCH_OWNED_RECORDS;
    }
    for (unsigned int i = 0; i < made; i++) {
        uint64_t *sequence = &slot_readers[i].sequence;
        uint64_t seen = __atomic_load_n(sequence, __ATOMIC_ACQUIRE);
        if (!(seen & 1)) {
            continue;
        }
        struct grace_wait wait = {0};
        while (__atomic_load_n(sequence, __ATOMIC_ACQUIRE) == seen) {
            grace_blocked(NULL, NULL, &wait);
        }
    }
}

/*
 * The end of every write, called with no lock held: when the write unlinked
 * values, or readers retired boxes or table memory, or slots cached values
 * that may now be stale, wait one grace period, sweep stale boxes out of
 * the slots and release all of it. Otherwise only poll for deferred table
 * memory.
 */
/* Runs this record's deferred frees whose grace period has passed. Only
 * its own can run: with none pending, ck's poll would scan every record for
 * nothing (a fifth of a registration's cost). */
static void poll_own_frees(ck_epoch_record_t *record) {
    if (record != NULL && record->n_pending != 0) {
        ck_epoch_poll(record);
    }
}

static void finish_write(void **released, size_t count, bool force_sync) {
    ck_epoch_record_t *record = record_for_write();
    struct retired *retired = ck_pr_fas_ptr(&retire_head, NULL);
    /* A load first: the exchange would cost every write a locked instruction,
     * and a block pushed after the load is the next write's (a record-less
     * writer's own blocks were pushed before, on this thread). */
    ck_stack_entry_t *blocks = ck_pr_load_ptr(&retired_blocks.head) == NULL
                                   ? NULL
                                   : ck_stack_batch_pop_upmc(&retired_blocks);
    bool any_released = false;
    for (size_t i = 0; i < count; i++) {
        any_released |= released[i] != NULL;
    }
    if (!any_released && retired == NULL && blocks == NULL && !force_sync &&
        ck_pr_load_uint(&slots_dirty) == 0) {
        poll_own_frees(record);
        return;
    }
    uint64_t current = ck_pr_load_64(&generation);
    grace_period(record);
    TSAN_ACQUIRE(&global_epoch);
    free_retired_blocks(blocks);
    /* Every box older than `current` goes, so a released instance cached
     * by a slot is released here too. */
    ck_pr_store_uint(&slots_dirty, 0);
    ck_pr_fence_memory();
    retired = sweep_slots(current, retired);
    /* Boxes, now out of every slot, may still be in a slot read, which no
     * ck section covers. Only a write that frees one pays for membarrier
     * (microseconds in a VM, where each IPI exits to the host). */
    if (retired != NULL) {
        slot_readers_wait();
    }
    for (size_t i = 0; i < count; i++) {
        if (released[i] != NULL) {
            value_release(released[i]);
        }
    }
    while (retired != NULL) {
        TSAN_ACQUIRE(retired); /* weave_retire's release, before any field */
        struct retired *next = retired->next;
        value_release(retired->value);
        free(retired);
        retired = next;
    }
}

void weave_generation_advance(void) {
    pthread_once(&global_once, global_init);
    bool forced = advance_generation();
    finish_write(NULL, 0, forced);
}

/* Deferred release through the calling thread's epoch record. */
struct deferred_value {
    ck_epoch_entry_t entry;
    void *value;
};

CK_EPOCH_CONTAINER(struct deferred_value, entry, deferred_value_of_entry)

static void deferred_value_release(ck_epoch_entry_t *entry) {
    TSAN_ACQUIRE(&global_epoch);
    struct deferred_value *deferred = deferred_value_of_entry(entry);
    value_release(deferred->value);
    free(deferred);
}

void weave_defer_release(void *value) {
    struct deferred_value *deferred = malloc(sizeof(*deferred));
    if (deferred == NULL) {
        abort();
    }
    deferred->value = value;
    ck_epoch_record_t *record = record_for_write();
    if (record == NULL) {
        /* Released by the next write, after its grace period, instead. */
        free(deferred);
        weave_retire(value);
        return;
    }
    ck_epoch_call(record, &deferred->entry, deferred_value_release);
    ck_epoch_poll(record);
}

size_t weave_debug_pending(void) {
    size_t count = 0;
    for (struct retired *node = ck_pr_load_ptr(&retire_head); node != NULL; node = node->next) {
        count++;
    }
    ck_epoch_record_t *record = thread_record;
    if (record != NULL) {
        count += ck_pr_load_uint(&record->n_pending);
    }
    return count;
}

/* ---- the table ------------------------------------------------------- */

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
        ck_epoch_record_t *record = record_for_write();
        if (record != NULL) {
            ck_epoch_call(record, &block->entry, deferred_block_free);
        } else {
            retire_block(&block->entry);
        }
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
    struct weave_node *unlinked_next; /* chains the nodes clear/destroy unlink */
};

/* 64 bits on every target: key_hash mixes in uint64_t and keeps the low
 * bits that fit an unsigned long (all 64 on LP64, 32 on 32-bit targets,
 * where ck_hs and the slot index take their buckets from those bits). ck_hs
 * hands its seed only to node_hash, which ignores it: the seed's cast to
 * unsigned long below loses nothing. */
#define HASH_SEED UINT64_C(0x9e3779b97f4a7c15)
#define INITIAL_CAPACITY 32

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
                    &table_allocator, INITIAL_CAPACITY, (unsigned long)HASH_SEED)) {
        free(registry);
        return NULL;
    }
    pthread_mutex_init(&registry->write_lock, NULL);
    registry->parent = parent;
    return registry;
}

/* Must run inside a read section, or under the registry's write lock. */
static inline void *lookup_one(weave_registry_t *registry, uintptr_t key, unsigned long hash) {
    struct weave_node probe = {.key = key};
    struct weave_node *node = ck_hs_get(&registry->table, hash, &probe);
    if (node == NULL) {
        return NULL;
    }
    void *value = ck_pr_load_ptr(&node->value);
    TSAN_ACQUIRE(node);
    return value;
}

static inline void *lookup(weave_registry_t *registry, uintptr_t key, bool search_parents) {
    unsigned long hash = key_hash(key);
    for (; registry != NULL; registry = search_parents ? registry->parent : NULL) {
        void *value = lookup_one(registry, key, hash);
        if (value != NULL) {
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
    void *value;
    WITH_SECTION(value, lookup_retained(registry, key, search_parents));
    return value;
}

void *weave_registry_get(weave_registry_t *registry, uintptr_t key) {
    return get_retained(registry, key, true);
}

void *weave_registry_get_local(weave_registry_t *registry, uintptr_t key) {
    return get_retained(registry, key, false);
}

void *weave_registry_get_locked(weave_registry_t *registry, uintptr_t key) {
    unsigned long hash = key_hash(key);
    for (; registry != NULL; registry = registry->parent) {
        pthread_mutex_lock(&registry->write_lock);
        void *value = lookup_one(registry, key, hash);
        if (value != NULL) {
            value_retain(value);
        }
        pthread_mutex_unlock(&registry->write_lock);
        if (value != NULL) {
            return value;
        }
    }
    return NULL;
}

void *weave_registry_peek(weave_registry_t *registry, uintptr_t key) {
    section_begin();
    return lookup(registry, key, true);
}

/* What one write asks of the table's single probe (ck_hs_apply, under the
 * write lock): replace the value of key's node, or insert a node for it;
 * put_if_absent leaves a present node alone and reports its value. */
struct apply_write {
    uintptr_t key;
    void *value;
    bool replaces;
    void *previous; /* the node's value before the write, if it had one */
    bool out_of_memory;
};

static void *apply_write(void *object, void *closure) {
    struct apply_write *write = closure;
    struct weave_node *node = object;
    if (node != NULL) {
        write->previous = node->value;
        if (write->replaces) {
            TSAN_RELEASE(node);
            ck_pr_store_ptr(&node->value, write->value);
        } else {
            TSAN_ACQUIRE(node);
        }
        return node;
    }
    node = malloc(sizeof(*node));
    if (node == NULL) {
        write->out_of_memory = true;
        return NULL;
    }
    node->key = write->key;
    node->value = write->value;
    node->unlinked_next = NULL;
    /* The node's fields must be visible before the node is. */
    ck_pr_fence_store();
    TSAN_RELEASE(node);
    return node;
}

/* False when memory is exhausted (nothing was written). */
static bool apply_locked(weave_registry_t *registry, unsigned long hash, struct apply_write *write) {
    struct weave_node probe = {.key = write->key};
    return ck_hs_apply(&registry->table, hash, &probe, apply_write, write) && !write->out_of_memory;
}

bool weave_registry_set(weave_registry_t *registry, uintptr_t key, void *value) {
    struct apply_write write = {.key = key, .value = value, .replaces = true};
    unsigned long hash = key_hash(key);

    pthread_mutex_lock(&registry->write_lock);
    write_begin();
    if (!apply_locked(registry, hash, &write)) {
        pthread_mutex_unlock(&registry->write_lock);
        finish_write(NULL, 0, write_complete());
        return false;
    }
    MID_WRITE();
    pthread_mutex_unlock(&registry->write_lock);
    bool forced = write_complete();
    finish_write(&write.previous, 1, forced);
    return true;
}

void *weave_registry_put_if_absent(weave_registry_t *registry, uintptr_t key, void *value) {
    struct apply_write write = {.key = key, .value = value, .replaces = false};
    unsigned long hash = key_hash(key);
    pthread_mutex_lock(&registry->write_lock);
    if (!apply_locked(registry, hash, &write)) {
        abort();
    }
    if (write.previous != NULL) {
        value_retain(write.previous);
    }
    pthread_mutex_unlock(&registry->write_lock);
    if (write.previous == NULL) {
        poll_own_frees(record_for_write());
    }
    return write.previous;
}

static void *remove_locked(weave_registry_t *registry, uintptr_t key, void *expected, bool check) {
    struct weave_node probe = {.key = key};
    unsigned long hash = key_hash(key);
    struct weave_node *node = ck_hs_get(&registry->table, hash, &probe);
    if (node == NULL || (check && node->value != expected)) {
        return NULL;
    }
    write_begin();
    ck_hs_remove(&registry->table, hash, &probe);
    MID_WRITE();
    /* Tombstones lengthen probes; compact once they outnumber live keys. */
    if (++registry->removals_since_gc > 64 + ck_hs_count(&registry->table)) {
        ck_hs_gc(&registry->table, 0, 0);
        registry->removals_since_gc = 0;
    }
    return node;
}

static bool remove_and_finish(weave_registry_t *registry, uintptr_t key, void *expected, bool check) {
    pthread_mutex_lock(&registry->write_lock);
    struct weave_node *node = remove_locked(registry, key, expected, check);
    pthread_mutex_unlock(&registry->write_lock);
    if (node == NULL) {
        return false;
    }
    bool forced = write_complete();
    void *values[2] = {node->value, NULL};
    /* The node itself is freed with the value, after the same grace period. */
    finish_write(values, 1, forced);
    free(node);
    return true;
}

bool weave_registry_remove(weave_registry_t *registry, uintptr_t key) {
    return remove_and_finish(registry, key, NULL, false);
}

bool weave_registry_remove_if(weave_registry_t *registry, uintptr_t key, void *expected) {
    return remove_and_finish(registry, key, expected, true);
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

/* Releases each value and frees each node; the grace period is over. */
static void release_unlinked(struct weave_node *list) {
    while (list != NULL) {
        struct weave_node *next = list->unlinked_next;
        value_release(list->value);
        free(list);
        list = next;
    }
}

/* Emptying a large table frees one node and one entry per key, all small
 * blocks that glibc keeps in its free lists (they never reach the top of the
 * heap, so free() does not trim): the process would stay as large as at its
 * peak. Handing the free pages back costs a walk of the heap, worth it only
 * after many keys went at once. */
#define TRIM_AFTER_RELEASING 4096

static void give_back_memory(size_t released) {
#ifdef __GLIBC__
    if (released >= TRIM_AFTER_RELEASING) {
        malloc_trim(0);
    }
#else
    (void)released;
#endif
}

size_t weave_registry_clear(weave_registry_t *registry) {
    size_t count = 0;
    pthread_mutex_lock(&registry->write_lock);
    write_begin();
    struct weave_node *list = unlink_all(registry, &count);
    /* A fresh table of the initial size: the memory of a large one comes back. */
    if (!ck_hs_reset_size(&registry->table, INITIAL_CAPACITY)) {
        for (struct weave_node *node = list; node != NULL; node = node->unlinked_next) {
            ck_hs_remove(&registry->table, key_hash(node->key), node);
        }
    }
    registry->removals_since_gc = 0;
    MID_WRITE();
    pthread_mutex_unlock(&registry->write_lock);
    write_complete();
    finish_write(NULL, 0, true);
    release_unlinked(list);
    give_back_memory(count);
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
    /* A reader that reached this registry through the live pointer or a
     * child may still be inside its section: nothing it can see is freed
     * before this, and nothing a slot cached from it is served after. */
    advance_generation();
    finish_write(NULL, 0, true);
    ck_hs_destroy(&registry->table);
    pthread_mutex_destroy(&registry->write_lock);
    free(registry);
    release_unlinked(list);
    give_back_memory(count);
}

/* ---- the live registry ----------------------------------------------- */

static weave_registry_t *live_registry;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

void weave_live_set(weave_registry_t *registry) {
    pthread_once(&global_once, global_init);
    pthread_mutex_lock(&live_lock);
    write_begin();
    TSAN_RELEASE(&live_registry);
    ck_pr_store_ptr(&live_registry, registry);
    MID_WRITE();
    pthread_mutex_unlock(&live_lock);
    write_complete();
    finish_write(NULL, 0, true);
}

static inline void *live_lookup_retained(uintptr_t key) {
    weave_registry_t *registry = ck_pr_load_ptr(&live_registry);
    TSAN_ACQUIRE(&live_registry);
    return registry == NULL ? NULL : lookup_retained(registry, key, true);
}

void *weave_live_get(uintptr_t key) {
    void *value;
    WITH_SECTION(value, live_lookup_retained(key));
    return value;
}

void *weave_live_get_locked(uintptr_t key) {
    pthread_mutex_lock(&live_lock);
    weave_registry_t *registry = live_registry;
    void *value = registry == NULL ? NULL : weave_registry_get_locked(registry, key);
    pthread_mutex_unlock(&live_lock);
    return value;
}

void *weave_live_peek(uintptr_t key) {
    section_begin();
    weave_registry_t *registry = ck_pr_load_ptr(&live_registry);
    TSAN_ACQUIRE(&live_registry);
    return registry == NULL ? NULL : lookup(registry, key, true);
}

/* ---- injection slots ------------------------------------------------- */

/*
 * The slot index: open addressing with linear probing, kept at most half
 * full, so a probe always reaches an empty bucket. Slots are never freed or
 * removed, so a bucket only ever goes from empty to a slot: readers probe
 * without a lock and stop at the first empty bucket. When a publish would
 * fill it past half, the writer copies every slot into a table twice the
 * size and publishes that table; a reader still probing the old one may
 * miss a slot published since, and then takes the caller's slow path
 * (under its lock, where it finds it). Old tables stay allocated, linked
 * from the current one, for readers that may still be in them (finds take
 * no read section); together they are smaller than the current table.
 * (A fixed index of 8,192 buckets whose keys evicted each other once their
 * eight probe buckets were taken sent every resolve of a program with more
 * than a few thousand types through that lock.)
 */
#define SLOT_TABLE_INITIAL 1024u
struct slot_table {
    size_t mask; /* buckets - 1; buckets is a power of two */
    size_t count;
    struct slot_table *replaced;
    weave_slot_t *buckets[];
};
static struct slot_table *slot_table;
static pthread_mutex_t slot_table_lock = PTHREAD_MUTEX_INITIALIZER;

static inline weave_slot_t *find_slot(uintptr_t key) {
    struct slot_table *table = ck_pr_load_ptr(&slot_table);
    if (table == NULL) {
        return NULL;
    }
    ck_pr_fence_load(); /* publish_table's fence: the buckets are filled */
    TSAN_ACQUIRE(table);
    for (size_t bucket = key_hash(key) & table->mask;; bucket = (bucket + 1) & table->mask) {
        weave_slot_t *slot = ck_pr_load_ptr(&table->buckets[bucket]);
        if (slot == NULL) {
            return NULL;
        }
        TSAN_ACQUIRE(slot); /* publish's release: the owner and key are set */
        if (slot->key == key) {
            return slot;
        }
    }
}

void *weave_slot_find(uintptr_t key) {
    weave_slot_t *slot = find_slot(key);
    if (slot == NULL) {
        return NULL;
    }
    void *owner = ck_pr_load_ptr(&slot->owner);
    ck_pr_fence_load(); /* pairs with publish's fence before the owner */
    TSAN_ACQUIRE(slot);
    return owner;
}

weave_slot_t *weave_slot_find_slot(uintptr_t key) {
    return find_slot(key);
}

static struct slot_table *slot_table_make(size_t buckets) {
    struct slot_table *table = calloc(1, sizeof(*table) + buckets * sizeof(weave_slot_t *));
    if (table == NULL) {
        abort();
    }
    table->mask = buckets - 1;
    return table;
}

/* The bucket of slot's key in table: the slot's own, or the empty bucket
 * its probe reaches. Under slot_table_lock. */
static size_t slot_table_bucket(const struct slot_table *table, const weave_slot_t *slot) {
    size_t bucket = key_hash(slot->key) & table->mask;
    for (;;) {
        weave_slot_t *present = table->buckets[bucket];
        if (present == NULL || present == slot) {
            return bucket;
        }
        bucket = (bucket + 1) & table->mask;
    }
}

/* A table twice the size of current (or the first one) with every slot of
 * current, made findable. Under slot_table_lock. */
static struct slot_table *slot_table_grow(struct slot_table *current) {
    struct slot_table *table = slot_table_make(current == NULL ? SLOT_TABLE_INITIAL : (current->mask + 1) * 2);
    if (current != NULL) {
        for (size_t i = 0; i <= current->mask; i++) {
            weave_slot_t *slot = current->buckets[i];
            if (slot != NULL) {
                table->buckets[slot_table_bucket(table, slot)] = slot;
            }
        }
        table->count = current->count;
        table->replaced = current;
    }
    ck_pr_fence_store();
    TSAN_RELEASE(table);
    ck_pr_store_ptr(&slot_table, table);
    return table;
}

void weave_slot_publish(weave_slot_t *slot, void *owner) {
    /* The slot may be findable already (given its owner after a resolve
     * published it without one): the owner's own initialisation is ordered
     * before the owner is stored, and the owner before the index. */
    ck_pr_fence_store();
    TSAN_RELEASE(slot);
    ck_pr_store_ptr(&slot->owner, owner);
    ck_pr_fence_store();
    pthread_mutex_lock(&slot_table_lock);
    struct slot_table *table = slot_table;
    if (table == NULL) {
        table = slot_table_grow(NULL);
    }
    size_t bucket = slot_table_bucket(table, slot);
    if (table->buckets[bucket] != slot) {
        if ((table->count + 1) * 2 > table->mask + 1) {
            table = slot_table_grow(table);
            bucket = slot_table_bucket(table, slot);
        }
        table->count++;
        ck_pr_store_ptr(&table->buckets[bucket], slot);
    }
    pthread_mutex_unlock(&slot_table_lock);
}

weave_slot_t *weave_slot_create(uintptr_t key) {
    pthread_once(&global_once, global_init);
    weave_slot_t *slot = calloc(1, sizeof(*slot));
    if (slot == NULL) {
        abort();
    }
    slot->key = key;
    weave_slot_t *head;
    do {
        head = ck_pr_load_ptr(&all_slots);
        slot->next = head;
        ck_pr_fence_store();
        TSAN_RELEASE(slot);
    } while (!ck_pr_cas_ptr(&all_slots, head, slot));
    return slot;
}

void *weave_slot_peek(weave_slot_t *slot) {
    slot_read_begin();
    uint64_t current = ck_pr_load_64(&generation);
    uint64_t word = ck_pr_load_64(&slot->word);
    /* The tag and no write in progress, in one comparison. */
    if (word == 0 || (current & 0xffffffffu) != tag_of_word(word) << WRITER_SHIFT) {
        return NULL;
    }
    void *box = pointer_of_word(word);
    TSAN_ACQUIRE(box);
    return box;
}

/* Inside a read section: the install itself. Returns the box it replaced,
 * if any, through stale. */
static inline bool slot_install_in_section(weave_slot_t *slot, uint64_t expected, uint64_t pointer,
                                           void **stale) {
    if ((expected & WRITERS_MASK) != 0 || ck_pr_load_64(&generation) != expected) {
        return false; /* read during a write, or before one */
    }
    uint64_t word = ck_pr_load_64(&slot->word);
    uint64_t tagged = pointer | (tag_of_generation(expected) << TAG_SHIFT);
    /* Only a box older than ours is replaced. A reader whose generation
     * check above passed just before a write completed may get here after
     * another reader installed a box at the new generation; replacing that
     * one with ours (never served: its tag is old) would cost every reader
     * a miss until the next install. The CI's C TSan stress caught it once:
     * a box installed at the current generation was not served. */
    if (word != 0 && !tag_is_older(tag_of_word(word), tag_of_generation(expected))) {
        return false;
    }
    ck_pr_fence_store(); /* the box's contents before the box (arm64) */
    TSAN_RELEASE((void *)(uintptr_t)pointer);
    if (!ck_pr_cas_64(&slot->word, word, tagged)) {
        return false;
    }
    *stale = word == 0 ? NULL : pointer_of_word(word);
    /* Inside the section: a write that advances the generation after this
     * waits for it, then sees the flag. */
    ck_pr_store_uint(&slots_dirty, 1);
    return true;
}

bool weave_slot_install(weave_slot_t *slot, uint64_t expected, void *box) {
    uint64_t pointer = (uintptr_t)box;
    if ((pointer & ~POINTER_MASK) != 0) {
        return false; /* an address the tag would clobber: never cache it */
    }
    bool installed;
    void *stale = NULL;
    WITH_SECTION(installed, slot_install_in_section(slot, expected, pointer, &stale));
    if (stale != NULL) {
        /* A reader that loaded the old generation may still read it. */
        weave_retire(stale);
    }
    return installed;
}
