import TodoAPI
import WeaveDI
import XCTest

/// How `@Injected` behaves for a `.task`-scoped service depending on where
/// the wrapper lives. The server makes its `@Injected` holder per request
/// (RequestServices in DIWiring.swift); these tests show why.
final class InjectedLifetimeTests: XCTestCase {
    override func setUp() {
        super.setUp()
        WeaveDI.Container.live = WeaveDI.Container()
        DIWiring.registerServices()
    }

    struct Holder {
        @Injected var unitOfWork: UnitOfWork
    }

    func testHolderMadePerScopeSeesThatScopesUnitOfWork() async {
        let first = await withTaskScope { Holder().unitOfWork.id }
        let second = await withTaskScope { Holder().unitOfWork.id }
        XCTAssertNotEqual(first, second)
        let same = await withTaskScope { () -> Bool in
            let holder = Holder()
            return holder.unitOfWork === holder.unitOfWork
                && holder.unitOfWork === UnifiedDI.resolve(UnitOfWork.self)
        }
        XCTAssertTrue(same)
    }

    /// A holder that outlives the scope (a controller built once at startup).
    func testHolderReusedAcrossScopes() async {
        let holder = Holder()
        let first = await withTaskScope { holder.unitOfWork.id }
        let second = await withTaskScope { holder.unitOfWork.id }
        let fromContainer = await withTaskScope { UnifiedDI.resolve(UnitOfWork.self)?.id }
        XCTAssertNotEqual(first, second, "@Injected on a long-lived holder returned the previous scope's .task instance")
        XCTAssertNotEqual(fromContainer, second)
    }
}
