/// Reads a dependency on every access, in four forms:
/// - `@Injected(\.userService) var userService` — a key path into `InjectedValues`;
/// - `@Injected(UserServiceImpl.self) var userService` — an `InjectedKey` type;
/// - `@Injected var service: Service` — the container, then `InjectedValues`;
///   stops with a message when neither has it;
/// - `@Injected var service: Service?` — the same for `Service`, nil when missing.
///
/// The property stores one pointer to the key's shared slot: no allocation
/// per property or per object, and nothing it holds keeps an instance alive.
/// While no `withInjectedValues` scope is alive anywhere and nothing was
/// registered or released since the key was last read, a read is a cached
/// load: no task-local read, no table lookup, no cast. Values of
/// `.transient`, `.weak` and `.task` registrations are never cached.
@propertyWrapper
public struct Injected<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let slot: Unmanaged<InjectionSlot<Value>>

    @inlinable
    public init(_ keyPath: KeyPath<InjectedValues, Value> & Sendable) {
        self.slot = InjectionSlots.slot(forKeyPath: keyPath)
    }

    @inlinable
    public init<K: InjectedKey>(_ key: K.Type) where K.Value == Value {
        self.slot = InjectionSlots.slot(forKey: K.self)
    }

    /// `@Injected var service: Service` and `@Injected var service: Service?`.
    /// Swift picks this initializer for both, so optionality is handled where
    /// the type is resolved: an `Optional<W>` resolves `W`.
    @inlinable
    public init() {
        self.slot = InjectionSlots.slot(forType: Value.self)
    }

    public var wrappedValue: Value {
        @inlinable get { slot._withUnsafeGuaranteedRef { $0.value() } }
    }
}
