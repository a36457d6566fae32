import WeaveDI

/// The service shape every path (ours and the peers') resolves: a protocol
/// existential backed by a final class, so each read is a lookup plus a
/// retain/release of a shared instance.
public protocol BenchService: Sendable {
    func work() -> Int
}

public final class BenchServiceImpl: BenchService {
    public let value: Int
    public init(value: Int = 42) { self.value = value }
    public func work() -> Int { value }
}

/// A second, unregistered-at-start type used by the lazy-singleton and
/// registration paths.
public final class LazyServiceImpl: BenchService {
    public init() {}
    public func work() -> Int { 7 }
}

public struct BenchServiceKey: InjectedKey {
    public static let liveValue: BenchService = BenchServiceImpl(value: 1)
}

extension InjectedValues {
    public var benchService: BenchService {
        get { self[BenchServiceKey.self] }
        set { self[BenchServiceKey.self] = newValue }
    }
}

/// The floor: a `static let` read of the same existential (a load plus a
/// retain/release). Every figure is also shown as a multiple of it.
public enum Floor {
    public static let service: BenchService = heapService()

    /// The floor path's read: like a resolve, a call that returns an owned
    /// copy, which the caller releases after `consume`. Reading `service`
    /// directly into `consume` (a borrow) compiled to a load and a call
    /// with no retain at all, which is not what the floor stands for.
    @inline(never)
    public static func owned() -> BenchService { service }

    /// The same, returned as `UnifiedDI.resolve` returns it.
    @inline(never)
    public static func ownedOptional() -> BenchService? { service }

    /// Built at run time: a constant initialiser lets the compiler lay the
    /// instance out as a static, immortal object and drop its retains.
    @inline(never)
    private static func heapService() -> BenchService { BenchServiceImpl(value: 0) }
}

/// Keeps the optimizer from deleting a read whose result is unused.
@inline(never)
public func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// One property of each injection form, as an app type would hold them.
/// The wrappers are never reassigned, which makes sharing it safe.
public final class Consumers: @unchecked Sendable {
    @available(*, deprecated, message: "measured on purpose")
    @Inject public var inject: BenchService?
    @available(*, deprecated, message: "measured on purpose")
    @SafeInject public var safeInject: BenchService?
    @Injected(\.benchService) public var byKeyPath
    @Injected(BenchServiceKey.self) public var byKeyType
    @Injected public var byType: BenchService
    @Injected public var byOptionalType: BenchService?
    @Factory public var factory: BenchServiceImpl
    @LazyInjected(\.benchService) public var lazyByKeyPath
    @LazyInjected public var lazyByType: BenchService
    @Injected(name: "replica") public var byName: BenchService

    public init() {}
}

/// Calls the deprecated wrappers through a protocol witness, so measuring
/// them on purpose does not warn.
public protocol DeprecatedReads: Sendable {
    func inject(_ consumers: Consumers) -> BenchService?
    func safeInject(_ consumers: Consumers) -> BenchService?
}

struct DeprecatedReadsImpl: DeprecatedReads {
    @available(*, deprecated)
    func inject(_ consumers: Consumers) -> BenchService? { consumers.inject }
    @available(*, deprecated)
    func safeInject(_ consumers: Consumers) -> BenchService? { consumers.safeInject }
}

public let deprecatedReads: any DeprecatedReads = DeprecatedReadsImpl()
