import WeaveDI
import XCTest

// Upstream 3.3's DIAsync and DIActor, and the safe key-path registration
// helpers, called the way upstream apps call them.

private protocol ActorClock: Sendable { var name: String { get } }
private struct SystemActorClock: ActorClock { var name = "system" }
private struct FixedActorClock: ActorClock { var name = "fixed" }

private final class ActorCounter: Sendable {
    private let count = TestMutex(0)
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

// MARK: - Safe key-path registration

private struct SafeFailure: Error {}

private protocol SafeAuth: Sendable { var label: String { get } }
private struct SafeAuthRepository: SafeAuth { var label = "repository" }
private struct SafeAuthUseCase: SafeAuth {
    let repository: SafeAuth
    var label: String { "useCase(\(repository.label))" }
}

extension WeaveDI.Container {
    fileprivate var safeAuth: SafeAuth? { resolve(SafeAuth.self) }
}

// The safe registration tests, in the same case so they share its
// setUp and tearDown.
extension UpstreamActorAPITests {
    func testSimpleKeyPathRegistryRegistersEagerlyUnderTheValueType() {
        let counter = ActorCounter()
        SimpleKeyPathRegistry.register(\.actorService) { ActorService(serial: counter.next()) }
        XCTAssertEqual(counter.value, 1, "eager, as upstream")
        XCTAssertEqual(UnifiedDI.resolve(ActorService.self)?.serial, 1)
        XCTAssertEqual(UnifiedDI.resolve(ActorService.self)?.serial, 1, "one instance")
        XCTAssertTrue(SimpleKeyPathRegistry.isRegistered(\.actorService))

        SimpleKeyPathRegistry.registerIf(\.actorConfig, condition: false) {
            XCTFail("must not run")
            return ActorConfig(name: "skipped")
        }
        XCTAssertFalse(SimpleKeyPathRegistry.isRegistered(\.actorConfig))
        SimpleKeyPathRegistry.registerInstance(\.actorConfig, instance: ActorConfig(name: "instance"))
        XCTAssertEqual(UnifiedDI.resolve(ActorConfig.self), ActorConfig(name: "instance"))

        SimpleKeyPathRegistry.registerForDebug(\.actorClock) { FixedActorClock() }
        SimpleKeyPathRegistry.registerForRelease(\.actorClock) { SystemActorClock() }
        #if DEBUG
        XCTAssertEqual(UnifiedDI.resolve(ActorClock.self)?.name, "fixed")
        #else
        XCTAssertEqual(UnifiedDI.resolve(ActorClock.self)?.name, "system")
        #endif
        XCTAssertFalse(SimpleKeyPathRegistry.extractKeyPathName(\.actorClock).isEmpty)
    }

    func testRegisterAndReturn() async {
        let config = RegisterAndReturn.register(\.actorConfig) { ActorConfig(name: "returned") }
        XCTAssertEqual(config, ActorConfig(name: "returned"))
        XCTAssertEqual(UnifiedDI.resolve(ActorConfig.self), config)
        XCTAssertTrue(RegisterAndReturn.isRegistered(\.actorConfig))
        XCTAssertFalse(RegisterAndReturn.isRegistered(\.actorClock))
        let clock = await RegisterAndReturn.registerAsync(\.actorClock) { SystemActorClock() }
        XCTAssertEqual(clock.name, "system")
        XCTAssertEqual(UnifiedDI.resolve(\.actorClock)?.name, "system")
        XCTAssertEqual(
            RegisterAndReturn.extractKeyPathName(\.actorClock), SimpleKeyPathRegistry.extractKeyPathName(\.actorClock))
    }

    func testSafeDependencyRegisterFallsBackWithoutRegistering() {
        SafeDependencyRegister.setupForDependencyKeys()
        XCTAssertNil(SafeDependencyRegister.safeResolve(\.actorConfig))
        XCTAssertEqual(
            SafeDependencyRegister.resolveWithFallback(\.actorConfig, fallback: ActorConfig(name: "fallback")),
            ActorConfig(name: "fallback"))
        XCTAssertEqual(
            SimpleSafeDependencyRegister.safeResolveWithFallback(\.actorConfig, fallback: ActorConfig(name: "f2")),
            ActorConfig(name: "f2"))
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(ActorConfig.self), "a fallback is not registered")

        UnifiedDI.register(ActorConfig.self) { ActorConfig(name: "live") }
        XCTAssertEqual(SafeDependencyRegister.safeResolve(\.actorConfig), ActorConfig(name: "live"))
        XCTAssertEqual(SimpleSafeDependencyRegister.safeResolve(\.actorConfig), ActorConfig(name: "live"))
        XCTAssertEqual(
            SafeDependencyRegister.resolveWithFallback(\.actorConfig, fallback: ActorConfig(name: "unused")),
            ActorConfig(name: "live"))
    }

    func testSafeDependencyResolverReportsMissAndCycle() {
        let missing = SafeDependencyResolver.safeResolve(ActorConfig.self)
        XCTAssertNil(missing.value)
        guard case .dependencyNotFound(let type, let keyPath)? = missing.error else {
            return XCTFail("got \(missing)")
        }
        XCTAssertEqual(type, "ActorConfig")
        XCTAssertNil(keyPath)
        XCTAssertTrue(missing.error?.isRecoverable ?? false)

        UnifiedDI.register(ActorService.self, scope: .transient) {
            _ = UnifiedDI.resolve(ActorClock.self)
            return ActorService(serial: 0)
        }
        UnifiedDI.register(ActorClock.self, scope: .transient) { () throws -> ActorClock in
            _ = try UnifiedDI.resolveThrowing(ActorService.self)
            return SystemActorClock()
        }
        let cycle = SafeDependencyResolver.safeResolve(ActorClock.self)
        guard case .circularDependency(let path)? = cycle.error else { return XCTFail("got \(cycle)") }
        XCTAssertEqual(path.first, path.last)
        XCTAssertTrue(path.contains("ActorService"), "\(path)")
        XCTAssertFalse(cycle.error?.isRecoverable ?? true)

        UnifiedDI.register(ActorConfig.self, scope: .transient) { () throws -> ActorConfig in throw SafeFailure() }
        guard case .invalidConfiguration(let reason)? = SafeDependencyResolver.safeResolve(ActorConfig.self).error else {
            return XCTFail("a factory's failure is reported")
        }
        XCTAssertTrue(reason.contains("SafeFailure"), reason)
    }

    func testRecoveryStrategies() {
        XCTAssertEqual(
            SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .useDefault(ActorConfig(name: "d"))),
            ActorConfig(name: "d"))
        XCTAssertEqual(
            SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .fallback({ ActorConfig(name: "f") })),
            ActorConfig(name: "f"))
        XCTAssertNil(SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .fallback({ throw SafeFailure() })))
        XCTAssertNil(SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .ignore))
        XCTAssertNil(SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .retry(maxAttempts: 0)))

        // A throwing factory's failure is not kept, so a retry can succeed.
        let attempts = ActorCounter()
        UnifiedDI.register(ActorConfig.self, scope: .transient) { () throws -> ActorConfig in
            if attempts.next() < 3 { throw SafeFailure() }
            return ActorConfig(name: "third")
        }
        XCTAssertEqual(
            SafeDependencyResolver.safeResolve(ActorConfig.self, strategy: .retry(maxAttempts: 3)),
            ActorConfig(name: "third"))
        XCTAssertEqual(attempts.value, 3, "maxAttempts counts every attempt")
    }

    func testSafeDIErrorDescriptions() {
        let error = SafeDIError.dependencyNotFound(type: "Auth", keyPath: "auth")
        XCTAssertEqual(error.description, "dependency not found: Auth (key path: auth)")
        XCTAssertTrue(error.debugDescription.hasPrefix(error.description))
        XCTAssertEqual(SafeDIError.circularDependency(path: ["A", "B", "A"]).errorDescription, "circular dependency: A -> B -> A")
        XCTAssertFalse(SafeDIError.resolutionTimeout(type: "A", timeout: 2).isRecoverable)
        XCTAssertTrue(SafeDIError.factoryNotFound(keyPath: "a").isRecoverable)
        XCTAssertFalse(SafeDependencyKeyPatterns.preRegistrationPattern.isEmpty)
        let info = KeyPathInfo(propertyName: "auth", keyName: "AuthKey", valueTypeName: "Auth", scope: .singleton)
        XCTAssertTrue(info.generateExtensionCode().contains("var auth: Auth"))
        XCTAssertTrue(info.generateExtensionCode().contains("self[AuthKey.self]"))
    }

    func testBulkInterfacesAndEasyScopes() async {
        let makers = RegisterModule().bulkInterfaces {
            SafeAuth.self
                => (
                    repository: { SafeAuthRepository() },
                    useCase: { SafeAuthUseCase(repository: $0) },
                    fallback: { SafeAuthRepository(label: "fallback") }
                )
        }
        XCTAssertEqual(makers.count, 2)
        for make in makers { await make().register() }
        XCTAssertEqual(UnifiedDI.resolve(SafeAuth.self)?.label, "useCase(repository)")

        let includeClock = true
        let scopes = RegisterModule().easyScopes {
            register(ActorConfig.self) { ActorConfig(name: "easy") }
            if includeClock {
                register(ActorClock.self) { FixedActorClock() }
            }
        }
        XCTAssertEqual(scopes.count, 2)
        for make in scopes { await make().register() }
        XCTAssertEqual(UnifiedDI.resolve(ActorConfig.self), ActorConfig(name: "easy"))
        XCTAssertEqual(UnifiedDI.resolve(ActorClock.self)?.name, "fixed")

        WeaveDI.Container.live = WeaveDI.Container()
        for make in registerInterface(
            SafeAuth.self, repository: { SafeAuthRepository() }, useCase: { SafeAuthUseCase(repository: $0) },
            fallback: { SafeAuthRepository(label: "fallback") })
        {
            await make().register()
        }
        XCTAssertEqual(UnifiedDI.resolve(\.safeAuth)?.label, "useCase(repository)")
        WeaveDI.Container.live = WeaveDI.Container()
        for make in RegisterModule().registerInterfacePattern(
            SafeAuth.self, repositoryFactory: { SafeAuthRepository() },
            useCaseFactory: { SafeAuthUseCase(repository: $0) }, repositoryFallback: { SafeAuthRepository() })
        {
            await make().register()
        }
        XCTAssertEqual(UnifiedDI.resolve(SafeAuth.self)?.label, "useCase(repository)")
    }
}
