/// Reads a class instance once, on the property's first access, and holds
/// it weakly.
///
/// Factory's `@WeakLazyInjected`: a child that refers back to its parent
/// without keeping it alive, so the pair is not a retain cycle.
///
/// ```swift
/// final class Child {
///     @WeakLazyInjected var parent: Parent?
/// }
/// ```
///
/// The first access reads as `@Injected var x: Parent` does (an override,
/// an overlay, the live container, a key's default) and stops with its
/// message when nothing provides the type; it also stops when what it
/// provides is not a class instance, since a value cannot be held weakly.
/// After that the property is the instance while something else keeps it
/// alive, and nil once it is gone: it is not read again.
/// When two threads make the first access at once, one instance is kept.
@propertyWrapper
public struct WeakLazyInjected<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let slot: Unmanaged<InjectionSlot<Value>>
    @usableFromInline let cell = FirstReadCell<WeakFirstRead>()

    /// Reads by the property's type, on first access.
    @inlinable
    public init() {
        self.slot = InjectionSlots.slot(forType: Value.self)
    }

    /// Reads the ``InjectedValues`` property `keyPath` names, on first access.
    ///
    /// - Parameter keyPath: A property of ``InjectedValues`` whose value is
    ///   a class instance.
    @inlinable
    public init(_ keyPath: KeyPath<InjectedValues, Value>) {
        self.slot = InjectionSlots.slot(forKeyPath: keyPath)
    }

    /// The instance the first access read, while it is alive.
    public var wrappedValue: Value? {
        @inlinable get {
            let raw = cell.current() ?? readFirst()
            return Unmanaged<WeakFirstRead>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.object } as? Value
        }
    }

    /// Whether the first access has happened: `$parent.isResolved`.
    public var projectedValue: LazyInjectionState {
        LazyInjectionState(isResolved: cell.current() != nil)
    }

    @usableFromInline @inline(never)
    func readFirst() -> UnsafeMutableRawPointer {
        let value = InjectionSlots.reading(as: "@WeakLazyInjected") { slot._withUnsafeGuaranteedRef { $0.value() } }
        guard type(of: value as Any) is AnyObject.Type else {
            fatalError(
                "@WeakLazyInjected var: '\(qualifiedTypeName(Value.self))' resolved to a value of type "
                    + "'\(qualifiedTypeName(type(of: value as Any)))', which is not a class: "
                    + "only a class instance can be held weakly. Use @LazyInjected for a value.")
        }
        // The instance stays alive until the box is published: a reader
        // that wins the exchange never offers a box already empty.
        return withExtendedLifetime(value) {
            cell.publish(WeakFirstRead(value as AnyObject))
        }
    }
}
