import WeaveDI

// The request path: what a server does per request around the steady read.
// A "handler" is a final class with three injected services, built, each
// service read once, dropped; the hand-built handler is the floor.

public protocol RequestService: Sendable { func work() -> Int }

public final class AccountsService: RequestService {
    public init() {}
    public func work() -> Int { 1 }
}

public final class BillingService: RequestService {
    public init() {}
    public func work() -> Int { 2 }
}

public final class MailService: RequestService {
    public init() {}
    public func work() -> Int { 3 }
}

/// Distinct protocol types so each service has its own registration.
public protocol Accounts: RequestService {}
public protocol Billing: RequestService {}
public protocol Mail: RequestService {}
extension AccountsService: Accounts {}
extension BillingService: Billing {}
extension MailService: Mail {}

public enum RequestFloor {
    public static let accounts: Accounts = AccountsService()
    public static let billing: Billing = BillingService()
    public static let mail: Mail = MailService()
}

public struct AccountsKey: InjectedKey { public static let liveValue: Accounts = AccountsService() }
public struct BillingKey: InjectedKey { public static let liveValue: Billing = BillingService() }
public struct MailKey: InjectedKey { public static let liveValue: Mail = MailService() }

extension InjectedValues {
    public var accounts: Accounts {
        get { self[AccountsKey.self] }
        set { self[AccountsKey.self] = newValue }
    }
    public var billing: Billing {
        get { self[BillingKey.self] }
        set { self[BillingKey.self] = newValue }
    }
    public var mail: Mail {
        get { self[MailKey.self] }
        set { self[MailKey.self] = newValue }
    }
}

public final class HandBuiltHandler {
    let accounts: Accounts
    let billing: Billing
    let mail: Mail
    public init() {
        accounts = RequestFloor.accounts
        billing = RequestFloor.billing
        mail = RequestFloor.mail
    }
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class KeyPathHandler {
    @Injected(\.accounts) var accounts
    @Injected(\.billing) var billing
    @Injected(\.mail) var mail
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class KeyTypeHandler {
    @Injected(AccountsKey.self) var accounts
    @Injected(BillingKey.self) var billing
    @Injected(MailKey.self) var mail
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class TypeHandler {
    @Injected var accounts: Accounts
    @Injected var billing: Billing
    @Injected var mail: Mail
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class OptionalTypeHandler {
    @Injected var accounts: Accounts?
    @Injected var billing: Billing?
    @Injected var mail: Mail?
    public init() {}
    @inline(never)
    public func handle() -> Int { (accounts?.work() ?? 0) + (billing?.work() ?? 0) + (mail?.work() ?? 0) }
}

@available(*, deprecated, message: "measured on purpose")
public final class InjectHandler {
    @Inject var accounts: Accounts?
    @Inject var billing: Billing?
    @Inject var mail: Mail?
    public init() {}
    @inline(never)
    public func handle() -> Int { (accounts?.work() ?? 0) + (billing?.work() ?? 0) + (mail?.work() ?? 0) }
}

/// Builds the deprecated handler through a witness, so measuring it does not warn.
public protocol DeprecatedHandlers: Sendable { func injectHandler() -> Int }
struct DeprecatedHandlersImpl: DeprecatedHandlers {
    @available(*, deprecated)
    func injectHandler() -> Int { InjectHandler().handle() }
}
public let deprecatedHandlers: any DeprecatedHandlers = DeprecatedHandlersImpl()

/// A transient whose factory resolves three singletons.
public final class Checkout: Sendable {
    let accounts: Accounts?
    let billing: Billing?
    let mail: Mail?
    init() {
        accounts = UnifiedDI.resolve(Accounts.self)
        billing = UnifiedDI.resolve(Billing.self)
        mail = UnifiedDI.resolve(Mail.self)
    }
}

/// Task-scoped per-request state.
public final class RequestContext: Sendable { public init() {} }
public final class UnitOfWork: Sendable { public init() {} }
public final class LazySingleton: Sendable { public init() {} }
public final class WeakShared: Sendable { public init() {} }
public final class TransientThing: Sendable { public init() {} }
/// An eager singleton of a class, next to `BenchService`'s (an existential).
public final class EagerShared: Sendable { public init() {} }

/// `@Injected var` of a transient: a read that is never cached.
public final class TransientReader: @unchecked Sendable {
    @Injected public var thing: TransientThing
    @Injected public var optionalThing: TransientThing?
    public init() {}
}

/// Keeps the weak registration's instance alive, as a real holder would.
nonisolated(unsafe) var weakKeeper: WeakShared?

/// Registers the request-path services in the live container.
public func registerRequestServices() {
    UnifiedDI.register(Accounts.self) { AccountsService() }
    UnifiedDI.register(Billing.self) { BillingService() }
    UnifiedDI.register(Mail.self) { MailService() }
    UnifiedDI.register(Checkout.self, scope: .transient) { Checkout() }
    UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext() }
    UnifiedDI.register(UnitOfWork.self, scope: .task) { UnitOfWork() }
    UnifiedDI.register(LazySingleton.self, scope: .singleton) { LazySingleton() }
    UnifiedDI.register(WeakShared.self, scope: .weak) { WeakShared() }
    UnifiedDI.register(TransientThing.self, scope: .transient) { TransientThing() }
    UnifiedDI.register(TransientThing.self) { (_: Int) in TransientThing() }
    _ = UnifiedDI.register(EagerShared.self) { EagerShared() }
    _ = UnifiedDI.resolve(LazySingleton.self)
    weakKeeper = UnifiedDI.resolve(WeakShared.self)
}

public func requestPaths() -> [BenchPath] {
    [
        BenchPath(
            id: "handler.hand", label: "handler, 3 services wired by hand (floor)", group: "request",
            run: { n in for _ in 0..<n { consume(HandBuiltHandler().handle()) } }),
        BenchPath(
            id: "handler.inject", label: "handler, 3 @Inject", group: "request",
            run: { n in for _ in 0..<n { consume(deprecatedHandlers.injectHandler()) } }),
        BenchPath(
            id: "handler.injected.keypath", label: "handler, 3 @Injected(\\.key)", group: "request",
            run: { n in for _ in 0..<n { consume(KeyPathHandler().handle()) } }),
        BenchPath(
            id: "handler.injected.keytype", label: "handler, 3 @Injected(Key.self)", group: "request",
            run: { n in for _ in 0..<n { consume(KeyTypeHandler().handle()) } }),
        BenchPath(
            id: "handler.injected.type", label: "handler, 3 @Injected var s: S", group: "request",
            run: { n in for _ in 0..<n { consume(TypeHandler().handle()) } }),
        BenchPath(
            id: "handler.injected.optional", label: "handler, 3 @Injected var s: S?", group: "request",
            run: { n in for _ in 0..<n { consume(OptionalTypeHandler().handle()) } }),
        BenchPath(
            id: "resolve.transient3", label: "UnifiedDI.resolve, transient resolving 3 singletons", group: "request",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(Checkout.self)) } }),
        BenchPath(
            id: "taskscope.request", label: "withTaskScope + 2 .task resolves + @Injected handler", group: "request",
            costScale: 4,
            run: { n in
                for _ in 0..<n {
                    withTaskScope {
                        consume(UnifiedDI.resolve(RequestContext.self))
                        consume(UnifiedDI.resolve(UnitOfWork.self))
                        consume(KeyPathHandler().handle())
                    }
                }
            }),
        BenchPath(
            id: "resolve.singleton.lazy", label: "UnifiedDI.resolve, lazy singleton (built)", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(LazySingleton.self)) } }),
        BenchPath(
            id: "resolve.singleton.eager", label: "UnifiedDI.resolve, eager singleton of a class", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(EagerShared.self)) } }),
        // The floor in the shape `UnifiedDI.resolve` returns: an Optional of
        // the existential, which the caller destroys through the runtime.
        BenchPath(
            id: "floor.optional", label: "floor returned as an Optional", group: "resolve",
            run: { n in for _ in 0..<n { consume(Floor.ownedOptional()) } }),
        BenchPath(
            id: "resolve.weak", label: "UnifiedDI.resolve, weak (instance alive)", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(WeakShared.self)) } }),
        BenchPath(
            id: "resolve.transient", label: "UnifiedDI.resolve, transient", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(TransientThing.self)) } }),
        BenchPath(
            id: "resolve.transient.argument", label: "UnifiedDI.resolve(S.self, argument:), new object", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(TransientThing.self, argument: 42)) } }),
        BenchPath(
            id: "injected.type.transient", label: "@Injected var s: S, transient", group: "resolve",
            run: { n in
                let reader = TransientReader()
                for _ in 0..<n { consume(reader.thing) }
            }),
        BenchPath(
            id: "injected.optional.transient", label: "@Injected var s: S?, transient", group: "resolve",
            run: { n in
                let reader = TransientReader()
                for _ in 0..<n { consume(reader.optionalThing) }
            }),
    ]
}
