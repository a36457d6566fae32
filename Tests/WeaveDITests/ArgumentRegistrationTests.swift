import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// Registrations that take arguments (issue 52, item 2). Each type here is
// read by nothing outside this file.

private final class ItemModel: Sendable {
    let id: Int
    let label: String
    init(id: Int, label: String = "") {
        self.id = id
        self.label = label
    }
}

private struct Span: Sendable, Equatable {
    let from: Int
    let to: Int
    let unit: String
}

private final class ItemUsingRepository: Sendable {
    let repository: String?
    let id: Int
    init(repository: String?, id: Int) {
        self.repository = repository
        self.id = id
    }
}

final class ArgumentRegistrationTests: XCTestCase {
    override func setUp() {
        super.setUp()
        UnifiedDI.releaseAll()
    }

    override func tearDown() {
        UnifiedDI.releaseAll()
        super.tearDown()
    }

    func testOneArgumentIsPassedAndEachResolveBuildsANewValue() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id) }
        let first = UnifiedDI.resolve(ItemModel.self, argument: 42)
        let second = UnifiedDI.resolve(ItemModel.self, argument: 42)
        XCTAssertEqual(first?.id, 42)
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 7)?.id, 7)
        XCTAssertFalse(first === second, "a factory taking arguments keeps no instance")
    }

    func testTwoAndThreeArgumentsArePassedInOrder() throws {
        UnifiedDI.register(ItemModel.self) { (id: Int, label: String) in ItemModel(id: id, label: label) }
        UnifiedDI.register(Span.self) { (from: Int, to: Int, unit: String) in Span(from: from, to: to, unit: unit) }
        let model = UnifiedDI.resolve(ItemModel.self, arguments: 3, "three")
        XCTAssertEqual(model?.id, 3)
        XCTAssertEqual(model?.label, "three")
        XCTAssertEqual(UnifiedDI.resolve(Span.self, arguments: 1, 9, "s"), Span(from: 1, to: 9, unit: "s"))
        XCTAssertEqual(try UnifiedDI.resolveThrowing(Span.self, arguments: 2, 4, "m"), Span(from: 2, to: 4, unit: "m"))
        XCTAssertEqual(try UnifiedDI.resolveThrowing(ItemModel.self, arguments: 5, "five").label, "five")
    }

    func testEachSignatureAndTheArgumentFreeFormAreSeparateRegistrations() {
        UnifiedDI.register(ItemModel.self, scope: .singleton) { ItemModel(id: 0, label: "plain") }
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "int") }
        UnifiedDI.register(ItemModel.self) { (name: String) in ItemModel(id: -1, label: name) }
        UnifiedDI.register(ItemModel.self) { (id: Int, label: String) in ItemModel(id: id, label: "pair " + label) }

        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self)?.label, "plain")
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "int")
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: "named")?.label, "named")
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, arguments: 2, "x")?.label, "pair x")
        XCTAssertEqual(UnifiedDI.registeredArguments(of: ItemModel.self), ["(Int)", "(Int, String)", "(String)"])

        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "replaced") }
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "replaced")
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: "kept")?.label, "kept")
    }

    func testAResolveWithOtherArgumentTypesIsAMissNamingTheRegisteredSignatures() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id) }
        UnifiedDI.register(ItemModel.self) { (id: Int, label: String) in ItemModel(id: id, label: label) }

        XCTAssertNil(UnifiedDI.resolve(ItemModel.self, argument: "42"))
        XCTAssertNil(UnifiedDI.resolve(ItemModel.self, arguments: "a", 1))
        XCTAssertNil(UnifiedDI.resolve(ItemModel.self, argument: Int64(42)), "Int64 is not Int: no conversion")
        XCTAssertNil(UnifiedDI.resolve(ItemModel.self), "the argument-free form is not registered")
        do {
            _ = try UnifiedDI.resolveThrowing(ItemModel.self, argument: "42")
            XCTFail("resolved a signature never registered")
        } catch {
            guard case .dependencyNotFound(let payload) = error else {
                return XCTFail("expected dependencyNotFound, got \(error)")
            }
            XCTAssertEqual(payload, "ItemModel taking (String) (registered: (Int), (Int, String))")
            XCTAssertTrue(
                error.description.hasPrefix(
                    "WeaveDI: no registration of 'WeaveDITests.ItemModel' taking (String) (registered: (Int), (Int, String))."),
                error.description)
            XCTAssertTrue(error.description.contains("UnifiedDI.register(ItemModel.self) { (argument: ...) in"), error.description)
        }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(Span.self, arguments: 1, 2, "x")) { error in
            XCTAssertTrue("\(error)".contains("Span' taking (Int, Int, String) (registered: none)"), "\(error)")
        }
    }

    func testAChildSeesItsParentsFactoriesAndNotTheOtherWayRound() {
        let parent = WeaveDI.Container()
        parent.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "parent") }
        let child = parent.createChild()
        child.register(ItemModel.self) { (label: String) in ItemModel(id: 0, label: label) }

        XCTAssertEqual(child.resolve(ItemModel.self, argument: 1)?.label, "parent")
        XCTAssertEqual(child.resolve(ItemModel.self, argument: "child")?.label, "child")
        XCTAssertNil(parent.resolve(ItemModel.self, argument: "child"))
        XCTAssertEqual(child.registeredArguments(of: ItemModel.self), ["(Int)", "(String)"])
        XCTAssertEqual(parent.registeredArguments(of: ItemModel.self), ["(Int)"])
        XCTAssertThrowsError(try child.resolveThrowing(ItemModel.self, arguments: 1, "x", 2.5))
    }

    func testAnOverlaysFactoriesStayInTheOverlay() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "live") }
        _ = UnifiedDI.resolve(ItemModel.self, argument: 1)  // the live factory is now in its slot's cache
        withContainerOverlay {
            XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "live")
            UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "overlay") }
            XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "overlay")
        }
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "live")
    }

    func testAReplacementAndAReleaseAreSeenThroughTheCachedSlot() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "first") }
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "first")
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id, label: "second") }
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 1)?.label, "second")
        UnifiedDI.releaseAll()
        XCTAssertNil(UnifiedDI.resolve(ItemModel.self, argument: 1))
    }

    func testWithOptimizationOffTheTableIsRead() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id) }
        UnifiedRegistry.shared.disableOptimization()
        defer { UnifiedRegistry.shared.enableOptimization() }
        XCTAssertEqual(UnifiedDI.resolve(ItemModel.self, argument: 9)?.id, 9)
    }

    func testAFactoryResolvesItsOwnDependencies() {
        UnifiedDI.register(String.self) { "repository" }
        UnifiedDI.register(ItemUsingRepository.self) { (id: Int) in
            ItemUsingRepository(repository: UnifiedDI.resolve(String.self), id: id)
        }
        let built = UnifiedDI.resolve(ItemUsingRepository.self, argument: 3)
        XCTAssertEqual(built?.repository, "repository")
        XCTAssertEqual(built?.id, 3)
    }

    /// `() -> T` converts to `(()) -> T`, so an argument-free factory value
    /// would match the one-argument form too; the argument-free form must
    /// win (it registers eagerly and returns the instance).
    func testAnArgumentFreeFactoryValueStillRegistersTheArgumentFreeForm() {
        let make: @Sendable () -> ItemModel = { ItemModel(id: 11) }
        let built: ItemModel = UnifiedDI.register(ItemModel.self, factory: make)
        XCTAssertEqual(built.id, 11)
        XCTAssertTrue(UnifiedDI.resolve(ItemModel.self) === built)
        XCTAssertEqual(UnifiedDI.registeredArguments(of: ItemModel.self), [])
    }

    func testValidationShowsTheSignatureAsTheNode() {
        UnifiedDI.register(ItemModel.self) { (id: Int, label: String) in ItemModel(id: id, label: label) }
        let report = UnifiedDI.validate()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(report.graph.nodes.map(\.name), ["ItemModel taking (Int, String)"])
    }

    func testManyThreadsResolveWithTheirOwnArguments() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in ItemModel(id: id) }
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for _ in 0..<2_000 where UnifiedDI.resolve(ItemModel.self, argument: index)?.id != index {
                wrong.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, 0)
    }

    /// A factory that resolves its own type with arguments again is a
    /// cycle, reported, not a recursion without end.
    func testAFactoryResolvingItselfIsACycle() {
        UnifiedDI.register(ItemModel.self) { (id: Int) in
            UnifiedDI.resolve(ItemModel.self, argument: id + 1) ?? ItemModel(id: -1)
        }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(ItemModel.self, argument: 1)) { error in
            guard case .circularDependency(let chain) = error as? DIError else {
                return XCTFail("expected a cycle, got \(error)")
            }
            XCTAssertEqual(chain, "ItemModel -> ItemModel")
        }
        XCTAssertNil(UnifiedDI.resolve(ItemModel.self, argument: 1))
    }
}
