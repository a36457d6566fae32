#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The values ``Injected`` reads by key path. Extend it with one computed
/// property per ``InjectedKey``:
///
/// ```swift
/// extension InjectedValues {
///     var userService: any UserService {
///         get { self[UserServiceKey.self] }
///         set { self[UserServiceKey.self] = newValue }
///     }
/// }
///
/// @Injected(\.userService) var userService
/// ```
///
/// Read precedence: a `withInjectedValues` override, then a registration of
/// the key's value type in the live container (or the task's overlay), then
/// the key's default for ``InjectedValues/context`` (`testValue` under
/// tests, `previewValue` in previews, else `liveValue`).
public struct InjectedValues: Sendable {
    struct Override: Sendable {
        /// The value in a box of its own type (`OverrideValue<K.Value>`): a
        /// read takes it back with an unchecked downcast. A cast from
        /// `any Sendable` to a protocol type looked its conformance up on
        /// every read (about 900 instructions, most of a read).
        let boxed: AnyObject & Sendable
        /// The registration of the value under its own type, for
        /// `InjectedValues.current = ...`.
        let registration: @Sendable () -> (key: TypeKey, entry: AnyRegistryEntry)
        /// Tells an override set on a copy from one the copy inherited from
        /// the task's scope, so assigning `current` registers only the former.
        let serial: UInt64

        private static let serials = PlatformAtomic<UInt64>(0)

        init<Value: Sendable>(value: Value) {
            self.boxed = OverrideValue(value)
            self.registration = { (typeKey(Value.self), PrebuiltEntry(value, factory: nil)) }
            self.serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
        }
    }

    private(set) var byKey: [ObjectIdentifier: Override] = [:]
    private var byValueType: [ObjectIdentifier: any Sendable] = [:]
    private var scopeTokens: [OverrideScopeToken] = []
    /// Set only on the copy that a cached `@Injected` read evaluates: the
    /// reads made through it say there whether their results may be cached.
    var readRecord: ReadRecord?

    init() {}

    @TaskLocal package static var task = InjectedValues()

    /// The value of `key`: an override set on this value, else the live
    /// container's registration of `K.Value`, else the key's default for
    /// the current context. Never fails: a cycle or a `.task` registration
    /// read outside `withTaskScope` falls back to the default (the error is
    /// logged).
    ///
    /// Setting it records an override on this value only; it takes effect
    /// when the value is installed by `withInjectedValues` or assigned to
    /// ``current``.
    ///
    /// ```swift
    /// extension InjectedValues {
    ///     var clock: any Clock {
    ///         get { self[ClockKey.self] }
    ///         set { self[ClockKey.self] = newValue }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter key: The key type.
    public subscript<K: InjectedKey>(_ key: K.Type) -> K.Value {
        get {
            if !byKey.isEmpty, let override = byKey[ObjectIdentifier(key)] {
                readRecord?.cacheable = false
                // byKey[K] is only ever set by this subscript's setter, with a K.Value.
                return unsafeDowncast(override.boxed, to: OverrideValue<K.Value>.self).value
            }
            do {
                var cacheable = false
                if let resolved = try Resolver.resolve(K.Value.self, in: nil, cacheable: &cacheable) {
                    readRecord?.note(cacheable: cacheable)
                    return resolved
                }
            } catch {
                // A cycle or a task-scoped registration outside a scope: the
                // registration cannot serve this read; the default does.
                DILog.failure(error)
                readRecord?.cacheable = false
            }
            return DefaultValues.value(for: key)
        }
        set {
            byKey[ObjectIdentifier(key)] = Override(value: newValue)
            byValueType[ObjectIdentifier(K.Value.self)] = newValue
        }
    }

    /// An override whose value has type `T`, whichever key set it.
    package func overriddenValue<T>(ofType type: T.Type) -> T? {
        byValueType.isEmpty ? nil : byValueType[ObjectIdentifier(T.self)] as? T
    }

    mutating func enterScope() {
        scopeTokens.append(OverrideScopeToken(enclosing: scopeTokens.last))
    }

    /// The innermost `withInjectedValues` scope these values belong to.
    var innermostScope: OverrideScopeToken? { scopeTokens.last }
}

/// Whether everything one read resolved may be cached (see `Resolver`),
/// and, for a type slot's read whose value is not cacheable because it was
/// built from a transient, weak or `.task` registration of the live
/// container, that registration: the slot keeps it, so its next read builds
/// without the unspecialised resolution path.
@usableFromInline
package final class ReadRecord: @unchecked Sendable {
    var cacheable = true
    /// The type whose registration the reader would keep (a type slot's
    /// value type, or for a `T?` slot `T?`, which keeps `T`'s), so a read
    /// of another type does not look its registration up for nothing.
    let entryWanted: ObjectIdentifier
    var entry: AnyRegistryEntry?
    /// The type whose registration answered, if one did: a value is cached
    /// for `UnifiedDI.resolve` too only when it is the slot's own type.
    var registeredType: ObjectIdentifier?

    init(keepingEntryOf type: Any.Type) { entryWanted = ObjectIdentifier(type) }

    func note(cacheable resolved: Bool) {
        if !resolved { cacheable = false }
    }
}

/// An override's value, boxed in its own type (see `InjectedValues.Override`).
final class OverrideValue<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
