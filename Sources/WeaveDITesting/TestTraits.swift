import Testing
import WeaveDI

/// Gives each test (each case of a parameterized test) its own container in
/// front of the live one, so tests that run in parallel can register, release
/// and reset without seeing each other:
///
///     @Suite(.isolatedContainer)
///     struct CheckoutTests {
///         init() {
///             UnifiedDI.releaseAll()
///             UnifiedDI.register(PaymentService.self) { PaymentMock() }
///         }
///
///         @Test func paysOnce() { ... }
///     }
///
/// or with the registrations listed in the trait:
/// `@Test(.isolatedContainer { $0.register(PaymentService.self) { PaymentMock() } })`.
/// See `withContainerOverlay` for what the overlay covers.
public struct IsolatedContainerTrait: TestTrait, SuiteTrait, TestScoping {
    let configure: @Sendable (DIContainer) -> Void

    /// On a suite, every test in it (and in nested suites) gets its own.
    public var isRecursive: Bool { true }

    /// One overlay per test case: never one shared by a whole suite or by
    /// the cases of a parameterized test.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withContainerOverlay(configure) {
            try await function()
        }
    }
}

extension Trait where Self == IsolatedContainerTrait {
    /// An empty container of the test's own in front of the live one.
    public static var isolatedContainer: Self {
        IsolatedContainerTrait { _ in }
    }

    /// A container of the test's own with the registrations `configure` makes.
    public static func isolatedContainer(_ configure: @escaping @Sendable (DIContainer) -> Void) -> Self {
        IsolatedContainerTrait(configure: configure)
    }
}

/// Applies `withInjectedValues` overrides around each test:
///
///     @Test(.injectedValues { $0.clock = TestClock() })
///     func expires() { ... }
public struct InjectedValuesTrait: TestTrait, SuiteTrait, TestScoping {
    let update: @Sendable (inout InjectedValues) -> Void

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withInjectedValues(update) {
            try await function()
        }
    }
}

extension Trait where Self == InjectedValuesTrait {
    public static func injectedValues(_ update: @escaping @Sendable (inout InjectedValues) -> Void) -> Self {
        InjectedValuesTrait(update: update)
    }
}
