/// Reads a dependency once, on the property's first access, and keeps it.
///
/// Factory's `@LazyInjected`: the object can be made before its dependency
/// is registered, and every later access answers the value the first one
/// read, whatever is registered or overridden since.
///
/// ```swift
/// final class CheckoutModel {
///     @LazyInjected(\.analytics) var analytics         // a key path into InjectedValues
///     @LazyInjected(AnalyticsKey.self) var byKey       // an InjectedKey type
///     @LazyInjected var payments: any Payments         // by type; stops when missing
///     @LazyInjected var coupons: (any Coupons)?        // by type; nil when missing
/// }
/// ```
///
/// The first access reads exactly as ``Injected`` does at that moment (a
/// `withInjectedValues` override, an overlay, the live container, a key's
/// default), so the by-type form stops with ``Injected``'s message when
/// nothing provides the type. When two threads make the first access at
/// once, both read and one value is kept: every access of the property
/// answers that one value. A transient registration is therefore built once
/// per property, not once per access.
///
/// Each property allocates one small cell when the object is made, and one
/// box on its first access; an access after that is one atomic load and a
/// copy. Nothing is held before the first access.
@propertyWrapper
public struct LazyInjected<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let slot: Unmanaged<InjectionSlot<Value>>
    @usableFromInline let cell = FirstReadCell<FirstRead<Value>>()

    /// Reads the ``InjectedValues`` property `keyPath` names, on first access.
    ///
    /// - Parameter keyPath: A property of ``InjectedValues``.
    @inlinable
    public init(_ keyPath: KeyPath<InjectedValues, Value>) {
        self.slot = InjectionSlots.slot(forKeyPath: keyPath)
    }

    /// Reads the ``InjectedKey`` `key`, on first access.
    ///
    /// - Parameter key: The key type.
    @inlinable
    public init<K: InjectedKey>(_ key: K.Type) where K.Value == Value {
        self.slot = InjectionSlots.slot(forKey: K.self)
    }

    /// Reads by the property's type, on first access: `@LazyInjected var
    /// service: Service` (stops when nothing provides it) and `@LazyInjected
    /// var service: Service?` (nil).
    @inlinable
    public init() {
        self.slot = InjectionSlots.slot(forType: Value.self)
    }

    /// The value of the first access (read now when this is the first).
    public var wrappedValue: Value {
        @inlinable get {
            if let raw = cell.current() {
                return Unmanaged<FirstRead<Value>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
            }
            return readFirst()
        }
    }

    /// Whether the first access has happened: `$analytics.isResolved`.
    public var projectedValue: LazyInjectionState {
        LazyInjectionState(isResolved: cell.current() != nil)
    }

    @usableFromInline @inline(never)
    func readFirst() -> Value {
        let candidate = FirstRead(
            InjectionSlots.reading(as: "@LazyInjected") { slot._withUnsafeGuaranteedRef { $0.value() } })
        let raw = cell.publish(candidate)
        return Unmanaged<FirstRead<Value>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
    }
}
