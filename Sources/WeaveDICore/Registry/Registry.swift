import CWeaveRegistry

/// One container's registrations: a handle to the C table, the single store.
/// Reads go through `Resolver`; this type only writes and enumerates.
///
/// Why one store: the optimization toggle only changes how the table is
/// *read* (inside an epoch section, or under the table's writer lock), so a
/// second copy of every registration would double each write and split the
/// source of truth for nothing.
@usableFromInline
package final class Registry: @unchecked Sendable {
    @usableFromInline let handle: OpaquePointer
    package let parent: Registry?

    /// Whether this registry is in `NotedRegistries`: set at its
    /// container's first registration, never cleared.
    private let noted = PlatformAtomic<Bool>(false)

    init(parent: Registry?) {
        _ = valueCallbacksInstalled
        guard let handle = weave_registry_create(parent?.handle) else {
            fatalError("WeaveDI: out of memory creating a registry")
        }
        self.handle = handle
        self.parent = parent
    }

    deinit {
        // First, while every stored property is intact: a reader of
        // `NotedRegistries` may hold this registry's shard lock (its comment
        // says why that is safe). The flag's store happened before the
        // last release, which orders it before this deinit.
        if noted.load(ordering: .relaxed) {
            NotedRegistries.remove(ObjectIdentifier(self))
        }
        weave_registry_destroy(handle)
    }

    /// Notes this registry in `NotedRegistries` at its container's first
    /// registration; later calls pay one load. Two first registrations at
    /// once both insert it, which the table takes as one.
    @inline(__always)
    func noteOnce() {
        if !noted.load(ordering: .relaxed) {
            note()
        }
    }

    @inline(never)
    private func note() {
        noted.store(true, ordering: .relaxed)
        NotedRegistries.insert(self)
    }

    /// Inserts or replaces. The replaced entry (and any instance it built)
    /// is released once no reader can see it, before this returns.
    package func set(_ entry: AnyRegistryEntry, forKey key: TypeKey) {
        if !weave_registry_set(handle, key, Unmanaged.passRetained(entry).toOpaque()) {
            Unmanaged.passUnretained(entry).release()
            fatalError("WeaveDI: out of memory registering \(qualifiedTypeName(entry.type))")
        }
    }

    /// Inserts `entry` unless `key` is present; returns the present entry.
    func putIfAbsent(_ entry: AnyRegistryEntry, forKey key: TypeKey) -> AnyRegistryEntry? {
        let raw = Unmanaged.passRetained(entry)
        guard let present = weave_registry_put_if_absent(handle, key, raw.toOpaque()) else {
            return nil
        }
        raw.release()
        return Unmanaged<AnyRegistryEntry>.fromOpaque(present).takeRetainedValue()
    }

    @discardableResult
    package func remove(_ key: TypeKey) -> Bool {
        weave_registry_remove(handle, key)
    }

    @discardableResult
    package func remove(_ key: TypeKey, ifStill entry: AnyRegistryEntry) -> Bool {
        weave_registry_remove_if(handle, key, Unmanaged.passUnretained(entry).toOpaque())
    }

    func removeAll() {
        weave_registry_clear(handle)
    }

    var count: Int { weave_registry_count(handle) }

    /// Whether this registry itself (not a parent) holds `entry` under
    /// `key`: the registration is still the one made, not released or
    /// replaced.
    package func holds(_ entry: AnyRegistryEntry, forKey key: TypeKey) -> Bool {
        guard let raw = weave_registry_get_local(handle, key) else { return false }
        let present = Unmanaged<AnyRegistryEntry>.fromOpaque(raw).takeRetainedValue()
        return present === entry
    }

    /// Whether this registry itself (not a parent) has `key`; for
    /// diagnostics (a resolve goes through `Resolver`).
    func has(_ key: TypeKey) -> Bool {
        guard let raw = weave_registry_get_local(handle, key) else { return false }
        Unmanaged<AnyRegistryEntry>.fromOpaque(raw).release()
        return true
    }

    /// Whether this registry or a parent has `key`; for diagnostics.
    func reaches(_ key: TypeKey) -> Bool {
        guard let raw = weave_registry_get(handle, key) else { return false }
        Unmanaged<AnyRegistryEntry>.fromOpaque(raw).release()
        return true
    }

    /// This registry's entries (not its parents').
    package var entries: [AnyRegistryEntry] {
        keyedEntries.map(\.entry)
    }

    /// This registry's entries with their keys (not its parents').
    var keyedEntries: [(key: TypeKey, entry: AnyRegistryEntry)] {
        final class Collector { var entries: [(key: TypeKey, entry: AnyRegistryEntry)] = [] }
        let collector = Collector()
        withExtendedLifetime(collector) {
            weave_registry_each(handle, Unmanaged.passUnretained(collector).toOpaque()) { context, key, value in
                let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
                collector.entries.append((key, Unmanaged<AnyRegistryEntry>.fromOpaque(value!).takeUnretainedValue()))
                return true
            }
        }
        return collector.entries
    }

    /// Registered types of this registry and its parents, for diagnostics.
    package var registeredTypes: [Any.Type] {
        entries.map(\.type) + (parent?.registeredTypes ?? [])
    }
}
