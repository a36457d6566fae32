#ifndef WEAVE_REGISTRY_H
#define WEAVE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The one store of registrations: a map from a type key (the pointer bits of
 * a Swift ObjectIdentifier) to an opaque reference-counted value (a registry
 * entry). Reads take no lock (but see WEAVE_EPOCH_RECORDS_MAX for threads
 * beyond the bound) and may run on any number of threads; writes are
 * serialised per registry. A value that is replaced or removed is
 * released only after every reader that could still see it has left its
 * read section, and never while a registry lock is held, so the value's
 * deinit may call back into any registry.
 */
typedef struct weave_registry weave_registry_t;

typedef void (*weave_value_fn)(void *value);

/* Installs the functions that retain and release stored values. Call once,
 * before the first registry is created. */
void weave_set_value_callbacks(weave_value_fn retain, weave_value_fn release);

/* A child registry falls back to its parent on a miss. The parent must
 * outlive the child. Returns NULL when memory is exhausted. */
weave_registry_t *weave_registry_create(weave_registry_t *parent);

/* No reader may use the registry once this is called; releases every value. */
void weave_registry_destroy(weave_registry_t *registry);

/* Lock-free: the value for key (searching parents), already retained, or NULL. */
void *weave_registry_get(weave_registry_t *registry, uintptr_t key);

/* Same as get, without searching parents. */
void *weave_registry_get_local(weave_registry_t *registry, uintptr_t key);

/* The baseline read: the same table, read under each registry's writer lock
 * instead of inside an epoch section. Retained, or NULL. */
void *weave_registry_get_locked(weave_registry_t *registry, uintptr_t key);

/* Inserts or replaces. Takes over one reference to value. The previous value,
 * if any, is released after a grace period. Returns false (and releases
 * nothing, keeping the caller's reference) only when memory is exhausted. */
bool weave_registry_set(weave_registry_t *registry, uintptr_t key, void *value);

/* Inserts only when key is absent here: returns NULL after taking over the
 * reference to value, or the present value, retained, leaving value to the
 * caller. Never waits for a grace period and does not advance the
 * generation: it is meant for tables without parents or children (a key's
 * default), where an insert changes no answer a reader already had. Aborts
 * when memory is exhausted. */
void *weave_registry_put_if_absent(weave_registry_t *registry, uintptr_t key, void *value);

/* Removes key; returns whether it was present. */
bool weave_registry_remove(weave_registry_t *registry, uintptr_t key);

/* Removes key only while its value is still `expected`. */
bool weave_registry_remove_if(weave_registry_t *registry, uintptr_t key, void *expected);

/* Removes every key; returns how many there were. Table memory shrinks back
 * to its initial size. */
size_t weave_registry_clear(weave_registry_t *registry);

size_t weave_registry_count(weave_registry_t *registry);

/* Calls body for every value (retained for the duration of the call) while
 * holding no lock; stops early when body returns false. */
void weave_registry_each(weave_registry_t *registry, void *context,
                         bool (*body)(void *context, uintptr_t key, void *value));

/* The process-wide registry that unqualified lookups go to. Setting waits for
 * a grace period, so once it returns the previous registry may be destroyed. */
void weave_live_set(weave_registry_t *registry);
void *weave_live_get(uintptr_t key);
/* The baseline form of weave_live_get (see weave_registry_get_locked). */
void *weave_live_get_locked(uintptr_t key);

/*
 * The read-section forms used by Swift's hot paths: they return the value
 * without retaining it and leave the calling thread inside a read section,
 * always, whatever they return. The caller copies what it needs out of the
 * value (no blocking, no user code) and then calls weave_read_end. Saves a
 * shared reference-count round trip per read.
 */
void *weave_live_peek(uintptr_t key);
void *weave_registry_peek(weave_registry_t *registry, uintptr_t key);
void weave_read_begin(void);
void weave_read_end(void);

/*
 * The generation: a token that grows with every write that can change what a
 * lookup returns (set, remove, clear, live swap) and with
 * weave_generation_advance, and that marks the writes in progress. A value
 * read after loading token g may be cached under g (weave_slot_install) only
 * if the token is still g and no write was in progress when it was loaded;
 * compare tokens for equality only.
 */
uint64_t weave_generation(void);
/* Advances the generation and, like every write, releases what was retired,
 * after a grace period. For changes outside the registries (the injection
 * context). */
void weave_generation_advance(void);

/*
 * The read mode, one word that every read loads inline (no call): bit 0 is
 * set while optimization is off (reads go through the locked baseline and no
 * slot cache); the rest of the low half counts the override scopes and
 * container overlays alive in the process, and the high half counts the
 * overlays among them (a read of the live container asks for the task's
 * overlay only while that half is not 0), and its top bit is set while
 * resolves are counted. While the word is 0, which is the steady
 * state of a server, a read needs to look at nothing else: no task-local, no
 * Swift global accessor. Written only through the functions below.
 */
extern uintptr_t weave_read_mode_word;
#define WEAVE_READ_MODE_BASELINE ((uintptr_t)1)
#define WEAVE_READ_MODE_ONE_SCOPE ((uintptr_t)2)
#if UINTPTR_MAX > 0xFFFFFFFFu
#define WEAVE_READ_MODE_ONE_OVERLAY ((uintptr_t)0x100000000)
#define WEAVE_READ_MODE_COUNTING ((uintptr_t)0x8000000000000000)
#else
#define WEAVE_READ_MODE_ONE_OVERLAY ((uintptr_t)0x10000)
#define WEAVE_READ_MODE_COUNTING ((uintptr_t)0x80000000)
#endif

static inline uintptr_t weave_read_mode(void) {
    return __atomic_load_n(&weave_read_mode_word, __ATOMIC_ACQUIRE);
}
/* Counts an override scope that begins, or one that ends. */
void weave_read_mode_scope_began(void);
void weave_read_mode_scope_ended(void);
/* Counts a container overlay (a scope too) that begins, or one that ends. */
void weave_read_mode_overlay_began(void);
void weave_read_mode_overlay_ended(void);
void weave_read_mode_set_baseline(bool baseline);
/* The top bit: set while resolves of the live container are counted
 * (UnifiedDI.stats). Like any scope it sends reads off the shared cache to
 * the table, where they are counted. The overlay count below it would need
 * 2^31 overlays (2^15 with 32-bit words) to reach it. */
void weave_read_mode_set_counting(bool counting);

/*
 * Injection slots: one per injection key (a key path, an InjectedKey type, a
 * swift-dependencies DependencyKey type or a value type: the four SlotKinds of
 * InjectionSlots.swift), shared by every property that reads that key, so a property
 * stores a pointer and nothing else. A slot caches one value (a box) tagged
 * with the generation it was read at. Slots are never freed.
 *
 * Safety: a reader dereferences a box only inside a read section and only
 * when its tag matches the generation it loaded inside that section. A box is
 * released only by a write, after the generation has moved past its tag and
 * a grace period has passed, so a write that removes a registration releases
 * every cached copy of it before it returns (a deinit runs at once), and no
 * read, object construction or destruction ever waits.
 */
typedef struct weave_slot weave_slot_t;

/* The owner published for key, or NULL (no slot, or a slot published
 * without an owner). No lock, no read section: slots and their owners are
 * immortal. */
void *weave_slot_find(uintptr_t key);
/* The slot published for key, with or without an owner, or NULL. */
weave_slot_t *weave_slot_find_slot(uintptr_t key);
/* Creates the slot for key, not yet findable. Callers serialise creation per
 * key. */
weave_slot_t *weave_slot_create(uintptr_t key);
/* Sets the slot's owner (kept, not retained: it must live forever; NULL for
 * none yet) and makes the slot findable, for good; again to give it an
 * owner. A find that runs while the index grows may miss a slot published
 * meanwhile: callers then look again under the lock they create slots
 * under. */
void weave_slot_publish(weave_slot_t *slot, void *owner);
/* Enters a slot read (always) and returns the cached box when it is
 * current, else NULL. Copy out of the box, then call weave_slot_read_end
 * (not weave_read_end). A slot read protects the box only: anything else
 * reached through it is read in a section of its own. Slot reads never
 * nest. */
void *weave_slot_peek(weave_slot_t *slot);
void weave_slot_read_end(void);
/* Caches box (taking over one reference) when the generation is still
 * `generation` and no current box is cached; returns whether it did. On false
 * the caller keeps its reference. */
bool weave_slot_install(weave_slot_t *slot, uint64_t generation, void *box);

/* Releases value once no reader can still see it: the next write does it
 * after its grace period. For values that carry no registration (see
 * weave_defer_release), prefer that. */
void weave_retire(void *value);
/* Releases value after a grace period, without waiting now: the calling
 * thread's epoch record dispatches it on a later poll. */
void weave_defer_release(void *value);

/* The calling thread's resolution context (an object the Swift side owns
 * and keeps alive for the thread's life), or NULL. A C thread-local behind
 * a call: the call and one thread-local load, where pthread_getspecific
 * was a call and a table lookup on every factory run. */
void *weave_thread_context(void);
void weave_set_thread_context(void *context);

/* Test support: how many values wait in the retire list and in this thread's
 * deferred list. */
size_t weave_debug_pending(void);

/*
 * Epoch records (the per-thread state of read sections): at most this many
 * are ever registered, whatever the number of threads, because every grace
 * period scans all of them. WEAVE_EPOCH_RECORDS_MAX - 8 are owned, one per
 * thread while it lives, recycled when it exits; 8 are shared by threads
 * that find every owned record taken: such a thread holds a shared record's
 * mutex for the length of each outermost read section (and tries again for
 * an owned record at the next one). Everything above works the same for it;
 * its reads cost a lock and unlock more. Writes cost a scan of at most this
 * many records. See weave_registry.c for why 256.
 */
#ifndef WEAVE_EPOCH_RECORDS_MAX
#define WEAVE_EPOCH_RECORDS_MAX 256
#endif

/* Test support: how many epoch records are registered (never more than
 * WEAVE_EPOCH_RECORDS_MAX), and whether the calling thread owns one. */
size_t weave_debug_epoch_records(void);
bool weave_debug_thread_owns_record(void);
/* Test support: whether slot reads skip their fence because writers run
 * membarrier (Linux; off with WEAVE_SLOT_READ_FENCE set in the
 * environment). */
bool weave_debug_slot_reads_fenceless(void);

/* The Swift runtime's strong retain: the object, retained, or NULL (nothing
 * retained) if the object's deinit has begun (libswiftCore exports it on
 * every platform; declared here because Swift code may not name a runtime
 * symbol). NotedRegistries.alive() takes a registry found in its table
 * with it. */
void *swift_tryRetain(void *object);

#ifdef __cplusplus
}
#endif

#endif
