#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// Each key's default (live, test or preview value) is evaluated once per
/// context and then shared, as swift-dependencies does: a computed
/// `liveValue` does not hand out a new instance per read. Kept apart from the
/// container, so `UnifiedDI.releaseAll()` never disturbs it. Stored in two
/// C tables of their own (by key, and by value type for the generic keys
/// `@Injected var x: T` finds once read), so reading a default takes no lock.
package enum DefaultValues {
    private static let byKey = Registry(parent: nil)
    private static let byValueType = Registry(parent: nil)
    /// Advanced by every context change, before the tables are emptied: an
    /// evaluation that started under the previous context sees it moved and
    /// withdraws what it stored.
    private static let contextChanges = PlatformAtomic<UInt64>(0)

    package static func value<K: InjectedKey>(for key: K.Type) -> K.Value {
        if let cached = cachedValue(K.Value.self, in: byKey, key: typeKey(K.self)) {
            return cached
        }
        let changesBefore = contextChanges.load(ordering: .sequentiallyConsistent)
        // Evaluated outside any lock and section: a default may read other
        // injected values. A default that reads itself, directly or through
        // others, stops here naming the keys instead of overflowing the stack.
        let fresh: K.Value = DefaultEvaluation.run(K.self) {
            switch InjectedValues.context {
            case .live: return K.liveValue
            case .test: return K.testValue
            case .preview: return K.previewValue
            }
        }
        let entry = PrebuiltEntry(fresh, factory: nil)
        if let winner = byKey.putIfAbsent(entry, forKey: typeKey(K.self)) {
            return winner.prebuilt.value(as: K.Value.self)
        }
        _ = byValueType.putIfAbsent(entry, forKey: typeKey(K.Value.self))
        if contextChanges.load(ordering: .sequentiallyConsistent) != changesBefore {
            byKey.remove(typeKey(K.self), ifStill: entry)
            byValueType.remove(typeKey(K.Value.self), ifStill: entry)
        }
        return fresh
    }

    /// The default of the one key whose `Value` is `T`, evaluated if it was
    /// not yet. When several keys provide `T`, none is picked: the read
    /// finds nothing and its failure names them. A generic key, which the
    /// catalog cannot list, is found once it has been read (when no listed
    /// key has that `Value`).
    static func value<T>(ofType type: T.Type) -> T? {
        let keys = InjectedKeyCatalog.keys(providing: type)
        if keys.count == 1 {
            return anyValue(for: keys[0]) as? T
        }
        if !keys.isEmpty {
            return nil
        }
        return cachedValue(type, in: byValueType, key: typeKey(type))
    }

    private static func anyValue<K: InjectedKey>(for key: K.Type) -> Any {
        value(for: key)
    }

    private static func cachedValue<T>(_ type: T.Type, in table: Registry, key: TypeKey) -> T? {
        var cacheable = false
        return (try? Resolver.resolve(type, key: key, in: table, cacheable: &cacheable)) ?? nil
    }

    static func reset() {
        contextChanges.add(1, ordering: .sequentiallyConsistent)
        byKey.removeAll()
        byValueType.removeAll()
    }
}

/// The keys whose defaults the current thread is evaluating.
enum DefaultEvaluation {
    static func run<K: InjectedKey>(_ key: K.Type, _ body: () -> K.Value) -> K.Value {
        let context = BuildChain.current
        let marker = ObjectIdentifier(K.self)
        if let start = context.evaluatingDefaults.firstIndex(where: { $0.id == marker }) {
            let chain = TypeNames.qualifiedChain(
                (context.evaluatingDefaults[start...].map(\.name) + [typeName(K.self)]).joined(separator: " -> "))
            fatalError(
                "WeaveDI: the default of \(qualifiedTypeName(K.self)) reads itself: \(chain). "
                    + "An InjectedKey's liveValue/testValue/previewValue must not read a key "
                    + "whose default reads it back; register one of them instead."
            )
        }
        context.evaluatingDefaults.append((marker, typeName(K.self)))
        defer { context.evaluatingDefaults.removeLast() }
        return body()
    }
}
