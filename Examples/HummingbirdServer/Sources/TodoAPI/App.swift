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
