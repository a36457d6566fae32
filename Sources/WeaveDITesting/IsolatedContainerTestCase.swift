import WeaveDI
import XCTest

/// The XCTest form of `.isolatedContainer`: derive from this instead of
/// `XCTestCase`, and `setUp`, the test and `tearDown` all run inside a
/// container overlay of their own, so the guide's
///
///     override func setUp() {
///         UnifiedDI.releaseAll()
///         UnifiedDI.register(UserService.self) { MockUserService() }
///     }
///
/// never touches the live container or another test's registrations.
/// Override `registerDependencies(in:)` to list registrations instead.
open class IsolatedContainerTestCase: XCTestCase {
    /// Registrations made in the overlay before `setUp` runs.
    open func registerDependencies(in container: DIContainer) {}

    open override func invokeTest() {
        withContainerOverlay { container in
            registerDependencies(in: container)
        } operation: {
            super.invokeTest()
        }
    }
}
