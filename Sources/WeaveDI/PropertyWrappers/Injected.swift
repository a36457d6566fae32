/// Reads a dependency on every access, in four forms:
/// - `@Injected(\.userService) var userService` — a key path into `InjectedValues`;
/// - `@Injected(UserServiceImpl.self) var userService` — an `InjectedKey` type;
/// - `@Injected var service: Service` — the container, then `InjectedValues`;
///   stops with a message when neither has it;
/// - `@Injected var service: Service?` — the same for `Service`, nil when missing.
///
/// While no `withInjectedValues` scope is alive anywhere and nothing was
/// registered or released since this property's last read, a read is one
/// cached load: no task-local read, no dictionary lookup, no cast. Values of
/// `.transient`, `.weak` and `.task` registrations are never cached.
@propertyWrapper
public struct Injected<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let cache: InjectionCache<Value>

    public init(_ keyPath: KeyPath<InjectedValues, Value> & Sendable) {
        self.cache = InjectionCache { InjectedValues.task[keyPath: keyPath] }
    }

    public init<K: InjectedKey>(_ key: K.Type) where K.Value == Value {
        self.cache = InjectionCache { InjectedValues.task[K.self] }
    }

    /// `@Injected var service: Service` and `@Injected var service: Service?`.
    /// Swift picks this initializer for both, so optionality is handled where
    /// the type is resolved: an `Optional<W>` resolves `W`.
    public init() {
        self.cache = InjectionCache {
            guard let value = TypeResolution.resolveUnwrappingOptional(Value.self) else {
                fatalError(
                    "@Injected var: no '\(typeName(Value.self))' registered and no InjectedKey default "
                        + "of that type seen. Register it (UnifiedDI.register(\(typeName(Value.self)).self) "
                        + "{ ... }), declare it optional, or use @Injected(\\.key)."
                )
            }
            return value
        }
    }

    public var wrappedValue: Value {
        @inlinable get {
            if OverrideScopes.noneActive {
                let generation = RegistryGeneration.current
                if let cached = cache.load(generation: generation) {
                    return cached
                }
                return cache.refresh(generation: generation)
            }
            return cache.read()
        }
    }
}
