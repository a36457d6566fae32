import CWeaveRegistry

/// Resolution by value type alone, for `@Injected var x: T` and `T?`: an
/// override of that type, then the live container (or the task's overlay),
/// then the default of the one `InjectedKey` whose `Value` is that type.
package enum TypeResolution {
    package static func resolve<T>(_ type: T.Type, record: ReadRecord?) throws(DIError) -> T? {
        if !OverrideScopes.noneActive, let overridden = InjectedValues.task.overriddenValue(ofType: type) {
            record?.cacheable = false
            return overridden
        }
        if let record {
            // Only a refresh of the shared cache passes a record, and it runs
            // outside every overlay: the registry to read is the live one.
            // The registration is kept from the same probe.
            let wantsEntry =
                record.entryWanted == ObjectIdentifier(T.self) || record.entryWanted == ObjectIdentifier(T?.self)
            var cacheable = false
            var kept: LazyEntry?
            let resolved = try Resolver.resolve(
                type, key: typeKey(type), from: nil, keepingEntry: wantsEntry, cacheable: &cacheable, kept: &kept)
            if let resolved {
                record.note(cacheable: cacheable)
                record.registeredType = ObjectIdentifier(T.self)
                if !cacheable, let kept {
                    record.entry = kept
                }
                return resolved
            }
        } else if let resolved = try Resolver.resolve(type, in: nil) {
            return resolved
        }
        if let value = DefaultValues.value(ofType: type) {
            return value
        }
        // Nothing yet; a default evaluated later must be seen.
        record?.cacheable = false
        BuildRecording.noteMissing(type)
        return nil
    }

    /// `T` itself, or for `Optional<W>` the resolution of `W`: an optional
    /// property asks for the service, never for an `Optional` registration.
    static func resolveUnwrappingOptional<T>(_ type: T.Type, record: ReadRecord?) throws(DIError) -> T? {
        if let optional = type as? any OptionalResolvable.Type {
            let wrapped: any OptionalResolvable = try optional.resolveWrapped(record: record)
            return .some(wrapped as! T)
        }
        return try resolve(type, record: record)
    }
}

/// `@Injected var x: T` and `T?`. A non-optional property whose type is
/// nowhere to be found, or whose registration is part of a cycle, stops
/// with a message saying so.
func readByType<Value>(_ type: Value.Type, record: ReadRecord?) -> Value {
    let found: Value?
    do {
        found = try TypeResolution.resolveUnwrappingOptional(Value.self, record: record)
    } catch {
        if Value.self is any OptionalResolvable.Type {
            DILog.failure(error)
            record?.cacheable = false
            return (Optional<Any>.none as Any) as! Value
        }
        InjectionSlots.stopReading(Value.self, error)
    }
    guard let found else {
        InjectionSlots.stopMissing(Value.self)
    }
    return found
}

@usableFromInline
protocol OptionalResolvable {
    static func resolveWrapped(record: ReadRecord?) throws(DIError) -> Self
    /// The wrapped type's registration under `key` (a named one), as
    /// `.some`, or nil: with a record, from the live container, noting
    /// whether the value may be cached; without, from the task's overlay or
    /// the live container.
    static func resolveWrapped(key: TypeKey, record: ReadRecord?) throws(DIError) -> Self
    static var wrappedType: Any.Type { get }
    /// Builds the wrapped type from its lazy registration, nil (logged) when
    /// that fails, as `readByType` does for an optional property.
    static var buildFromWrappedEntry: @Sendable (AnyRegistryEntry) -> Self { get }
    /// The value of the `ValueBox` at `raw`, which holds the wrapped value
    /// (`SlotBox.holdsUnwrapped`), as `.some` of it; `V` is `Self`. Copying
    /// the wrapped value is the copy a non-optional read makes; copying an
    /// `Optional` of an existential goes through the runtime's value
    /// witnesses for `Optional`.
    static func someValue<V>(inBox raw: UnsafeMutableRawPointer, as type: V.Type) -> V
    /// A box of the wrapped value of `value` (a `Self`), or nil when it is nil.
    static func unwrappedBox<V>(of value: V) -> ValueBox?
}

extension Optional: OptionalResolvable {
    @usableFromInline
    static func resolveWrapped(record: ReadRecord?) throws(DIError) -> Self {
        try TypeResolution.resolve(Wrapped.self, record: record)
    }

    @usableFromInline
    static func resolveWrapped(key: TypeKey, record: ReadRecord?) throws(DIError) -> Self {
        var cacheable = false
        guard let record else {
            return try Resolver.resolve(Wrapped.self, key: key, in: nil, cacheable: &cacheable)
        }
        let value = try Resolver.resolve(Wrapped.self, key: key, from: nil, cacheable: &cacheable)
        record.note(cacheable: cacheable && value != nil)
        return value
    }

    @usableFromInline static var wrappedType: Any.Type { Wrapped.self }

    @usableFromInline static var buildFromWrappedEntry: @Sendable (AnyRegistryEntry) -> Self {
        { entry in build(fromWrappedEntry: entry) }
    }

    @inlinable
    static func someValue<V>(inBox raw: UnsafeMutableRawPointer, as type: V.Type) -> V {
        unsafeBitCast(Self.some(ValueBox.value(in: raw, as: Wrapped.self)), to: V.self)
    }

    @usableFromInline
    static func unwrappedBox<V>(of value: V) -> ValueBox? {
        guard let wrapped = unsafeBitCast(value, to: Self.self) else { return nil }
        return ValueBox(wrapped, answersResolve: false, holdsUnwrapped: true)
    }

    private static func build(fromWrappedEntry entry: AnyRegistryEntry) -> Self {
        do {
            return .some(try Resolver.build(entry.lazy, as: Wrapped.self))
        } catch {
            DILog.failure(error)
            return nil
        }
    }
}
