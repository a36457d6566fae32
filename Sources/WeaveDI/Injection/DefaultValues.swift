import Synchronization

/// Each key's default (live, test or preview value) is evaluated once per
/// context and then shared, as swift-dependencies does: a computed
/// `liveValue` does not hand out a new instance per read. Kept apart from the
/// container, so `UnifiedDI.releaseAll()` never disturbs it.
enum DefaultValues {
    private struct Cache {
        var byKey: [ObjectIdentifier: any Sendable] = [:]
        /// The defaults seen so far, by value type, for `@Injected var x: T`.
        var byValueType: [ObjectIdentifier: any Sendable] = [:]
    }

    private static let cache = Locked(Cache())

    static func value<K: InjectedKey>(for key: K.Type) -> K.Value {
        if let cached = cache.withLock({ $0.byKey[ObjectIdentifier(key)] }) {
            return cached as! K.Value
        }
        // Evaluated outside the lock: a default may read other injected values.
        let fresh: K.Value
        switch InjectedValues.context {
        case .live: fresh = K.liveValue
        case .test: fresh = K.testValue
        case .preview: fresh = K.previewValue
        }
        return cache.withLock { cache in
            if let winner = cache.byKey[ObjectIdentifier(key)] {
                return winner as! K.Value
            }
            cache.byKey[ObjectIdentifier(key)] = fresh
            cache.byValueType[ObjectIdentifier(K.Value.self)] = fresh
            return fresh
        }
    }

    static func value<T>(ofType type: T.Type) -> T? {
        cache.withLock { $0.byValueType[ObjectIdentifier(type)] } as? T
    }

    static func reset() {
        cache.withLock { $0 = Cache() }
    }
}
