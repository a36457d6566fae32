import Logging

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// WeaveDI's diagnostics through swift-log, under the label "WeaveDI".
///
/// Registrations, misses and captive dependencies are logged at `.debug`,
/// a `.task` service resolved outside a scope at `.warning`, cycles and
/// failed bootstraps at `.error`. Every message is an autoclosure: with the
/// level above it, nothing is built. Lookups that hit log nothing at all.
///
/// ```swift
/// var logger = Logger(label: "WeaveDI")
/// logger.logLevel = .debug
/// DILog.logger = logger
/// ```
public enum DILog {
    /// The logger WeaveDI writes to. Replace it to route WeaveDI's
    /// diagnostics elsewhere or change the level (default `.info`, so
    /// the `.debug` messages are off). Reading and assigning are
    /// thread-safe; `UnifiedDI.setLogLevel(_:)` assigns it too.
    ///
    /// ```swift
    /// DILog.logger = Logger(label: "app.di")
    /// ```
    public static var logger: Logger {
        get { storage.withLock { $0 } }
        set {
            storage.withLock { logger in
                logger = newValue
                storeSlowPath(logger)
            }
        }
    }

    private static let storage = Locked(Logger(label: "WeaveDI"))
    /// Whether the logger logs `.debug` or a registration or miss callback
    /// is installed (`RegistryObservers`), so that a miss (the normal case
    /// for a key with a default) costs one atomic load when neither is.
    private static let debugEnabled = PlatformAtomic<Bool>(Logger(label: "WeaveDI").logLevel <= .debug)

    /// Sets the flag from the logger and the callbacks, under the logger's
    /// lock, so that a change of either never loses to a stale one.
    static func refreshSlowPath() {
        storage.withLock { storeSlowPath($0) }
    }

    private static func storeSlowPath(_ logger: Logger) {
        let on = logger.logLevel <= .debug || RegistryObservers.current.hearsRegistrationsOrMisses
        debugEnabled.store(on, ordering: .relaxed)
    }

    static func registered(_ type: Any.Type, scope: ProvideScope?) {
        guard debugEnabled.load(ordering: .relaxed) else { return }
        let observers = RegistryObservers.current
        if observers.tracking {
            observers.registered?(type)
        }
        let logger = logger
        guard logger.logLevel <= .debug else { return }
        logger.debug("registered \(qualifiedTypeName(type))", metadata: ["scope": "\(scope.map { "\($0)" } ?? "eager")"])
    }

    static func miss(_ type: Any.Type) {
        guard debugEnabled.load(ordering: .relaxed) else { return }
        RegistryObservers.current.missed?(type)
        let logger = logger
        guard logger.logLevel <= .debug else { return }
        let close = MissSuggestions.suggestions(for: type)
        logger.debug(
            close.isEmpty
                ? "no registration for \(qualifiedTypeName(type))"
                : "no registration for \(qualifiedTypeName(type)); registered that looks close: \(close.joined(separator: "; "))")
    }

    @usableFromInline static func failure(_ error: DIError) {
        switch error {
        case .circularDependency, .startFailed:
            logger.error("\(error.description)")
        default:
            logger.debug("\(error.description)")
        }
    }

    /// An async resolve that returns nil: a failure at `.error` (its cause
    /// was logged where it was thrown), a miss at `.debug`, a cancelled wait
    /// not at all.
    static func asyncFailure(_ error: any Error) {
        guard let error = error as? DIError else { return }
        failure(error)
    }

    /// A singleton's factory built a transient, weak or task-scoped service:
    /// the singleton keeps that one instance for as long as it lives.
    @usableFromInline static func captive(singleton: Any.Type?, dependency: Any.Type, lifetime: ProvideScope) {
        guard debugEnabled.load(ordering: .relaxed) else { return }
        let logger = logger
        guard logger.logLevel <= .debug else { return }
        let owner = singleton.map { qualifiedTypeName($0) } ?? "a singleton"
        logger.debug(
            "captive dependency: singleton \(owner) resolved the \(lifetime)-scoped \(qualifiedTypeName(dependency)) while being built and keeps that instance for as long as it lives"
        )
    }

    /// The system refused `start(timeout:)` a thread for a build: that
    /// build runs on the cooperative pool, where a factory that never
    /// returns keeps one of its threads.
    static func buildThreadRefused() {
        logger.warning("start: the system refused a thread for a build; it runs on the cooperative pool instead")
    }

    @usableFromInline static func scopeLeak(_ type: Any.Type) {
        logger.warning("\(qualifiedTypeName(type)) is task-scoped but was resolved outside withTaskScope")
    }
}
