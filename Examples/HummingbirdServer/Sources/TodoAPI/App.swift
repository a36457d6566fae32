import Hummingbird
import Logging
import WeaveDI

/// Where the handlers' services come from.
public enum Wiring: String, Sendable, CaseIterable {
    /// Through WeaveDI: `@Injected`, `UnifiedDI`, a `.task` scope per request.
    case di
    /// Constructed by hand and passed explicitly.
    case manual
}

/// The router of either wiring. Under `.di` the services must have been
/// registered (`DIWiring.registerServices()`) and started
/// (`UnifiedDI.start(timeout:)`); under `.manual`, `store` is used.
public func buildRouter(wiring: Wiring, store: TodoStore = .seeded()) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    switch wiring {
    case .di:
        DIWiring.addRoutes(to: router)
    case .manual:
        ManualWiring.addRoutes(to: router, store: store)
    }
    return router
}

/// Both wirings in one router, the DI routes under `/di` and the same
/// routes wired by hand under `/manual`, for a load test that compares them
/// in one process (`scripts/loadtest.sh`): the same warm process, heap and
/// code layout serve both, so the difference is the wiring's, not the
/// difference between two server starts. The services must have been
/// registered (`DIWiring.registerServices()`) and started.
public func buildComparisonRouter(store: TodoStore = .seeded()) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    DIWiring.addRoutes(to: router.group("di"))
    ManualWiring.addRoutes(to: router.group("manual"), store: store)
    return router
}

/// Registers the DI wiring's services and starts the live container: every
/// singleton is built before the application exists, the pool connecting
/// (awaited) and the store loading through it, each within `timeout`. A
/// failed start shuts down what was built and throws `DIError.startFailed`,
/// naming each service that failed or hung, so nothing is served.
func startServices(databaseURL: String, timeout: Duration) async throws {
    DIWiring.registerServices(databaseURL: databaseURL)
    do {
        try await UnifiedDI.start(timeout: timeout)
    } catch {
        await UnifiedDI.shutdown()
        throw error
    }
}

/// The comparison application (`buildComparisonRouter`), bound to 127.0.0.1
/// only, once the DI wiring's services have started (`startServices`).
public func buildComparisonApplication(
    port: Int,
    logger: Logger,
    databaseURL: String = ConnectionPool.defaultURL,
    startTimeout: Duration = .seconds(10)
) async throws -> some ApplicationProtocol {
    try await startServices(databaseURL: databaseURL, timeout: startTimeout)
    return Application(
        router: buildComparisonRouter(),
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
}

/// The whole application, bound to 127.0.0.1 only. Under `.di`, the
/// services start first (`startServices`): a failed start throws
/// `DIError.startFailed` and no application is built.
public func buildApplication(
    wiring: Wiring,
    port: Int,
    logger: Logger,
    databaseURL: String = ConnectionPool.defaultURL,
    startTimeout: Duration = .seconds(10)
) async throws -> some ApplicationProtocol {
    if wiring == .di {
        try await startServices(databaseURL: databaseURL, timeout: startTimeout)
    }
    return Application(
        router: buildRouter(wiring: wiring),
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
}
