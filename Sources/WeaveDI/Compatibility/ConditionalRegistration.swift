extension UnifiedDI {
    /// Registration chosen at startup, e.g. by build configuration or a
    /// feature flag:
    ///
    ///     UnifiedDI.Conditional.registerIf(
    ///         Analytics.self,
    ///         condition: isProduction,
    ///         factory: { FirebaseAnalytics() },
    ///         fallback: { NoOpAnalytics() }
    ///     )
    public enum Conditional {
        /// Eager, like `UnifiedDI.register(_:factory:)`: runs only the chosen
        /// closure, now, registers its instance under `type` and returns it.
        @discardableResult
        public static func registerIf<T: Sendable>(
            _ type: T.Type,
            condition: Bool,
            factory: @escaping @Sendable () -> T,
            fallback: @escaping @Sendable () -> T
        ) -> T {
            UnifiedDI.register(type, factory: condition ? factory : fallback)
        }
    }
}
