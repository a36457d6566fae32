import Synchronization
import WeaveDI
import XCTest

// Upstream 3.3's DIAsync and DIActor, and the safe key-path registration
// helpers, called the way upstream apps call them.

private protocol ActorClock: Sendable { var name: String { get } }
private struct SystemActorClock: ActorClock { var name = "system" }
private struct FixedActorClock: ActorClock { var name = "fixed" }

private final class ActorCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    @discardableResult func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

private final class ActorService: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private struct ActorConfig: Sendable, Equatable { let name: String }

extension WeaveDI.Container {
    fileprivate var actorClock: ActorClock? { resolve(ActorClock.self) }
    fileprivate var actorService: ActorService? { resolve(ActorService.self) }
    fileprivate var actorConfig: ActorConfig? { resolve(ActorConfig.self) }
}

final class UpstreamActorAPITests: XCTestCase {
    override func setUp() { WeaveDI.Container.live = WeaveDI.Container() }
    override func tearDown() { WeaveDI.Container.live = WeaveDI.Container() }

    // MARK: DIAsync

    func testDIAsyncTypeRegistrationIsTransient() async {
        let counter = ActorCounter()
        await DIAsync.register(ActorService.self) { ActorService(serial: counter.next()) }
        XCTAssertEqual(counter.value, 0, "nothing runs at registration")
        let first = await DIAsync.resolve(ActorService.self)
        let second = await DIAsync.resolve(ActorService.self)
        XCTAssertEqual(first?.serial, 1)
        XCTAssertEqual(second?.serial, 2)
        let isRegistered = await DIAsync.isRegistered(ActorService.self)
        XCTAssertTrue(isRegistered)
        XCTAssertEqual(counter.value, 2, "isRegistered builds nothing")
    }

    func testDIAsyncKeyPathRegistrationIsSeenBySyncResolve() async {
        let clock = await DIAsync.register(\.actorClock) { SystemActorClock() }
        XCTAssertEqual(clock.name, "system")
        XCTAssertEqual(UnifiedDI.resolve(ActorClock.self)?.name, "system")
        XCTAssertEqual(UnifiedDI.resolve(\.actorClock)?.name, "system")
        let viaKeyPath = await DIAsync.isRegistered(\.actorClock)
        XCTAssertTrue(viaKeyPath)
    }

    func testDIAsyncResolveMissAndDefault() async {
        let missing = await DIAsync.resolve(ActorConfig.self)
        XCTAssertNil(missing)
        let fallback = await DIAsync.resolve(ActorConfig.self, default: ActorConfig(name: "default"))
        XCTAssertEqual(fallback, ActorConfig(name: "default"))
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(ActorConfig.self), "the default is not registered")
        let isRegistered = await DIAsync.isRegistered(ActorConfig.self)
        XCTAssertFalse(isRegistered)
    }

    func testDIAsyncRequireResolveBuildsAsyncRegistration() async {
        await DIAsync.register(ActorConfig.self) { ActorConfig(name: "required") }
        let config = await DIAsync.requireResolve(ActorConfig.self)
        XCTAssertEqual(config, ActorConfig(name: "required"))
    }

    func testDIAsyncGetOrCreateKeepsExistingInstance() async {
        UnifiedDI.register(ActorConfig.self) { ActorConfig(name: "existing") }
        let config = await DIAsync.getOrCreate(\.actorConfig) {
            XCTFail("the factory must not run when registered")
            return ActorConfig(name: "new")
        }
        XCTAssertEqual(config, ActorConfig(name: "existing"))
    }

    func testDIAsyncGetOrCreateBuildsOnceUnderConcurrency() async {
        let counter = ActorCounter()
        let serials = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await DIAsync.getOrCreate(\.actorService) {
                        try? await Task.sleep(nanoseconds: 1_000_000)
                        return ActorService(serial: counter.next())
                    }.serial
                }
            }
            return await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        XCTAssertEqual(counter.value, 1, "one build for twenty concurrent callers")
        XCTAssertEqual(serials, [1])
        XCTAssertEqual(UnifiedDI.resolve(ActorService.self)?.serial, 1)
    }

    func testDIAsyncRegisterIfRunsOnlyTheChosenClosure() async {
        await DIAsync.registerIf(
            ActorClock.self, condition: false,
            factory: { SystemActorClock() }, fallback: { FixedActorClock() })
        let clock = await DIAsync.resolve(ActorClock.self)
        XCTAssertEqual(clock?.name, "fixed")

        let config = await DIAsync.registerIf(
            \.actorConfig, condition: true,
            factory: { ActorConfig(name: "on") },
            fallback: {
                XCTFail("the fallback must not run")
                return ActorConfig(name: "off")
            })
        XCTAssertEqual(config, ActorConfig(name: "on"))
        XCTAssertEqual(UnifiedDI.resolve(ActorConfig.self), ActorConfig(name: "on"))
    }

    func testDIAsyncRegisterManyAppliesInOrder() async {
        await DIAsync.registerMany {
            DIAsyncRegistration(ActorConfig.self) { ActorConfig(name: "first") }
            DIAsyncRegistration(\.actorClock) { SystemActorClock() }
            DIAsyncRegistration(ActorConfig.self) { ActorConfig(name: "second") }
        }
        let config = await DIAsync.resolve(ActorConfig.self)
        let clock = await DIAsync.resolve(ActorClock.self)
        XCTAssertEqual(config, ActorConfig(name: "second"), "the later registration of a type wins")
        XCTAssertEqual(clock?.name, "system")
    }

    func testDIAsyncReleaseAllEmptiesTheLiveContainer() async {
        await DIAsync.register(ActorConfig.self) { ActorConfig(name: "x") }
        UnifiedDI.register(ActorClock.self) { SystemActorClock() }
        await DIAsync.releaseAll()
        let config = await DIAsync.resolve(ActorConfig.self)
        XCTAssertNil(config)
        XCTAssertNil(UnifiedDI.resolve(ActorClock.self))
        XCTAssertEqual(WeaveDI.Container.live.registrationCount, 0)
    }

    // MARK: DIActor

    func testDIActorRegisterIsTransientAndReleasable() async {
        let counter = ActorCounter()
        let release = await DIActor.shared.register(ActorService.self) { ActorService(serial: counter.next()) }
        let first = await DIActor.shared.resolve(ActorService.self)
        let second = await DIActor.shared.resolve(ActorService.self)
        XCTAssertEqual([first?.serial, second?.serial], [1, 2])
        XCTAssertEqual(UnifiedDI.resolve(ActorService.self)?.serial, 3, "the same registration UnifiedDI reads")
        await release()
        let afterRelease = await DIActor.shared.resolve(ActorService.self)
        XCTAssertNil(afterRelease)
    }

    func testDIActorSharedActorIsBuiltOnce() async {
        let counter = ActorCounter()
        _ = await DIActor.shared.registerSharedActor(ActorService.self) { ActorService(serial: counter.next()) }
        XCTAssertEqual(counter.value, 0, "lazy")
        let serials = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<10 {
                group.addTask { await DIActor.shared.resolve(ActorService.self)?.serial }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(serials), [1])
        XCTAssertEqual(counter.value, 1)
    }

    func testDIActorResolveResultAndThrows() async throws {
        await DIActor.shared.register(ActorConfig.self, instance: ActorConfig(name: "instance"))
        let result = await DIActor.shared.resolveResult(ActorConfig.self)
        XCTAssertEqual(try result.get(), ActorConfig(name: "instance"))
        let thrown = try await DIActor.shared.resolveThrows(ActorConfig.self)
        XCTAssertEqual(thrown, ActorConfig(name: "instance"))

        let missing = await DIActor.shared.resolveResult(ActorService.self)
        guard case .failure(.dependencyNotFound(let name)) = missing else {
            return XCTFail("expected dependencyNotFound, got \(missing)")
        }
        XCTAssertTrue(name.contains("ActorService"), name)
        do {
            _ = try await DIActorGlobalAPI.resolveThrows(ActorService.self)
            XCTFail("expected a throw")
        } catch let error as DIError {
            guard case .dependencyNotFound = error else { return XCTFail("got \(error)") }
        }
    }

    func testDIActorCountsAndNamesAreTheLiveContainers() async {
        var count = await DIActor.shared.registeredCount
        XCTAssertEqual(count, 0)
        await DIActor.shared.register(ActorConfig.self, instance: ActorConfig(name: "a"))
        UnifiedDI.register(ActorClock.self) { SystemActorClock() }
        count = await DIActor.shared.registeredCount
        XCTAssertEqual(count, 2)
        let names = await DIActor.shared.registeredTypeNames
        XCTAssertEqual(names, WeaveDI.Container.live.registeredTypeNames)
        XCTAssertEqual(names.count, 2)
        await DIActor.shared.printRegistrationStatus()
        await DIActor.shared.release(ActorConfig.self)
        count = await DIActor.shared.registeredCount
        XCTAssertEqual(count, 1)
        await DIActorGlobalAPI.releaseAll()
        count = await DIActor.shared.registeredCount
        XCTAssertEqual(count, 0)
    }

    func testDIActorGlobalAPIAndBridge() async {
        _ = await DIActorGlobalAPI.register(ActorClock.self) { FixedActorClock() }
        let clock = await DIActorGlobalAPI.resolve(ActorClock.self)
        XCTAssertEqual(clock?.name, "fixed")
        let result = await DIActorGlobalAPI.resolveResult(ActorClock.self)
        XCTAssertEqual((try? result.get())?.name, "fixed")
        await DIActorGlobalAPI.release(ActorClock.self)
        let released = await DIActorGlobalAPI.resolve(ActorClock.self)
        XCTAssertNil(released)

        await DIActorBridge.migrateToActor()
        await MainActor.run {
            DIActorBridge.registerSync(ActorConfig.self) { ActorConfig(name: "sync") }
            // Visible at once: upstream registered from a detached task.
            XCTAssertEqual(DIActorBridge.resolveSync(ActorConfig.self), ActorConfig(name: "sync"))
        }
    }

    func testDIActorAsGlobalActor() async {
        let config = await registerAndResolveOnDIActor()
        XCTAssertEqual(config, ActorConfig(name: "isolated"))
    }
}

/// Upstream apps annotate code `@DIActor`; it stays callable from async code.
@DIActor
private func registerAndResolveOnDIActor() async -> ActorConfig? {
    await DIActor.shared.register(ActorConfig.self, instance: ActorConfig(name: "isolated"))
    return await DIActor.shared.resolve(ActorConfig.self)
}
