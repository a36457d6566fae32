import WeaveDI
import XCTest

/// The XCTest form of ``IsolatedContainerTrait``: derive from this instead of
/// `XCTestCase`, and `setUp`, the test and `tearDown` all run inside a
/// container overlay of their own (`withContainerOverlay`), so the guide's
///
/// ```swift
/// final class ProfileTests: IsolatedContainerTestCase {
///     override func setUp() {
///         super.setUp()
///         UnifiedDI.releaseAll()
///         UnifiedDI.register(UserService.self) { MockUserService() }
///     }
///
///     func testName() {
///         XCTAssertEqual(ProfileModel().name, "mock")
///     }
/// }
/// ```
///
/// never touches the live container or another test's registrations, even
/// when tests run in parallel. Override ``registerDependencies(in:)`` to list
/// registrations instead.
open class IsolatedContainerTestCase: XCTestCase {
    /// Registrations made in the test's overlay before `setUp` runs. Does
    /// nothing unless overridden.
    ///
    /// ```swift
    /// override func registerDependencies(in container: DIContainer) {
    ///     container.register(UserService.self) { MockUserService() }
    /// }
    /// ```
    ///
    /// - Parameter container: The test's own container, in front of the
    ///   live one.
    open func registerDependencies(in container: DIContainer) {}

    /// Runs the test (with its `setUp` and `tearDown`) inside a fresh
    /// container overlay filled by ``registerDependencies(in:)``. Call
    /// `super` if you override it.
    open override func invokeTest() {
        withContainerOverlay { container in
            registerDependencies(in: container)
        } operation: {
            super.invokeTest()
        }
    }
}
