import TodoAPI
import TodoServices
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
        let first = await withTaskScope { () async in Holder().unitOfWork.id }
        let second = await withTaskScope { () async in Holder().unitOfWork.id }
        XCTAssertNotEqual(first, second)
        let same = await withTaskScope { () async -> Bool in
            let holder = Holder()
            return holder.unitOfWork === holder.unitOfWork
                && holder.unitOfWork === UnifiedDI.resolve(UnitOfWork.self)
        }
        XCTAssertTrue(same)
    }

    /// A holder that outlives the scope (a controller built once at startup)
    /// gets each scope's own `.task` instance: `@Injected` never caches
    /// task-scoped (or transient, or weak) values. This test found that bug.
    func testHolderReusedAcrossScopes() async throws {
        let holder = Holder()
        let first = await withTaskScope { () async in holder.unitOfWork.id }
        let second = await withTaskScope { () async in holder.unitOfWork.id }
        let fromContainer = await withTaskScope { () async in UnifiedDI.resolve(UnitOfWork.self)?.id }
        XCTAssertNotNil(fromContainer)
        XCTAssertNotEqual(fromContainer, first, "UnifiedDI.resolve gave another scope's .task instance")
        XCTAssertNotEqual(first, second, "@Injected pinned one scope's .task instance across scopes")
    }
}
