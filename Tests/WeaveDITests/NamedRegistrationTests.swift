import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// Named registrations (issue 52, item 1). Each type here is read by nothing
// outside this file.

private protocol NamedDatabase: Sendable {
    var role: String { get }
}

private final class RoleDatabase: NamedDatabase {
    let role: String
    init(role: String) { self.role = role }
}

private final class NamedCounter: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class ReplicaReader: @unchecked Sendable {
    @Injected(name: "replica") var replica: any NamedDatabase
    @Injected(name: "analytics") var analytics: (any NamedDatabase)?
}

private final class NeverNamed: Sendable {}

private final class FreshReader: @unchecked Sendable {
    @Injected(name: "fresh") var fresh: NamedCounter
    @Injected(name: "fresh") var maybeFresh: NamedCounter?
}

private final class ClosingPool: AsyncShutdown {
    let role: String
    let closed: Locked<[String]>
    init(role: String, closed: Locked<[String]>) {
        self.role = role
        self.closed = closed
    }
    func shutdown() async { closed.withLock { $0.append(role) } }
}

final class NamedRegistrationTests: XCTestCase {
    override func setUp() {
        super.setUp()
        UnifiedDI.releaseAll()
    }

    override func tearDown() {
        UnifiedDI.releaseAll()
        super.tearDown()
    }

    func testTwoNamesOfOneTypeAndTheUnnamedOneAreThreeRegistrations() {
        UnifiedDI.register((any NamedDatabase).self, name: "primary", scope: .singleton) { RoleDatabase(role: "primary") }
        UnifiedDI.register((any NamedDatabase).self, name: "replica", scope: .singleton) { RoleDatabase(role: "replica") }
        UnifiedDI.register((any NamedDatabase).self, scope: .singleton) { RoleDatabase(role: "unnamed") }

        XCTAssertEqual(UnifiedDI.resolve((any NamedDatabase).self, name: "primary")?.role, "primary")
        XCTAssertEqual(UnifiedDI.resolve((any NamedDatabase).self, name: "replica")?.role, "replica")
        XCTAssertEqual(UnifiedDI.resolve((any NamedDatabase).self)?.role, "unnamed")
        XCTAssertNil(UnifiedDI.resolve((any NamedDatabase).self, name: "archive"))
        XCTAssertEqual(UnifiedDI.registeredNames(of: (any NamedDatabase).self), ["primary", "replica"])

        UnifiedDI.release((any NamedDatabase).self, name: "primary")
        XCTAssertNil(UnifiedDI.resolve((any NamedDatabase).self, name: "primary"))
        XCTAssertEqual(UnifiedDI.resolve((any NamedDatabase).self, name: "replica")?.role, "replica")
        XCTAssertEqual(UnifiedDI.resolve((any NamedDatabase).self)?.role, "unnamed")
    }

    func testEachNameKeepsItsOwnLifetime() {
        let built = BuildSerials()
        UnifiedDI.register(NamedCounter.self, name: "shared", scope: .singleton) { NamedCounter(serial: built.next()) }
        UnifiedDI.register(NamedCounter.self, name: "fresh", scope: .transient) { NamedCounter(serial: built.next()) }

        let shared = UnifiedDI.resolve(NamedCounter.self, name: "shared")
        XCTAssertTrue(shared === UnifiedDI.resolve(NamedCounter.self, name: "shared"))
        let first = UnifiedDI.resolve(NamedCounter.self, name: "fresh")
        let second = UnifiedDI.resolve(NamedCounter.self, name: "fresh")
        XCTAssertNotNil(first)
        XCTAssertFalse(first === second)
        XCTAssertFalse(first === shared)
    }

    func testReRegisteringANameReplacesOnlyThatName() {
        UnifiedDI.register(NamedCounter.self, name: "a") { NamedCounter(serial: 1) }
        UnifiedDI.register(NamedCounter.self, name: "b") { NamedCounter(serial: 2) }
        UnifiedDI.register(NamedCounter.self, name: "a") { NamedCounter(serial: 3) }
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "a")?.serial, 3)
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "b")?.serial, 2)
    }

    func testAMissNamesTheRegisteredNames() {
        UnifiedDI.register((any NamedDatabase).self, name: "primary") { RoleDatabase(role: "primary") }
        UnifiedDI.register((any NamedDatabase).self, name: "analytics") { RoleDatabase(role: "analytics") }
        do {
            _ = try UnifiedDI.resolveThrowing((any NamedDatabase).self, name: "replica")
            XCTFail("resolved a name never registered")
        } catch {
            guard case .dependencyNotFound(let payload) = error else {
                return XCTFail("expected dependencyNotFound, got \(error)")
            }
            XCTAssertTrue(payload.contains("named \"replica\""), payload)
            XCTAssertTrue(payload.contains("registered: \"analytics\", \"primary\""), payload)
            XCTAssertTrue(error.description.contains("no registration of '"), error.description)
            XCTAssertTrue(error.description.contains("NamedDatabase' named \"replica\""), error.description)
        }
        do {
            _ = try UnifiedDI.resolveThrowing(NeverNamed.self, name: "x")
            XCTFail("resolved a type never registered")
        } catch {
            XCTAssertTrue(error.description.contains("(registered: none)"), error.description)
        }
    }

    func testExplainTellsANamedRegistrationAndWhatIsRegisteredOnAMiss() {
        UnifiedDI.register(NamedCounter.self, name: "good", scope: .singleton) { NamedCounter(serial: 1) }
        _ = UnifiedDI.validate()
        let found = UnifiedDI.explain(NamedCounter.self, name: "good")
        XCTAssertEqual(found.name, "good")
        XCTAssertEqual(found.scope, .singleton)
        XCTAssertEqual(found.isBuilt, false)
        XCTAssertEqual(found.dependencyPaths, [])
        XCTAssertTrue(found.description.hasPrefix("NamedCounter named \"good\" ("), found.description)
        XCTAssertTrue(found.description.contains("answered by: the live container"), found.description)

        let missing = UnifiedDI.explain(NamedCounter.self, name: "bad")
        XCTAssertNil(missing.answeredBy)
        XCTAssertEqual(missing.nearMisses, ["NamedCounter named \"good\""])
        XCTAssertTrue(missing.description.contains("looks close: NamedCounter named \"good\""), missing.description)
        XCTAssertNil(UnifiedDI.explain(NamedCounter.self).answeredBy, "the unnamed registration is another one")
        XCTAssertNil(UnifiedDI.explain(NeverNamed.self, name: "never").answeredBy)
    }

    func testAUnnamedMissKeepsItsMessage() {
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(NeverNamed.self)) { error in
            let description = (error as? DIError)?.description ?? ""
            XCTAssertTrue(description.contains("no registration for '"), description)
            XCTAssertFalse(description.contains(" named "), description)
        }
    }

    func testAChildSeesItsParentsNamesAndNotTheOtherWayRound() {
        let parent = WeaveDI.Container()
        parent.register(NamedCounter.self, name: "parent", instance: NamedCounter(serial: 1))
        let child = parent.createChild()
        child.register(NamedCounter.self, name: "child", instance: NamedCounter(serial: 2))

        XCTAssertEqual(child.resolve(NamedCounter.self, name: "parent")?.serial, 1)
        XCTAssertEqual(child.resolve(NamedCounter.self, name: "child")?.serial, 2)
        XCTAssertNil(parent.resolve(NamedCounter.self, name: "child"))
        XCTAssertEqual(child.registeredNames(of: NamedCounter.self), ["child", "parent"])
        XCTAssertEqual(parent.registeredNames(of: NamedCounter.self), ["parent"])
        XCTAssertTrue(child.isRegistered(NamedCounter.self, name: "parent"))
        XCTAssertFalse(parent.isRegistered(NamedCounter.self, name: "child"))
        XCTAssertFalse(UnifiedDI.resolve(NamedCounter.self, name: "parent") != nil)
    }

    func testAnOverlaysNamesStayInTheOverlay() {
        UnifiedDI.register(NamedCounter.self, name: "db") { NamedCounter(serial: 1) }
        withContainerOverlay {
            XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "db")?.serial, 1)
            UnifiedDI.register(NamedCounter.self, name: "db") { NamedCounter(serial: 2) }
            XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "db")?.serial, 2)
        }
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "db")?.serial, 1)
    }

    func testInjectedByNameReadsThatRegistration() {
        UnifiedDI.register((any NamedDatabase).self, name: "replica", scope: .singleton) { RoleDatabase(role: "replica") }
        UnifiedDI.register((any NamedDatabase).self, scope: .singleton) { RoleDatabase(role: "unnamed") }
        let reader = ReplicaReader()
        XCTAssertEqual(reader.replica.role, "replica")
        XCTAssertNil(reader.analytics)

        // Read on every access: a registration made later is seen.
        UnifiedDI.register((any NamedDatabase).self, name: "analytics") { RoleDatabase(role: "analytics") }
        XCTAssertEqual(reader.analytics?.role, "analytics")
        UnifiedDI.register((any NamedDatabase).self, name: "replica") { RoleDatabase(role: "replica 2") }
        XCTAssertEqual(reader.replica.role, "replica 2")
    }

    func testInjectedByNameReadsTheOverlayInsideIt() {
        UnifiedDI.register((any NamedDatabase).self, name: "replica") { RoleDatabase(role: "live") }
        let reader = ReplicaReader()
        XCTAssertEqual(reader.replica.role, "live")
        XCTAssertEqual(reader.replica.role, "live")  // the cached read
        withContainerOverlay {
            UnifiedDI.register((any NamedDatabase).self, name: "replica") { RoleDatabase(role: "overlay") }
            XCTAssertEqual(reader.replica.role, "overlay")
            XCTAssertNil(reader.analytics)
        }
        XCTAssertEqual(reader.replica.role, "live")
    }

    func testInjectedByNameOfATransientBuildsOnEveryRead() {
        UnifiedDI.register(NamedCounter.self, name: "fresh", scope: .transient) { NamedCounter(serial: 0) }
        let reader = FreshReader()
        XCTAssertFalse(reader.fresh === reader.fresh)
    }

    /// `T` and `T?` properties of one name: two slots of different value
    /// types, each reading the one registration.
    func testATypeAndItsOptionalOfOneNameReadTheSameRegistration() {
        UnifiedDI.register(NamedCounter.self, name: "fresh", scope: .singleton) { NamedCounter(serial: 5) }
        let reader = FreshReader()
        XCTAssertEqual(reader.fresh.serial, 5)
        XCTAssertEqual(reader.maybeFresh?.serial, 5)
        XCTAssertTrue(reader.fresh === reader.maybeFresh)
        UnifiedDI.release(NamedCounter.self, name: "fresh")
        XCTAssertNil(reader.maybeFresh)
    }

    /// `UnifiedDI.resolve(_:name:)` and `@Injected(name:)` read one slot:
    /// whichever fills it, the other reads the same registration, and a
    /// registration, release or overlay since is seen by both.
    func testNamedResolveAndInjectedShareTheSlotAndSeeChanges() {
        UnifiedDI.register(NamedCounter.self, name: "fresh", scope: .singleton) { NamedCounter(serial: 1) }
        let reader = FreshReader()
        let viaProperty = reader.fresh
        XCTAssertTrue(UnifiedDI.resolve(NamedCounter.self, name: "fresh") === viaProperty)
        XCTAssertTrue(UnifiedDI.resolve(NamedCounter.self, name: "fresh") === viaProperty)

        UnifiedDI.register(NamedCounter.self, name: "fresh", scope: .singleton) { NamedCounter(serial: 2) }
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "fresh")?.serial, 2)
        XCTAssertEqual(reader.fresh.serial, 2)
        XCTAssertTrue(reader.maybeFresh === reader.fresh)
        XCTAssertTrue(UnifiedDI.resolve(NamedCounter?.self, name: "fresh") == nil)

        withContainerOverlay {
            UnifiedDI.register(NamedCounter.self, name: "fresh") { NamedCounter(serial: 3) }
            XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "fresh")?.serial, 3)
        }
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "fresh")?.serial, 2)

        UnifiedDI.release(NamedCounter.self, name: "fresh")
        XCTAssertNil(UnifiedDI.resolve(NamedCounter.self, name: "fresh"))
        XCTAssertNil(reader.maybeFresh)
    }

    func testNamedResolveWithOptimizationOffReadsTheTable() {
        UnifiedDI.register(NamedCounter.self, name: "plain") { NamedCounter(serial: 4) }
        UnifiedRegistry.shared.disableOptimization()
        defer { UnifiedRegistry.shared.enableOptimization() }
        XCTAssertEqual(UnifiedDI.resolve(NamedCounter.self, name: "plain")?.serial, 4)
        UnifiedDI.release(NamedCounter.self, name: "plain")
        XCTAssertNil(UnifiedDI.resolve(NamedCounter.self, name: "plain"))
    }

    func testInjectedByNameMessageNamesTheRegisteredNames() {
        let message = InjectionSlots.namedMissingMessage(
            (any NamedDatabase).self, name: "replica", registered: ["primary"])
        XCTAssertTrue(message.hasPrefix("@Injected(name: \"replica\"): no '"), message)
        XCTAssertTrue(message.contains("(registered: \"primary\")"), message)
    }

    func testAFailingNamedFactoryIsThrownNotCrashed() {
        struct Broken: Error {}
        UnifiedDI.register(NamedCounter.self, name: "broken", scope: .singleton) { () throws -> NamedCounter in
            throw Broken()
        }
        XCTAssertNil(UnifiedDI.resolve(NamedCounter.self, name: "broken"))
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(NamedCounter.self, name: "broken")) { error in
            guard case .factoryFailed = error as? DIError else { return XCTFail("\(error)") }
        }
    }

    func testShutdownShutsDownEachNamedSingletonOnce() async {
        let closed = Locked<[String]>([])
        let container = WeaveDI.Container()
        container.register(ClosingPool.self, name: "primary", scope: .singleton) {
            ClosingPool(role: "primary", closed: closed)
        }
        container.register(ClosingPool.self, name: "replica", scope: .singleton) {
            ClosingPool(role: "replica", closed: closed)
        }
        _ = container.resolve(ClosingPool.self, name: "primary")
        _ = container.resolve(ClosingPool.self, name: "replica")
        XCTAssertEqual(container.registrationCount, 2)
        await container.shutdown()
        XCTAssertEqual(closed.withLock { $0 }.sorted(), ["primary", "replica"])
        XCTAssertNil(container.resolve(ClosingPool.self, name: "primary"))
        XCTAssertEqual(container.registeredNames(of: ClosingPool.self), [])
    }

    func testStartBuildsNamedAsyncSingletons() async throws {
        let container = WeaveDI.Container()
        container.register(NamedCounter.self, name: "warm", scope: .singleton) { () async throws -> NamedCounter in
            await Task.yield()
            return NamedCounter(serial: 7)
        }
        XCTAssertThrowsError(try container.resolveThrowing(NamedCounter.self, name: "warm")) { error in
            guard case .asyncRegistration = error as? DIError else { return XCTFail("\(error)") }
        }
        try await container.start(timeout: .seconds(10))
        XCTAssertEqual(container.resolve(NamedCounter.self, name: "warm")?.serial, 7)
    }

    func testAnAsyncNamedRegistrationIsBuiltOnceByItsAsyncResolve() async throws {
        let built = BuildSerials()
        UnifiedDI.register(NamedCounter.self, name: "pool", scope: .singleton) { () async throws -> NamedCounter in
            await Task.yield()
            return NamedCounter(serial: built.next())
        }
        async let first = UnifiedDI.resolveAsyncThrowing(NamedCounter.self, name: "pool")
        async let second = UnifiedDI.resolveAsyncThrowing(NamedCounter.self, name: "pool")
        let (a, b) = try await (first, second)
        XCTAssertTrue(a === b)
        XCTAssertEqual(a.serial, 1)
        XCTAssertTrue(UnifiedDI.resolve(NamedCounter.self, name: "pool") === a)
        do {
            _ = try await UnifiedDI.resolveAsyncThrowing(NamedCounter.self, name: "other")
            XCTFail("resolved a name never registered")
        } catch let error as DIError {
            XCTAssertTrue(error.description.contains("(registered: \"pool\")"), error.description)
        }
    }

    func testValidationReportsEachNameAsItsOwnRegistration() {
        UnifiedDI.register(NamedCounter.self, name: "good", scope: .singleton) { NamedCounter(serial: 1) }
        UnifiedDI.register(NamedCounter.self, name: "bad", scope: .singleton) {
            NamedCounter(serial: UnifiedDI.resolve(NeverNamed.self) == nil ? 0 : 1)
        }
        let report = UnifiedDI.validate()
        XCTAssertFalse(report.isValid)
        let nodes = report.graph.nodes.map(\.name).sorted()
        XCTAssertEqual(nodes, ["NamedCounter named \"bad\"", "NamedCounter named \"good\"", "NeverNamed"])
        XCTAssertEqual(report.graph.edges.map { "\($0.from) -> \($0.to)" }, ["NamedCounter named \"bad\" -> NeverNamed"])
        XCTAssertTrue("\(report)".contains("NamedCounter named \"bad\""), "\(report)")
        XCTAssertFalse("\(report)".contains("NamedCounter named \"good\" "), "\(report)")
    }

    /// The window between a lookup that missed and the lock that adds a
    /// name: another thread adds the same name there. The late thread must
    /// take that key, not make a second one (two keys would split one
    /// name's registrations).
    func testTwoFirstUsesOfANameAtOnceMakeOneKey() {
        let name = "window-\(UUID().uuidString)"
        let inWindow = DispatchSemaphore(value: 0)
        let otherAdded = DispatchSemaphore(value: 0)
        let once = Locked(false)
        RegistrationName.afterMissForTesting.withLock {
            $0 = {
                let first = once.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                inWindow.signal()
                otherAdded.wait()
            }
        }
        defer { RegistrationName.afterMissForTesting.withLock { $0 = nil } }

        let lateKey = Locked<TypeKey?>(nil)
        let late = Thread {
            lateKey.withLock { $0 = RegistrationName.key(NamedCounter.self, name) }
        }
        late.start()
        inWindow.wait()
        let earlyKey = RegistrationName.key(NamedCounter.self, name)
        otherAdded.signal()
        while lateKey.withLock({ $0 }) == nil { usleep(1000) }

        XCTAssertEqual(lateKey.withLock { $0 }, earlyKey)
        XCTAssertEqual(RegistrationName.all(of: ObjectIdentifier(NamedCounter.self)).filter { $0.name == name }.count, 1)
    }

    func testNamedReadsFromManyThreadsSeeTheirOwnNames() {
        for index in 0..<8 {
            UnifiedDI.register(NamedCounter.self, name: "n\(index)") { NamedCounter(serial: index) }
        }
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for _ in 0..<2_000 where UnifiedDI.resolve(NamedCounter.self, name: "n\(index)")?.serial != index {
                wrong.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, 0)
    }
}

private final class BuildSerials: @unchecked Sendable {
    private let value = Locked(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
