extension UnifiedDI {
    /// Registration chosen at startup, e.g. by build configuration or a
    /// feature flag:
    ///
    /// ```swift
    /// UnifiedDI.Conditional.registerIf(
    ///     Analytics.self,
    ///     condition: isProduction,
    ///     factory: { FirebaseAnalytics() },
    ///     fallback: { NoOpAnalytics() }
    /// )
    /// ```
    public enum Conditional {
        /// Eager, like `UnifiedDI.register(_:factory:)`: runs only the chosen
        /// closure, now, registers its instance under `type` and returns it.
        /// The condition is read once; changing it later changes nothing.
        ///
        /// ```swift
        /// UnifiedDI.Conditional.registerIf(
        ///     PaymentGateway.self,
        ///     condition: !useSandbox,
        ///     factory: { StripeGateway() },
        ///     fallback: { SandboxGateway() }
        /// )
        /// ```
        ///
        /// - Parameters:
        ///   - type: The type to register under.
        ///   - condition: Which closure to use.
        ///   - factory: Used when `condition` is true.
        ///   - fallback: Used when `condition` is false.
        /// - Returns: The instance registered.
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
