/// Upstream WeaveDI's top-level name for `DIContainer`, kept so that
/// `Container.shared` and `Container()` in upstream code compile. Swinject
/// and Factory also name a type `Container`; a file that imports one of
/// them beside WeaveDI writes `WeaveDI.Container` (or `Swinject.Container`).
///
/// ```swift
/// Container.shared.register(Clock.self) { SystemClock() }
/// ```
public typealias Container = DIContainer
