import WeaveDI

// The request path with class-bound services (`protocol P: AnyObject`), the
// shape most services have: each stored service is one reference, where the
// non-class protocols of RequestPaths.swift store 40-byte existentials, so
// the hand-built floor is far cheaper and the wrappers' own cost shows.

public protocol AccountsObject: AnyObject, Sendable { func work() -> Int }
public protocol BillingObject: AnyObject, Sendable { func work() -> Int }
public protocol MailObject: AnyObject, Sendable { func work() -> Int }
extension AccountsService: AccountsObject {}
extension BillingService: BillingObject {}
extension MailService: MailObject {}

public enum ObjectRequestFloor {
    public static let accounts: AccountsObject = AccountsService()
    public static let billing: BillingObject = BillingService()
    public static let mail: MailObject = MailService()
}

public struct AccountsObjectKey: InjectedKey { public static let liveValue: AccountsObject = AccountsService() }
public struct BillingObjectKey: InjectedKey { public static let liveValue: BillingObject = BillingService() }
public struct MailObjectKey: InjectedKey { public static let liveValue: MailObject = MailService() }

extension InjectedValues {
    public var accountsObject: AccountsObject {
        get { self[AccountsObjectKey.self] }
        set { self[AccountsObjectKey.self] = newValue }
    }
    public var billingObject: BillingObject {
        get { self[BillingObjectKey.self] }
        set { self[BillingObjectKey.self] = newValue }
    }
    public var mailObject: MailObject {
        get { self[MailObjectKey.self] }
        set { self[MailObjectKey.self] = newValue }
    }
}

public final class HandBuiltObjectHandler {
    let accounts: AccountsObject
    let billing: BillingObject
    let mail: MailObject
    public init() {
        accounts = ObjectRequestFloor.accounts
        billing = ObjectRequestFloor.billing
        mail = ObjectRequestFloor.mail
    }
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class KeyPathObjectHandler {
    @Injected(\.accountsObject) var accounts
    @Injected(\.billingObject) var billing
    @Injected(\.mailObject) var mail
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class KeyTypeObjectHandler {
    @Injected(AccountsObjectKey.self) var accounts
    @Injected(BillingObjectKey.self) var billing
    @Injected(MailObjectKey.self) var mail
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class TypeObjectHandler {
    @Injected var accounts: AccountsObject
    @Injected var billing: BillingObject
    @Injected var mail: MailObject
    public init() {}
    @inline(never)
    public func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

public final class OptionalTypeObjectHandler {
    @Injected var accounts: AccountsObject?
    @Injected var billing: BillingObject?
    @Injected var mail: MailObject?
    public init() {}
    @inline(never)
    public func handle() -> Int { (accounts?.work() ?? 0) + (billing?.work() ?? 0) + (mail?.work() ?? 0) }
}

@available(*, deprecated, message: "measured on purpose")
public final class InjectObjectHandler {
    @Inject var accounts: AccountsObject?
    @Inject var billing: BillingObject?
    @Inject var mail: MailObject?
    public init() {}
    @inline(never)
    public func handle() -> Int { (accounts?.work() ?? 0) + (billing?.work() ?? 0) + (mail?.work() ?? 0) }
}

/// Builds the deprecated handler through a witness, so measuring it does not warn.
public protocol DeprecatedObjectHandlers: Sendable { func injectHandler() -> Int }
struct DeprecatedObjectHandlersImpl: DeprecatedObjectHandlers {
    @available(*, deprecated)
    func injectHandler() -> Int { InjectObjectHandler().handle() }
}
public let deprecatedObjectHandlers: any DeprecatedObjectHandlers = DeprecatedObjectHandlersImpl()

/// Registers the class-bound services in the live container.
public func registerObjectRequestServices() {
    UnifiedDI.register(AccountsObject.self) { AccountsService() }
    UnifiedDI.register(BillingObject.self) { BillingService() }
    UnifiedDI.register(MailObject.self) { MailService() }
}

public func objectRequestPaths() -> [BenchPath] {
    [
        BenchPath(
            id: "handler.object.hand", label: "handler, 3 class-bound services wired by hand (floor)", group: "request",
            run: { n in for _ in 0..<n { consume(HandBuiltObjectHandler().handle()) } }),
        BenchPath(
            id: "handler.object.inject", label: "handler, 3 class-bound @Inject", group: "request",
            run: { n in for _ in 0..<n { consume(deprecatedObjectHandlers.injectHandler()) } }),
        BenchPath(
            id: "handler.object.injected.keypath", label: "handler, 3 class-bound @Injected(\\.key)", group: "request",
            run: { n in for _ in 0..<n { consume(KeyPathObjectHandler().handle()) } }),
        BenchPath(
            id: "handler.object.injected.keytype", label: "handler, 3 class-bound @Injected(Key.self)", group: "request",
            run: { n in for _ in 0..<n { consume(KeyTypeObjectHandler().handle()) } }),
        BenchPath(
            id: "handler.object.injected.type", label: "handler, 3 class-bound @Injected var s: S", group: "request",
            run: { n in for _ in 0..<n { consume(TypeObjectHandler().handle()) } }),
        BenchPath(
            id: "handler.object.injected.optional", label: "handler, 3 class-bound @Injected var s: S?",
            group: "request",
            run: { n in for _ in 0..<n { consume(OptionalTypeObjectHandler().handle()) } }),
        BenchPath(
            id: "taskscope.object.request", label: "withTaskScope + 2 .task resolves + class-bound @Injected handler",
            group: "request", costScale: 4,
            run: { n in
                for _ in 0..<n {
                    withTaskScope {
                        consume(UnifiedDI.resolve(RequestContext.self))
                        consume(UnifiedDI.resolve(UnitOfWork.self))
                        consume(KeyPathObjectHandler().handle())
                    }
                }
            }),
        // The shape a server runs: the request is a task on the global
        // executor that awaits the scope (the async `withTaskScope`, whose
        // binding is the task's). Each request awaits one async call that
        // never suspends, as a handler's own async work would be; the floor
        // below runs the same loop with the hand-built handler. One thread
        // only: with two, both rows measured the executor (each doubled,
        // the floor as much as the request).
        BenchPath(
            id: "handler.object.hand.global",
            label: "handler, 3 class-bound by hand, in a task on the global executor (floor)", group: "request",
            multiThread: false, countable: false,
            run: { n in
                runOnGlobalExecutor {
                    for _ in 0..<n {
                        await requestWork()
                        consume(HandBuiltObjectHandler().handle())
                    }
                }
            }),
        BenchPath(
            id: "taskscope.object.request.global",
            label: "await withTaskScope on the global executor + 2 .task resolves + class-bound handler",
            group: "request", multiThread: false, costScale: 4, countable: false,
            run: { n in
                runOnGlobalExecutor {
                    for _ in 0..<n {
                        await withTaskScope {
                            await requestWork()
                            consume(UnifiedDI.resolve(RequestContext.self))
                            consume(UnifiedDI.resolve(UnitOfWork.self))
                            consume(KeyPathObjectHandler().handle())
                        }
                    }
                }
            }),
    ]
}
