/// How long an instance of a lazy registration lives.
///
/// ```swift
/// UnifiedDI.register(Database.self, scope: .singleton) { PostgresDatabase() }
/// UnifiedDI.register(Formatter.self, scope: .transient) { Formatter() }
/// UnifiedDI.register(ImageCache.self, scope: .weak) { ImageCache() }
/// UnifiedDI.register(RequestLog.self, scope: .task) { RequestLog() }
/// UnifiedDI.register(Logger.self, scope: .graph) { Logger() }
/// ```
///
/// Only the shared values (eager registrations and built singletons) are
/// kept by `@Injected`'s cache; the other scopes are resolved on every read.
/// A scope's raw value is its name (`ProvideScope(rawValue: "singleton")`).
public enum ProvideScope: String, Sendable, Hashable, CaseIterable {
    /// A new instance on every resolve. Nothing is kept.
    case transient
    /// One instance per registration, built on first resolve and kept until
    /// the registration is replaced or released. Concurrent first resolves
    /// build it once.
    case singleton
    /// Shared while someone holds a strong reference, built again after.
    /// Only class instances can be held weakly; a value type behaves as
    /// ``transient``.
    case weak
    /// One instance per `withTaskScope` (a server request), shared by its
    /// child tasks and released when the scope ends. Resolving it outside
    /// any scope fails with ``DIError/noActiveScope(type:)``.
    case task
    /// One instance per outermost resolve (Swinject's and Factory's
    /// `.graph`): every resolve inside that build on the same thread gets
    /// it, so `A -> B -> Logger` and `A -> Logger` share one `Logger`; the
    /// next outermost resolve builds another. Resolved alone, it behaves as
    /// ``transient``. See <doc:GraphScope>.
    case graph
}
