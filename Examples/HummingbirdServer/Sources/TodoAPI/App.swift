import Hummingbird
import Logging

/// Where the handlers' services come from.
public enum Wiring: String, Sendable, CaseIterable {
    /// Through WeaveDI: `@Injected`, `UnifiedDI`, a `.task` scope per request.
    case di
    /// Constructed by hand and passed explicitly.
    case manual
}

/// The router of either wiring. Under `.di` the services must have been
/// registered (`DIWiring.registerServices()`); under `.manual`, `store` is used.
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
/// registered (`DIWiring.registerServices()`).
public func buildComparisonRouter(store: TodoStore = .seeded()) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    DIWiring.addRoutes(to: router.group("di"))
    ManualWiring.addRoutes(to: router.group("manual"), store: store)
    return router
}

/// The comparison application (`buildComparisonRouter`), bound to 127.0.0.1 only.
public func buildComparisonApplication(port: Int, logger: Logger) -> some ApplicationProtocol {
    DIWiring.registerServices()
    return Application(
        router: buildComparisonRouter(),
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
}

/// The whole application, bound to 127.0.0.1 only.
public func buildApplication(wiring: Wiring, port: Int, logger: Logger) -> some ApplicationProtocol {
    if wiring == .di {
        DIWiring.registerServices()
    }
    return Application(
        router: buildRouter(wiring: wiring),
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        logger: logger
    )
}
