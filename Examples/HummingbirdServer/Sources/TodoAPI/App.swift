import Hummingbird
import Logging
import TodoServices
import WeaveDI

/// The router of either wiring. Under `.di` the services must have been
/// registered (`DIWiring.registerServices()`) and started
/// (`UnifiedDI.start(timeout:)`); under `.manual`, `store` is used.
public func buildRouter(wiring: Wiring, store: TodoStore = TodoStore(pool: nil)) -> Router<TodoRequestContext> {
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
public func buildComparisonRouter(store: TodoStore) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    DIWiring.addRoutes(to: router.group("di"))
    ManualWiring.addRoutes(to: router.group("manual"), store: store)
    return router
}

/// Registers the DI wiring's services and starts the live container: every
/// singleton is built before the application exists, the pool connecting
/// to PostgreSQL and migrating (awaited), then the store, each within
/// `timeout`. A failed start shuts down what was built and throws
/// `DIError.startFailed`, naming each service that failed or hung and the
/// chain waiting on it, so nothing is served.
func startServices(settings: DatabaseSettings, logger: Logger, timeout: Duration) async throws {
    DIWiring.registerServices(settings: settings, logger: logger)
    do {
        try await UnifiedDI.start(timeout: timeout)
    } catch {
        await UnifiedDI.shutdown()
        throw error
    }
}

/// A server ready to run: the application and what its wiring opened.
public struct TodoServer: Sendable {
    public let application: any ApplicationProtocol
    /// Whether the DI wiring's services were started (they are shut down
    /// by ``stop()``).
    public let startedServices: Bool
    /// The hand-wired store and its pool, closed by ``stop()``.
    public let manualStore: TodoStore?

    /// Serves until SIGTERM or SIGINT, then ``stop()``.
    public func run() async throws {
        try await application.runService()
        await stop()
    }

    /// Closes in dependency order once the application has stopped, which
    /// Hummingbird does after the requests in flight have finished: the DI
    /// container (the store, then the pool, newest first), then the
    /// hand-wired store and pool.
    public func stop() async {
        if startedServices {
            await UnifiedDI.shutdown()
        }
        await manualStore?.closeWithPool()
    }
}

/// The whole application, bound to 127.0.0.1 only. `wiring` nil: both
/// wirings in one router (`buildComparisonRouter`, for the load test).
/// Unless `wiring` is `.manual`, the DI wiring's services start first
/// (`startServices`): a failed start throws `DIError.startFailed` and no
/// application is built. The hand-wired routes get their own pool,
/// connected here (its sessions are named `todo-api-manual`).
public func buildServer(
    wiring: Wiring?,
    port: Int,
    logger: Logger,
    settings: DatabaseSettings = DatabaseSettings(),
    startTimeout: Duration = .seconds(10)
) async throws -> TodoServer {
    if wiring != .manual {
        try await startServices(settings: settings, logger: logger, timeout: startTimeout)
    }
    var manualStore: TodoStore?
    if wiring != .di {
        do {
            manualStore = try await TodoStore.connectedByHand(settings: settings, logger: logger)
        } catch {
            if wiring == nil { await UnifiedDI.shutdown() }
            throw error
        }
    }
    let router: Router<TodoRequestContext>
    if let wiring {
        router = buildRouter(wiring: wiring, store: manualStore ?? TodoStore(pool: nil))
    } else {
        router = buildComparisonRouter(store: manualStore!)
    }
    let application = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
    return TodoServer(application: application, startedServices: wiring != .manual, manualStore: manualStore)
}
