import Logging
import TodoServices
import Vapor
import WeaveDI

/// Adds the routes (and, under `.di`, the request-scope middleware and the
/// shutdown handler, sharing `inFlight`) of either wiring to `app`. Under
/// `.di` the services must have been registered
/// (`DIWiring.registerServices()`) and started (`UnifiedDI.start(timeout:)`);
/// under `.manual`, `store` is used.
public func configure(
    _ app: Application,
    wiring: Wiring,
    store: TodoStore = TodoStore(pool: nil),
    inFlight: InFlightRequests = InFlightRequests()
) {
    // Vapor's default middleware logs every request at info; at debug
    // instead, so that the default level logs nothing per request, as the
    // Hummingbird example does, and the load test measures the same work.
    app.middleware = Middlewares()
    app.middleware.use(RouteLoggingMiddleware(logLevel: .debug))
    app.middleware.use(ErrorMiddleware.default(environment: app.environment))
    switch wiring {
    case .di:
        // After ErrorMiddleware, so that errors become responses outside the
        // scope and the scope spans exactly the handler's work.
        app.middleware.use(TaskScopeMiddleware(inFlight: inFlight))
        app.lifecycle.use(ReleaseDependenciesOnShutdown(inFlight: inFlight))
        DIWiring.addRoutes(to: app)
    case .manual:
        ManualWiring.addRoutes(to: app, store: store)
    }
}

/// Both wirings in one application, the DI routes under `/di` (with the
/// request-scope middleware on that group only) and the same routes wired by
/// hand under `/manual`, for a load test that compares them in one process
/// (`scripts/loadtest.sh`): the same warm process serves both, so the
/// difference is the wiring's, not the difference between two server
/// starts. The services must have been registered (`DIWiring.registerServices()`)
/// and started.
public func configureComparison(
    _ app: Application,
    store: TodoStore,
    inFlight: InFlightRequests = InFlightRequests()
) {
    app.middleware = Middlewares()
    app.middleware.use(RouteLoggingMiddleware(logLevel: .debug))
    app.middleware.use(ErrorMiddleware.default(environment: app.environment))
    app.lifecycle.use(ReleaseDependenciesOnShutdown(inFlight: inFlight))
    DIWiring.addRoutes(to: app.grouped("di").grouped(TaskScopeMiddleware(inFlight: inFlight)))
    ManualWiring.addRoutes(to: app.grouped("manual"), store: store)
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

/// Closes the hand-wired store, then its pool, when the application shuts
/// down, once the requests in flight have finished.
struct CloseStoreOnShutdown: LifecycleHandler {
    let store: TodoStore
    let inFlight: InFlightRequests

    func shutdownAsync(_ application: Application) async {
        _ = await inFlight.drain(timeout: .seconds(10))
        await store.closeWithPool()
    }
}

/// The whole application, bound to 127.0.0.1 only. `arguments` are Vapor's
/// (its command, `serve` by default); the example's own options are parsed
/// before, by the executable.
/// With `wiring` nil, both wirings (`configureComparison`). Unless `wiring`
/// is `.manual`, the services start first (`startServices`): a failed start
/// throws `DIError.startFailed` and no application is made. The hand-wired
/// routes get their own pool, connected here (its sessions are named
/// `todo-api-manual`) and closed at the application's shutdown.
public func buildApplication(
    wiring: Wiring?,
    port: Int,
    logger: Logger,
    settings: DatabaseSettings = DatabaseSettings(),
    startTimeout: Duration = .seconds(10),
    arguments: [String] = [CommandLine.arguments.first ?? "vapor-server", "serve"]
) async throws -> Application {
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
    let app = try await Application.make(Environment(name: "production", arguments: arguments), logger: logger)
    app.http.server.configuration.hostname = "127.0.0.1"
    app.http.server.configuration.port = port
    let inFlight = InFlightRequests()
    if let wiring {
        configure(app, wiring: wiring, store: manualStore ?? TodoStore(pool: nil), inFlight: inFlight)
    } else {
        configureComparison(app, store: manualStore!, inFlight: inFlight)
    }
    if let manualStore {
        app.lifecycle.use(CloseStoreOnShutdown(store: manualStore, inFlight: inFlight))
    }
    return app
}
