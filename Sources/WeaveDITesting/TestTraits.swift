import Testing
import WeaveDI

/// A trait that runs each test case (each case of a parameterized test too)
/// inside a region of its own, never one shared by a suite or by the cases
/// of a parameterized test; on a suite it applies to every test in it and
/// in nested suites. ``IsolatedContainerTrait`` and ``InjectedValuesTrait``
/// are the two; each says only what its region is.
public protocol PerTestCaseTrait: TestTrait, SuiteTrait, TestScoping {
    /// Runs one test case's body inside the trait's region.
    ///
    /// - Parameter body: The test case's body.
    /// - Throws: What the test throws.
    func withScope(_ body: @Sendable () async throws -> Void) async throws
}

extension PerTestCaseTrait {
    /// True: on a suite, every test in it and in nested suites.
    public var isRecursive: Bool { true }

    /// This trait for a test case, nil for a suite or a parameterized test
    /// as a whole.
    ///
    /// - Parameters:
    ///   - test: The test or suite the trait is applied to.
    ///   - testCase: The test case, or nil for a suite or a parameterized
    ///     test as a whole.
    /// - Returns: This trait for a test case, nil otherwise.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs the test case through ``withScope(_:)``.
    ///
    /// - Parameters:
    ///   - test: The test being run.
    ///   - testCase: The test case being run.
    ///   - function: The test case's body.
    /// - Throws: What the test throws.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withScope(function)
    }
}

/// Gives each test (each case of a parameterized test) its own container in
/// front of the live one, so tests that run in parallel can register, release
/// and reset without seeing each other:
///
/// ```swift
/// @Suite(.isolatedContainer)
/// struct CheckoutTests {
///     init() {
///         UnifiedDI.releaseAll()
///         UnifiedDI.register(PaymentService.self) { PaymentMock() }
///     }
///
///     @Test func paysOnce() async {
///         #expect(await Checkout().run() == .paid)
///     }
/// }
/// ```
///
/// or with the registrations listed in the trait:
/// `@Test(.isolatedContainer { $0.register(PaymentService.self) { PaymentMock() } })`.
/// See `withContainerOverlay` in WeaveDI for what the overlay covers.
/// Make one with ``Testing/Trait/isolatedContainer`` or
/// ``Testing/Trait/isolatedContainer(_:)``.
public struct IsolatedContainerTrait: PerTestCaseTrait {
    let configure: @Sendable (DIContainer) -> Void

    /// Runs one test case inside a new container overlay, filled by the
    /// trait's registrations, that is gone when the case ends.
    ///
    /// - Parameter body: The test case's body.
    /// - Throws: What the test throws.
    public func withScope(_ body: @Sendable () async throws -> Void) async throws {
        try await withContainerOverlay(configure) {
            try await body()
        }
    }
}

extension Trait where Self == IsolatedContainerTrait {
    /// An empty container of the test's own in front of the live one.
    ///
    /// ```swift
    /// @Test(.isolatedContainer) func registersItsOwnMock() {
    ///     UnifiedDI.register(Clock.self) { TestClock() }
    /// }
    /// ```
    public static var isolatedContainer: Self {
        IsolatedContainerTrait { _ in }
    }

    /// A container of the test's own with the registrations `configure`
    /// makes, run once per test case before the test.
    ///
    /// ```swift
    /// @Test(.isolatedContainer { $0.register(PaymentService.self) { PaymentMock() } })
    /// func paysOnce() async {
    ///     #expect(await Checkout().run() == .paid)
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    /// - Returns: The trait.
    public static func isolatedContainer(_ configure: @escaping @Sendable (DIContainer) -> Void) -> Self {
        IsolatedContainerTrait(configure: configure)
    }
}

/// Applies `withInjectedValues` overrides around each test case (each case
/// of a parameterized test too), so parallel tests can override the same
/// key differently:
///
/// ```swift
/// @Test(.injectedValues { $0.clock = TestClock() })
/// func expires() {
///     #expect(Session().isExpired)
/// }
/// ```
///
/// Make one with ``Testing/Trait/injectedValues(_:)``.
public struct InjectedValuesTrait: PerTestCaseTrait {
    let update: @Sendable (inout InjectedValues) -> Void

    /// Runs one test case inside `withInjectedValues` with the trait's
    /// overrides.
    ///
    /// - Parameter body: The test case's body.
    /// - Throws: What the test throws.
    public func withScope(_ body: @Sendable () async throws -> Void) async throws {
        try await withInjectedValues(update) {
            try await body()
        }
    }
}

extension Trait where Self == InjectedValuesTrait {
    /// Overrides, set by `update`, that each test case sees through
    /// `@Injected` and `InjectedValues`.
    ///
    /// ```swift
    /// @Test(.injectedValues { $0.userService = MockUserService() })
    /// func showsTheMockName() {
    ///     #expect(ProfileModel().name == "mock")
    /// }
    /// ```
    ///
    /// - Parameter update: Sets the overrides.
    /// - Returns: The trait.
    public static func injectedValues(_ update: @escaping @Sendable (inout InjectedValues) -> Void) -> Self {
        InjectedValuesTrait(update: update)
    }
}
