#ifndef WEAVE_REGISTRY_H
#define WEAVE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A map from a type key (the pointer bits of a Swift ObjectIdentifier) to an
 * opaque reference-counted value. Reads take no lock and may run on any number
 * of threads; writes are serialised per registry. A value that is replaced or
 * removed is released only after every reader that could still see it has
 * left its read section, and never while a registry lock is held, so the
 * value's deinit may call back into any registry.
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

/* Returns the value for key (searching parents), already retained, or NULL. */
void *weave_registry_get(weave_registry_t *registry, uintptr_t key);

/* Same as get, without searching parents. */
void *weave_registry_get_local(weave_registry_t *registry, uintptr_t key);

/* Inserts or replaces. Takes over one reference to value. The previous value,
 * if any, is released after a grace period. Returns false (and releases
 * nothing, keeping the caller's reference) only when memory is exhausted. */
bool weave_registry_set(weave_registry_t *registry, uintptr_t key, void *value);

/* Replaces the value only while it is still `expected`. Takes over value's
 * reference only on success. */
bool weave_registry_replace_if(weave_registry_t *registry, uintptr_t key,
                               void *expected, void *value);

/* Removes key; returns whether it was present. */
bool weave_registry_remove(weave_registry_t *registry, uintptr_t key);

/* Removes every key; returns how many there were. */
size_t weave_registry_clear(weave_registry_t *registry);

size_t weave_registry_count(weave_registry_t *registry);

/* Calls body for every value (retained for the duration of the call) while
 * holding no lock; stops early when body returns false. */
void weave_registry_each(weave_registry_t *registry, void *context,
                         bool (*body)(void *context, uintptr_t key, void *value));

/* The process-wide registry that unqualified lookups go to. Swapping waits
 * for a grace period, so once set returns the previous registry may be
 * destroyed. */
void weave_live_set(weave_registry_t *registry);
void *weave_live_get(uintptr_t key);

/*
 * The read-section forms used by Swift's hot paths: they return the value
 * without retaining it and leave the calling thread inside a read section,
 * always, whatever they return. The caller copies what it needs out of the
 * value (no blocking, no user code) and then calls weave_read_end. Saves a
 * shared reference-count round trip per read.
 */
void *weave_live_peek(uintptr_t key);
void *weave_registry_peek(weave_registry_t *registry, uintptr_t key);
void weave_read_end(void);

/*
 * A cell caches one value stamped with a generation number. load returns the
 * value retained when the stamp matches, NULL otherwise. store takes over one
 * reference to value; the value it replaces is released after a grace period.
 */
typedef struct weave_cell weave_cell_t;
weave_cell_t *weave_cell_create(void);
void weave_cell_destroy(weave_cell_t *cell);
void *weave_cell_load(weave_cell_t *cell, uint64_t generation);
void weave_cell_store(weave_cell_t *cell, uint64_t generation, void *value);
/* The read-section form of weave_cell_load (see weave_live_peek). */
void *weave_cell_peek(weave_cell_t *cell, uint64_t generation);

#ifdef __cplusplus
}
#endif

#endif
