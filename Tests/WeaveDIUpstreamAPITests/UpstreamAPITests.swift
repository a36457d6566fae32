import InMemoryLogging
import Logging
import WeaveDI
import XCTest

#if SwiftDependencies
import Dependencies
#endif

// Code written against the published WeaveDI (3.1-3.3), used the way its
// documentation and its own tests use it. A plain `import WeaveDI`, never
// `@testable`: no internals.

private protocol UserService: Sendable {
    func getUser(id: String) -> String
}

private final class UserServiceImpl: UserService {
    func getUser(id: String) -> String { "user_\(id)" }
}

private final class MockUserService: UserService {
    func getUser(id: String) -> String { "mock_user_\(id)" }
}

private class PrewarmAnimal: @unchecked Sendable {}
private final class PrewarmDog: PrewarmAnimal, @unchecked Sendable {}
private final class PrewarmCat: PrewarmAnimal, @unchecked Sendable {}

private final class CountingService: Sendable {
    static let built = TestAtomic<Int>(0)
    init() { Self.built.add(1, ordering: .sequentiallyConsistent) }
}

extension WeaveDI.Container {
    fileprivate var userService: UserService? { resolve(UserService.self) }
    fileprivate var countingService: CountingService? { resolve(CountingService.self) }
}

class UpstreamTestCase: XCTestCase {
    override func setUp() {
        super.setUp()
        WeaveDI.Container.live = WeaveDI.Container()
        UnifiedDI.setLogLevel(.off)
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
        UnifiedDI.resetLogConfiguration()
        super.tearDown()
    }
}

final class KeyPathRegistrationTests: UpstreamTestCase {
    func testRegisteringByKeyPathStoresUnderTheTypeAndReturnsTheInstance() async {
        let registered = UnifiedDI.register(\.userService) { UserServiceImpl() }
        await UnifiedDI.waitForRegistration()
        XCTAssertEqual(registered.getUser(id: "1"), "user_1")
        XCTAssertTrue(UnifiedDI.resolve(\.userService) as AnyObject === registered as AnyObject)
        XCTAssertTrue(UnifiedDI.resolve(UserService.self) as AnyObject === registered as AnyObject)
        XCTAssertTrue(WeaveDI.Container.live.userService as AnyObject === registered as AnyObject)

        UnifiedDI.release(UserService.self)
        XCTAssertNil(UnifiedDI.resolve(\.userService))
    }

    func testKeyPathRegistrationWithAScopeIsLazy() {
        let before = CountingService.built.load(ordering: .sequentiallyConsistent)
        UnifiedDI.register(\.countingService, scope: .transient) { CountingService() }
        XCTAssertEqual(CountingService.built.load(ordering: .sequentiallyConsistent), before)
        let first = UnifiedDI.resolve(\.countingService)
        let second = UnifiedDI.resolve(\.countingService)
        XCTAssertNotNil(first)
        XCTAssertFalse(first === second)
        XCTAssertEqual(CountingService.built.load(ordering: .sequentiallyConsistent), before + 2)
    }

    func testAsyncKeyPathRegistrationAwaitsTheFactoryOnce() async {
        let registered = await UnifiedDI.registerAsync(\.userService) { UserServiceImpl() }
        XCTAssertTrue(UnifiedDI.resolve(\.userService) as AnyObject === registered as AnyObject)
    }

    func testInjectAndFactoryByKeyPath() {
        let scenarios: any UpstreamDeprecatedScenarios = DeprecatedUpstreamScenarios()
        scenarios.injectByKeyPath()
    }
}

final class ConditionalRegistrationTests: UpstreamTestCase {
    func testOnlyTheChosenClosureRunsAndItsInstanceIsRegistered() {
        let ran = TestMutex<[String]>([])
        let chosen = UnifiedDI.Conditional.registerIf(
            UserService.self,
            condition: true,
            factory: {
                ran.withLock { $0.append("factory") }
                return UserServiceImpl()
            },
            fallback: {
                ran.withLock { $0.append("fallback") }
                return MockUserService()
            }
        )
        XCTAssertEqual(chosen.getUser(id: "123"), "user_123")
        XCTAssertEqual(UnifiedDI.resolve(UserService.self)?.getUser(id: "123"), "user_123")
        XCTAssertEqual(ran.withLock { $0 }, ["factory"])

        UnifiedDI.release(UserService.self)
        let fallback = UnifiedDI.Conditional.registerIf(
            UserService.self,
            condition: false,
            factory: {
                ran.withLock { $0.append("factory") }
                return UserServiceImpl()
            },
            fallback: {
                ran.withLock { $0.append("fallback") }
                return MockUserService()
            }
        )
        XCTAssertEqual(fallback.getUser(id: "123"), "mock_user_123")
        XCTAssertEqual(UnifiedDI.resolve(UserService.self)?.getUser(id: "123"), "mock_user_123")
        XCTAssertEqual(ran.withLock { $0 }, ["factory", "fallback"])
    }
}

final class AsyncFamilyTests: UpstreamTestCase {
    func testSingletonAsyncAwaitsTheFactoryOnceAndKeepsTheInstance() async {
        let calls = TestAtomic<Int>(0)
        let registered = await UnifiedDI.registerSingletonAsync(UserService.self) {
            calls.add(1, ordering: .sequentiallyConsistent)
            await Task.yield()
            return UserServiceImpl()
        }
        let first = await UnifiedDI.resolveAsync(UserService.self)
        let second = UnifiedDI.resolve(UserService.self)
        XCTAssertTrue(first as AnyObject === registered as AnyObject)
        XCTAssertTrue(second as AnyObject === registered as AnyObject)
        XCTAssertEqual(calls.load(ordering: .sequentiallyConsistent), 1)
    }

    func testAsyncRegistrationWithAnotherScopeKeepsOneInstanceAndWarns() async {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        DILog.logger = Logger(label: "WeaveDI") { _ in handler }
        UnifiedDI.setLogLevel(.warnings)

        let registered = await UnifiedDI.registerAsync(CountingService.self, scope: .transient) { CountingService() }
        XCTAssertTrue(UnifiedDI.resolve(CountingService.self) === registered)
        XCTAssertTrue(UnifiedDI.resolve(CountingService.self) === registered)
        XCTAssertTrue(
            handler.entries.contains { $0.level == .warning && "\($0.message)".contains("CountingService") },
            "\(handler.entries)"
        )
    }

    func testInstanceRequireReleaseAndReleaseAll() async {
        let instance = UserServiceImpl()
        await UnifiedDI.registerInstanceAsync(UserService.self, instance: instance)
        let required = await UnifiedDI.requireResolveAsync(UserService.self)
        XCTAssertTrue(required as AnyObject === instance)

        await UnifiedDI.releaseAsync(UserService.self)
        let afterRelease = await UnifiedDI.resolveAsync(UserService.self)
        XCTAssertNil(afterRelease)
        let fallback = await UnifiedDI.resolveAsync(UserService.self, default: MockUserService())
        XCTAssertEqual(fallback.getUser(id: "1"), "mock_user_1")

        UnifiedDI.register(UserService.self) { UserServiceImpl() }
        UnifiedDI.register(CountingService.self) { CountingService() }
        let (user, counting) = await UnifiedDI.resolvePairAsync(UserService.self, CountingService.self)
        XCTAssertNotNil(user)
        XCTAssertNotNil(counting)
        await UnifiedDI.releaseAllAsync()
        XCTAssertEqual(WeaveDI.Container.live.registrationCount, 0)
        XCTAssertNil(UnifiedDI.resolve(CountingService.self))
    }

    func testRegisteredTypesAreTheRealNames() async {
        let empty = await UnifiedDI.getRegisteredTypesAsync()
        XCTAssertEqual(empty, [])
        UnifiedDI.register(UserService.self) { UserServiceImpl() }
        UnifiedDI.register(CountingService.self, scope: .singleton) { CountingService() }
        let names = await UnifiedDI.getRegisteredTypesAsync()
        XCTAssertEqual(names, ["CountingService", "UserService"])
        XCTAssertEqual(GlobalUnifiedRegistry.getAllRegisteredTypeNames(), names)
        XCTAssertEqual(GlobalUnifiedRegistry.registeredTypeCount(), 2)
    }

    func testBatchRegistrationInBothClosureForms() async {
        await UnifiedDI.performBatchRegistration { container in
            container.register(UserService.self) { UserServiceImpl() }
        }
        await UnifiedDI.performBatchRegistration { container in
            await Task.yield()
            container.register(CountingService.self, scope: .singleton) { CountingService() }
        }
        await UnifiedDI.flushPendingRegistrations()
        XCTAssertNotNil(UnifiedDI.resolve(UserService.self))
        XCTAssertNotNil(UnifiedDI.resolve(CountingService.self))
    }

    func testPrewarmBuildsLazySingletonsBeforeTheFirstResolve() {
        let built = TestAtomic<Int>(0)
        UnifiedDI.register(CountingService.self, scope: .singleton) {
            built.add(1, ordering: .sequentiallyConsistent)
            return CountingService()
        }
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 0)
        UnifiedDI.prewarm([CountingService.self])
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 1)
        _ = UnifiedDI.resolve(CountingService.self)
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 1)
        UnifiedDI.prewarm([UserService.self])  // missing: skipped, no crash
    }

    func testPrewarmBuildsEachElementsOwnTypeWhenTheyShareASuperclass() {
        let built = TestAtomic<Int>(0)
        UnifiedDI.register(PrewarmDog.self, scope: .singleton) {
            built.add(1, ordering: .sequentiallyConsistent)
            return PrewarmDog()
        }
        UnifiedDI.register(PrewarmCat.self, scope: .singleton) {
            built.add(10, ordering: .sequentiallyConsistent)
            return PrewarmCat()
        }
        UnifiedDI.prewarm([PrewarmDog.self, PrewarmCat.self])
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 11)
    }

    func testPrewarmTakesAListOfDifferentTypes() {
        let built = TestAtomic<Int>(0)
        UnifiedDI.register(CountingService.self, scope: .singleton) {
            built.add(1, ordering: .sequentiallyConsistent)
            return CountingService()
        }
        UnifiedDI.register(UserService.self, scope: .singleton) {
            built.add(10, ordering: .sequentiallyConsistent)
            return UserServiceImpl()
        }
        UnifiedDI.prewarm([CountingService.self, UserService.self, MockUserService.self])
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 11, "each registered type built once, the missing one skipped")
        _ = UnifiedDI.resolve(CountingService.self)
        _ = UnifiedDI.resolve(UserService.self)
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 11)
    }

    func testGlobalUnifiedRegistryIsTheSharedRegistry() async {
        UnifiedDI.register(UserService.self) { UserServiceImpl() }
        let resolved = await GlobalUnifiedRegistry.resolveAsync(UserService.self)
        XCTAssertEqual(resolved?.getUser(id: "7"), "user_7")
        XCTAssertTrue(GlobalUnifiedRegistry.isRegistered(UserService.self))
        GlobalUnifiedRegistry.disableOptimization()
        XCTAssertFalse(UnifiedRegistry.shared.isOptimizationEnabled)
        XCTAssertEqual(UnifiedDI.resolve(UserService.self)?.getUser(id: "7"), "user_7")
        GlobalUnifiedRegistry.enableOptimization()
        XCTAssertTrue(UnifiedRegistry.shared.isOptimizationEnabled)
        GlobalUnifiedRegistry.releaseAll()
        XCTAssertFalse(GlobalUnifiedRegistry.isRegistered(UserService.self))
    }
}

final class SafeInjectShapesTests: UpstreamTestCase {
    func testBothShapesAndTheOptionalGetValueSideBySide() {
        let scenarios: any UpstreamDeprecatedScenarios = DeprecatedUpstreamScenarios()
        scenarios.safeInjectShapes()
    }

    func testOptionalGetValueThrowsNamingTheType() {
        let missing: UserService? = nil
        XCTAssertThrowsError(try missing.getValue()) { error in
            XCTAssertEqual(error as? DIError, .dependencyNotFound(type: "UserService"))
        }
        let present: UserService? = UserServiceImpl()
        XCTAssertEqual(try present.getValue().getUser(id: "2"), "user_2")
    }
}

/// The deprecated wrappers, called through a protocol witness so this
/// target builds without deprecation warnings while using them as an app would.
private protocol UpstreamDeprecatedScenarios {
    func injectByKeyPath()
    func safeInjectShapes()
}

private final class UpstreamLegacyHolder {
    @available(*, deprecated) @Inject(\.userService) var byKeyPath: UserService?
    @available(*, deprecated) @Inject var byType: UserService?
    @available(*, deprecated) @SafeInject var optional: UserService?
    @available(*, deprecated) @SafeInject var result: SafeInjectResult<UserService>
    @available(*, deprecated) @SafeInject(\.userService) var resultByKeyPath: SafeInjectResult<UserService>
    @Factory(\.countingService) var fresh: CountingService
}

private struct DeprecatedUpstreamScenarios: UpstreamDeprecatedScenarios {
    @available(*, deprecated)
    func injectByKeyPath() {
        let holder = UpstreamLegacyHolder()
        XCTAssertNil(holder.byKeyPath)
        let registered = UnifiedDI.register(\.userService) { UserServiceImpl() }
        XCTAssertTrue(holder.byKeyPath as AnyObject === registered as AnyObject)
        XCTAssertTrue(holder.byType as AnyObject === registered as AnyObject)

        UnifiedDI.register(CountingService.self, scope: .singleton) { CountingService() }
        XCTAssertFalse(holder.fresh === holder.fresh)
    }

    @available(*, deprecated)
    func safeInjectShapes() {
        let holder = UpstreamLegacyHolder()
        XCTAssertNil(holder.optional)
        XCTAssertNil(holder.result.value)
        XCTAssertThrowsError(try holder.result.get()) { error in
            XCTAssertEqual(error as? SafeInjectError, .dependencyNotFound(type: "UserService"))
        }
        XCTAssertThrowsError(try holder.resultByKeyPath.get())
        XCTAssertThrowsError(try holder.optional.getValue())
        XCTAssertThrowsError(try holder.$optional.getValue()) { error in
            XCTAssertEqual(error as? DIError, .dependencyNotFound(type: "UserService"))
        }
        var failures = 0
        holder.result.onFailure { _ in failures += 1 }
        XCTAssertEqual(failures, 1)

        UnifiedDI.register(UserService.self) { UserServiceImpl() }
        XCTAssertEqual(holder.optional?.getUser(id: "a"), "user_a")
        XCTAssertEqual(try holder.optional.getValue().getUser(id: "b"), "user_b")
        XCTAssertEqual(try holder.$optional.getValue().getUser(id: "c"), "user_c")
        XCTAssertEqual(try holder.result.get().getUser(id: "d"), "user_d")
        XCTAssertEqual(try holder.resultByKeyPath.get().getUser(id: "e"), "user_e")
        XCTAssertEqual(holder.result.map { $0.getUser(id: "f") }.value, "user_f")
        var seen: String?
        holder.result.onSuccess { seen = $0.getUser(id: "g") }
        XCTAssertEqual(seen, "user_g")
    }
}

#if SwiftDependencies
// A swift-dependencies key read through @Injected.
private struct GreetingKey: DependencyKey {
    static let liveValue = "live greeting"
    static let testValue = "test greeting"
}

/// A key that is both: read as an InjectedKey, so a container registration
/// of its value type wins over its default.
private struct DualKey: InjectedKey, DependencyKey {
    typealias Value = Int
    static let liveValue = 1
    static let testValue = 2
    static let previewValue = 3
}

private struct DependencyKeyReader {
    @Injected(GreetingKey.self) var greeting: String
    @Injected(DualKey.self) var dual: Int
}

final class DependencyKeyInjectionTests: UpstreamTestCase {
    func testInjectedReadsWhatDependencyReads() {
        let reader = DependencyKeyReader()
        XCTAssertEqual(reader.greeting, "test greeting")
        withDependencies {
            $0[GreetingKey.self] = "overridden"
        } operation: {
            XCTAssertEqual(reader.greeting, "overridden")
            XCTAssertEqual(DependencyKeyReader().greeting, "overridden")
        }
        XCTAssertEqual(reader.greeting, "test greeting")
    }

    func testAKeyThatIsBothIsReadAsAnInjectedKey() {
        let reader = DependencyKeyReader()
        XCTAssertEqual(reader.dual, 2)
        UnifiedDI.register(Int.self) { 40 }
        XCTAssertEqual(reader.dual, 40)
    }
}
#endif

final class LogLevelTests: UpstreamTestCase {
    func testLevelsMapOntoSwiftLogAndFilterWhatIsLogged() {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        DILog.logger = Logger(label: "WeaveDI") { _ in handler }

        UnifiedDI.setLogLevel(.all)
        XCTAssertEqual(DILog.logger.logLevel, .debug)
        XCTAssertEqual(UnifiedDI.logLevel, .all)
        UnifiedDI.register(UserService.self) { UserServiceImpl() }
        XCTAssertTrue(
            handler.entries.contains { "\($0.message)".contains("registered WeaveDIUpstreamAPITests.UserService") }, "\(handler.entries)")

        handler.clear()
        UnifiedDI.setLogLevel(.off)
        XCTAssertEqual(DILog.logger.logLevel, .critical)
        UnifiedDI.register(CountingService.self) { CountingService() }
        XCTAssertEqual(handler.entries, [])

        UnifiedDI.setLogLevel(.errors)
        XCTAssertEqual(DILog.logger.logLevel, .error)
        UnifiedDI.setLogLevel(.warnings)
        XCTAssertEqual(DILog.logger.logLevel, .warning)
        UnifiedDI.setLogSeverity(.debug)
        XCTAssertEqual(DILog.logger.logLevel, .debug)
        XCTAssertEqual(UnifiedDI.logLevel, .all, "logLevel follows setLogSeverity")
        UnifiedDI.setLogSeverity(.error)
        XCTAssertEqual(DILog.logger.logLevel, .error)
        XCTAssertEqual(UnifiedDI.logLevel, .errors)
        UnifiedDI.setLogSeverity(.warning)
        XCTAssertEqual(UnifiedDI.logLevel, .warnings)
        UnifiedDI.setLogSeverity(.info)
        XCTAssertEqual(DILog.logger.logLevel, .info)
        XCTAssertEqual(UnifiedDI.logLevel, .performance)
        UnifiedDI.resetLogConfiguration()
        XCTAssertEqual(DILog.logger.logLevel, .info)
        XCTAssertEqual(UnifiedDI.logLevel, .performance)
    }
}
