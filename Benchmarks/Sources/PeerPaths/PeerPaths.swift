// The peers, on the same service shape (a protocol existential backed by a
// final class, registered as a shared instance unless said otherwise) and
// the same table sizes, measured in the same run as WeaveDI.
import Dependencies
import Swinject
import WeaveDIBenchPaths

// MARK: swift-dependencies

struct BenchServiceDependencyKey: DependencyKey {
    static let liveValue: BenchService = BenchServiceImpl(value: 3)
}

extension DependencyValues {
    var benchService: BenchService {
        get { self[BenchServiceDependencyKey.self] }
        set { self[BenchServiceDependencyKey.self] = newValue }
    }
}

final class DependencyConsumer: @unchecked Sendable {
    @Dependency(\.benchService) var service
}

struct AccountsDependencyKey: DependencyKey { static let liveValue: Accounts = AccountsService() }
struct BillingDependencyKey: DependencyKey { static let liveValue: Billing = BillingService() }
struct MailDependencyKey: DependencyKey { static let liveValue: Mail = MailService() }

extension DependencyValues {
    var accounts: Accounts {
        get { self[AccountsDependencyKey.self] }
        set { self[AccountsDependencyKey.self] = newValue }
    }
    var billing: Billing {
        get { self[BillingDependencyKey.self] }
        set { self[BillingDependencyKey.self] = newValue }
    }
    var mail: Mail {
        get { self[MailDependencyKey.self] }
        set { self[MailDependencyKey.self] = newValue }
    }
}

/// The request-path handler with swift-dependencies.
final class DependencyHandler {
    @Dependency(\.accounts) var accounts
    @Dependency(\.billing) var billing
    @Dependency(\.mail) var mail
    @inline(never)
    func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

/// The request-path handler with Swinject: a transient graph over
/// container-scoped services, resolved per request.
final class SwinjectHandler {
    let accounts: Accounts
    let billing: Billing
    let mail: Mail
    init(accounts: Accounts, billing: Billing, mail: Mail) {
        self.accounts = accounts
        self.billing = billing
        self.mail = mail
    }
    @inline(never)
    func handle() -> Int { accounts.work() + billing.work() + mail.work() }
}

final class SwinjectHandlerBox: @unchecked Sendable {
    let resolver: Resolver
    init() {
        let container = Container()
        container.register(Accounts.self) { _ in AccountsService() }.inObjectScope(.container)
        container.register(Billing.self) { _ in BillingService() }.inObjectScope(.container)
        container.register(Mail.self) { _ in MailService() }.inObjectScope(.container)
        container.register(SwinjectHandler.self) { r in
            SwinjectHandler(accounts: r.resolve(Accounts.self)!, billing: r.resolve(Billing.self)!, mail: r.resolve(Mail.self)!)
        }
        resolver = container.synchronize()
    }
}

// MARK: Swinject

/// Swinject's containers are not Sendable; the plain ones are only used from
/// one thread at a time, the synchronized ones from several.
final class SwinjectBox: @unchecked Sendable {
    let container: Container
    let resolver: Resolver
    init(scope: ObjectScope, synchronized: Bool, tableKeys: [any NestKey]) {
        container = Container()
        container.register(BenchService.self) { _ in BenchServiceImpl() }.inObjectScope(scope)
        container.register(BenchService.self, name: "replica") { _ in BenchServiceImpl() }.inObjectScope(scope)
        container.register(BenchService.self) { (_, _: Int) in BenchServiceImpl() }.inObjectScope(scope)
        let register = SwinjectRegister(container: container)
        for key in tableKeys { key.apply(register) }
        resolver = synchronized ? container.synchronize() : container
    }
}

struct SwinjectRegister: NestAction {
    let container: Container
    func callAsFunction<T>(_ type: Nest<T>.Type) {
        container.register(type) { _ in Nest<T>(id: 0) }.inObjectScope(.container)
    }
}

/// The peer paths at a table size (the same number of registered types as
/// WeaveDI's table: the service plus Nest types).
public func peerPaths(tableSize: Int) -> [BenchPath] {
    let tableKeys = makeNestKeys(count: max(0, tableSize - 1))
    var paths: [BenchPath] = []
    for (scope, scopeName, scopeID) in [(ObjectScope.container, "container scope", "container"), (.transient, "transient", "transient")] {
        for synchronized in [false, true] {
            let box = SwinjectBox(scope: scope, synchronized: synchronized, tableKeys: tableKeys)
            // Each read beside WeaveDI's row of the same shape: by type, by
            // name, with an argument (Swinject's container scope keeps the
            // first instance whatever the argument; WeaveDI builds a new one).
            let reads: [(suffix: String, spelling: String, read: @Sendable (Resolver) -> BenchService?)] = [
                ("", "resolve", { $0.resolve(BenchService.self) }),
                (".named", "resolve(_:name:)", { $0.resolve(BenchService.self, name: "replica") }),
                (".argument", "resolve(_:argument:)", { $0.resolve(BenchService.self, argument: 42) }),
            ]
            for (suffix, spelling, read) in reads {
                paths.append(
                    BenchPath(
                        id: "swinject.\(scopeID)\(synchronized ? ".sync" : "")\(suffix)",
                        label: "Swinject \(spelling), \(scopeName)\(synchronized ? ", .synchronize()" : "")",
                        group: "peer:swinject",
                        multiThread: synchronized,
                        costScale: 10,
                        run: { n in
                            let resolver = box.resolver
                            for _ in 0..<n { consume(read(resolver)) }
                        }))
            }
        }
    }
    let handlerBox = SwinjectHandlerBox()
    paths.append(
        BenchPath(
            id: "swinject.handler", label: "handler, Swinject graph over container-scope services",
            group: "peer:swinject", costScale: 10,
            run: { n in for _ in 0..<n { consume(handlerBox.resolver.resolve(SwinjectHandler.self)!.handle()) } }))
    paths.append(
        BenchPath(
            id: "dependencies.handler", label: "handler, 3 swift-dependencies @Dependency",
            group: "peer:swift-dependencies",
            run: { n in for _ in 0..<n { consume(DependencyHandler().handle()) } }))
    let consumer = DependencyConsumer()
    paths.append(
        BenchPath(
            id: "dependencies.read", label: "swift-dependencies @Dependency read", group: "peer:swift-dependencies",
            run: { n in for _ in 0..<n { consume(consumer.service) } }))
    paths.append(
        BenchPath(
            id: "dependencies.withdependencies.read", label: "@Dependency read inside withDependencies",
            group: "peer:swift-dependencies",
            run: { n in
                withDependencies {
                    $0.benchService = Floor.service
                } operation: {
                    for _ in 0..<n { consume(consumer.service) }
                }
            }))
    paths.append(
        BenchPath(
            id: "dependencies.withdependencies.scope", label: "withDependencies { override } + 1 read",
            group: "peer:swift-dependencies", costScale: 10,
            run: { n in
                for _ in 0..<n {
                    withDependencies {
                        $0.benchService = Floor.service
                    } operation: {
                        consume(consumer.service)
                    }
                }
            }))
    return paths
}

// MARK: startup

private struct SwinjectResolveNest: NestAction {
    let container: Container
    func callAsFunction<T>(_ type: Nest<T>.Type) { consume(container.resolve(type)?.id) }
}

private final class SwinjectStartupBox: @unchecked Sendable {
    var container = Container()
}

private let swinjectStartupBox = SwinjectStartupBox()

/// Swinject in the startup case: `.container` scope (its singleton), one
/// container, used from one thread.
public let swinjectStartup = StartupContender(
    name: "Swinject",
    register: { keys in
        let register = SwinjectRegister(container: swinjectStartupBox.container)
        for key in keys { key.apply(register) }
    },
    resolve: { keys in
        let resolve = SwinjectResolveNest(container: swinjectStartupBox.container)
        for key in keys { key.apply(resolve) }
    },
    releaseAll: {
        swinjectStartupBox.container.removeAll()
        swinjectStartupBox.container = Container()
    })
