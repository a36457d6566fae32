/// A new instance on every access: from the factory registered for `T`
/// (every registration keeps its factory, eager ones too), or from the
/// closure given as `@Factory(factory: { ... })`.
///
/// ```swift
/// UnifiedDI.register(ReportBuilder.self) { ReportBuilder() }
///
/// struct ReportScreen {
///     @Factory var builder: ReportBuilder                     // the registered factory
///     @Factory(factory: { Formatter() }) var formatter: Formatter
/// }
/// ```
///
/// The registration's scope does not apply: even a singleton's factory runs
/// again. A registration made with an instance (`register(_:instance:)`,
/// `registerAsync`) has no factory to run, so its instance is returned.
/// Reading a type that is not registered, or whose factory meets a
/// dependency cycle, stops the program naming the type.
@propertyWrapper
public struct Factory<T: Sendable>: Sendable {
    @usableFromInline let factory: (@Sendable () -> T)?

    /// Builds from the factory registered for `T` in the live container.
    ///
    /// ```swift
    /// @Factory var builder: ReportBuilder
    /// ```
    public init() {
        self.factory = nil
    }

    /// Upstream's `@Factory(\.service)`: the key path names the type whose
    /// registered factory runs on each access. The property the key path
    /// names is never read.
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     var reportBuilder: ReportBuilder? { resolve(ReportBuilder.self) }
    /// }
    ///
    /// @Factory(\.reportBuilder) var builder: ReportBuilder
    /// ```
    ///
    /// - Parameter keyPath: A container property of type `T?`.
    public init(_ keyPath: KeyPath<DIContainer, T?>) {
        self.factory = nil
    }

    /// Builds from `factory` on each access; the container is not read.
    ///
    /// ```swift
    /// @Factory(factory: { Formatter() }) var formatter: Formatter
    /// ```
    ///
    /// - Parameter factory: Builds one instance per access.
    public init(factory: @escaping @Sendable () -> T) {
        self.factory = factory
    }

    /// A new instance, built now.
    @inlinable
    public var wrappedValue: T {
        if let factory {
            return factory()
        }
        do throws(DIError) {
            guard let entry = Resolver.entry(T.self, in: nil) else {
                throw DIError.dependencyNotFound(type: typeName(T.self))
            }
            return try entry.fresh(T.self)
        } catch {
            Self.stop(error)
        }
    }

    @usableFromInline @inline(never)
    static func stop(_ error: DIError) -> Never {
        fatalError("@Factory var: \(qualifiedTypeName(T.self)): \(error)")
    }
}
