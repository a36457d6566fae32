import InMemoryLogging
import Logging
import WeaveDI
import XCTest

#if SwiftDependencies
import Dependencies
#endif

// Upstream 3.4.0's additions, called the way its README, guides and tests
// call them. A plain `import WeaveDI`: no internals.

private protocol AuthInterface: Sendable {
    func authenticate() -> String
}

private protocol SignUpInterface: Sendable {
    func signUp() -> String
}

private protocol AppLogger: Sendable {
    var name: String { get }
}

private final class AuthRepositoryImpl: AuthInterface {
    func authenticate() -> String { "Auth Success" }
}

private final class MockAuthRepository: AuthInterface {
    func authenticate() -> String { "Mock Auth" }
}

private struct SignUpRepositoryImpl: SignUpInterface {
    func signUp() -> String { "SignUp Success" }
}

private struct DebugLogger: AppLogger {
    let name = "debug"
}

private struct ProductionLogger: AppLogger {
    let name = "production"
}

private struct MockUserService: Sendable {
    func getUser() -> String { "Mock User" }
}

private final class Built34: Sendable {
    static let count = TestAtomic<Int>(0)
    init() { Self.count.add(1, ordering: .sequentiallyConsistent) }
    static var built: Int { count.load(ordering: .sequentiallyConsistent) }
}

private struct AuthUseCase {
    @Injected var auth: AuthInterface

    func run() -> String { auth.authenticate() }
}

private struct AppLoggerKey: InjectedKey {
    static var liveValue: any AppLogger { ProductionLogger() }
}

extension InjectedValues {
    fileprivate var appLogger: any AppLogger {
        get { self[AppLoggerKey.self] }
        set { self[AppLoggerKey.self] = newValue }
    }
}

private struct LoggerUser {
    @Injected(\.appLogger) var logger
}

/// A dependency that is its own key, as `extension SignUpUseCaseImpl: InjectedKey`.
private struct SelfKeyedClient: InjectedKey, Sendable {
    let origin: String
    static var liveValue: SelfKeyedClient { SelfKeyedClient(origin: "live") }
    static var testValue: SelfKeyedClient { SelfKeyedClient(origin: "test") }
}

final class Upstream34BuilderTests: UpstreamTestCase {
    // MARK: WeaveDI.builder, WeaveDI.register, registerForEnvironment

    func testBuilderChainRegistersForResolveAndInjected() {
        WeaveDI.builder
            .register { AuthRepositoryImpl() as AuthInterface }
            .register { SignUpRepositoryImpl() as SignUpInterface }
            .configure()

        let auth = UnifiedDI.resolve(AuthInterface.self)
        XCTAssertEqual(auth?.authenticate(), "Auth Success")
        XCTAssertEqual(UnifiedDI.resolve(SignUpInterface.self)?.signUp(), "SignUp Success")
        // Eager: @Injected reads the very instance the builder registered.
        XCTAssertTrue(AuthUseCase().auth as AnyObject === auth as AnyObject)
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
    }

    func testBuilderWithExplicitTypeAndWithoutConfigureStillRegisters() {
        WeaveDI.builder.register(AuthInterface.self) { MockAuthRepository() }
        XCTAssertEqual(UnifiedDI.resolve(AuthInterface.self)?.authenticate(), "Mock Auth")
    }

    func testRegisteringOneTypeTwiceInAChainWarnsAndTheLaterWins() {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        DILog.logger = Logger(label: "WeaveDI") { _ in handler }
        UnifiedDI.setLogLevel(.warnings)

        WeaveDI.builder
            .register { AuthRepositoryImpl() as AuthInterface }
            .register { MockAuthRepository() as AuthInterface }
            .configure()

        XCTAssertEqual(UnifiedDI.resolve(AuthInterface.self)?.authenticate(), "Mock Auth")
        XCTAssertTrue(
            handler.entries.contains { $0.level == .warning && "\($0.message)".contains("AuthInterface") },
            "\(handler.entries)"
        )
    }

    func testWeaveDIRegisterInfersTheTypeAndReturnsTheInstance() {
        let registered = WeaveDI.register { MockUserService() }
        XCTAssertEqual(registered.getUser(), "Mock User")

        struct TestContainer {
            @Injected var userService: MockUserService
        }
        XCTAssertEqual(TestContainer().userService.getUser(), "Mock User")

        let auth = WeaveDI.register(AuthInterface.self) { AuthRepositoryImpl() }
        XCTAssertTrue(UnifiedDI.resolve(AuthInterface.self) as AnyObject === auth as AnyObject)
    }

    func testRegisterForEnvironmentSeesATestRun() {
        WeaveDI.registerForEnvironment { env in
            XCTAssertTrue(env.isTesting)
            if env.isTesting {
                env.register { MockAuthRepository() as AuthInterface }
            } else {
                env.register { AuthRepositoryImpl() as AuthInterface }
            }
            env.register(AppLogger.self) { env.isDebug ? DebugLogger() as AppLogger : ProductionLogger() }
        }

        XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
        #if DEBUG
        XCTAssertEqual(UnifiedDI.resolve(AppLogger.self)?.name, "debug")
        #else
        XCTAssertEqual(UnifiedDI.resolve(AppLogger.self)?.name, "production")
        #endif
    }

    // MARK: DependencyBuilder, DependencyConfiguration, DependencyEnvironment

    func testDependencyConfigurationRegistersConditionalsAndLoops() {
        let useDebugLogger = Bool("true")!
        let configuration = DependencyConfiguration {
            AuthRepositoryImpl() as AuthInterface
            if useDebugLogger {
                DebugLogger() as AppLogger
            } else {
                ProductionLogger() as AppLogger
            }
            for _ in 0..<1 {
                SignUpRepositoryImpl() as SignUpInterface
            }
        }
        XCTAssertNil(UnifiedDI.resolve(AuthInterface.self), "nothing is registered before configure()")

        configuration.configure()
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
        XCTAssertEqual(UnifiedDI.resolve(AppLogger.self)?.name, "debug")
        XCTAssertEqual(UnifiedDI.resolve(SignUpInterface.self)?.signUp(), "SignUp Success")
        XCTAssertEqual(configuration.wrappedValue.count, 3)
    }

    func testDependencyConfigurationAsAPropertyWrapper() {
        @DependencyConfiguration({
            MockUserService()
            AuthRepositoryImpl() as AuthInterface
        })
        var appDependencies: [any DependencyRegistration]

        XCTAssertEqual(appDependencies.count, 2)
        appDependencies.configure()
        XCTAssertEqual(UnifiedDI.resolve(MockUserService.self)?.getUser(), "Mock User")
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
    }

    func testAStatementWithoutAValueRegistersNothing() {
        var sideEffects = 0
        let registrations = DependencyConfiguration {
            sideEffects += 1
            DebugLogger() as AppLogger
        }.wrappedValue
        XCTAssertEqual(sideEffects, 1)
        XCTAssertEqual(registrations.count, 1)
    }

    func testDependencyEnvironmentBuildsOnceAndRegistersOnConfigure() {
        let before = Built34.built
        let testing = DependencyEnvironment.testing {
            Built34()
            MockAuthRepository() as AuthInterface
        }
        let production = DependencyEnvironment.production {
            AuthRepositoryImpl() as AuthInterface
        }
        XCTAssertEqual(Built34.built, before + 1)
        XCTAssertNil(UnifiedDI.resolve(Built34.self))

        testing.configure()
        XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
        let first = UnifiedDI.resolve(Built34.self)
        XCTAssertNotNil(first)

        production.configure()
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
        testing.configure()
        XCTAssertTrue(UnifiedDI.resolve(Built34.self) === first, "the set is built once")
        XCTAssertEqual(Built34.built, before + 1)
        XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
    }

    func testTypedDependencyWithAFactoryHonoursItsScopeAndScoped() {
        let before = Built34.built
        DependencyEnvironment.development {
            TypedDependency(Built34.self, scope: .transient) { Built34() }
        }.configure()
        XCTAssertEqual(Built34.built, before, "a scoped factory is lazy")
        XCTAssertFalse(UnifiedDI.resolve(Built34.self) === UnifiedDI.resolve(Built34.self))
        XCTAssertEqual(Built34.built, before + 2)

        DependencyEnvironment.development {
            TypedDependency(Built34.self, scope: .transient) { Built34() }.scoped(.singleton)
        }.configure()
        XCTAssertTrue(UnifiedDI.resolve(Built34.self) === UnifiedDI.resolve(Built34.self))
        XCTAssertEqual(Built34.built, before + 3)
    }

    // MARK: InjectedManager and the InjectedValues additions

    func testWithDependenciesOverridesByTypeOnlyInsideTheScope() {
        UnifiedDI.register(AuthInterface.self) { AuthRepositoryImpl() }

        let inside = InjectedManager.withDependencies {
            $0[AuthInterface.self] = MockAuthRepository()
        } operation: {
            (AuthUseCase().run(), InjectedManager.current[AuthInterface.self].authenticate())
        }
        XCTAssertEqual(inside.0, "Mock Auth")
        XCTAssertEqual(inside.1, "Mock Auth")

        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
        XCTAssertEqual(UnifiedDI.resolve(AuthInterface.self)?.authenticate(), "Auth Success", "the live registration is untouched")
    }

    func testSettingByTypeOnACopyChangesNothingUntilSetCurrent() {
        UnifiedDI.register(AuthInterface.self) { AuthRepositoryImpl() }

        var values = InjectedManager.current
        values[AuthInterface.self] = MockAuthRepository()
        XCTAssertEqual(values[AuthInterface.self].authenticate(), "Mock Auth")
        XCTAssertEqual(UnifiedDI.resolve(AuthInterface.self)?.authenticate(), "Auth Success")
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")

        InjectedManager.setCurrent(values)
        XCTAssertEqual(UnifiedDI.resolve(AuthInterface.self)?.authenticate(), "Mock Auth")
        XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
    }

    func testSetAndSetCurrentWithAKey() {
        XCTAssertEqual(LoggerUser().logger.name, "production")

        InjectedManager.withDependencies {
            $0.set(AppLoggerKey.self, to: DebugLogger())
        } operation: {
            XCTAssertEqual(LoggerUser().logger.name, "debug")
            XCTAssertEqual(InjectedManager.current.appLogger.name, "debug")
        }
        XCTAssertEqual(LoggerUser().logger.name, "production")

        var values = InjectedManager.current
        values.set(AppLoggerKey.self, to: DebugLogger())
        InjectedManager.setCurrent(values)
        XCTAssertEqual(LoggerUser().logger.name, "debug")
        XCTAssertEqual(UnifiedDI.resolve((any AppLogger).self)?.name, "debug")
    }

    func testAsyncWithDependenciesIsTaskLocal() async {
        UnifiedDI.register(AuthInterface.self) { AuthRepositoryImpl() }

        async let other: String = Task.detached {
            // Sleeps so that it reads while the scope below is open.
            try? await Task.sleep(for: .milliseconds(50))
            return AuthUseCase().run()
        }.value

        let inside = await InjectedManager.withDependencies {
            $0[AuthInterface.self] = MockAuthRepository()
        } operation: { () async -> [String] in
            try? await Task.sleep(for: .milliseconds(100))
            let child = await Task { AuthUseCase().run() }.value
            return [AuthUseCase().run(), child]
        }
        XCTAssertEqual(inside, ["Mock Auth", "Mock Auth"])
        let seenElsewhere = await other
        XCTAssertEqual(seenElsewhere, "Auth Success")
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
    }

    func testSubscriptByTypeReadsRegistrationsAndOwnKeyDefaults() {
        let registered = UnifiedDI.register(AuthInterface.self) { AuthRepositoryImpl() }
        XCTAssertTrue(InjectedManager.current[AuthInterface.self] as AnyObject === registered as AnyObject)

        XCTAssertEqual(InjectedManager.current[SelfKeyedClient.self].origin, "test")
        UnifiedDI.register(SelfKeyedClient.self) { SelfKeyedClient(origin: "registered") }
        XCTAssertEqual(InjectedManager.current[SelfKeyedClient.self].origin, "registered")
    }

    // MARK: UnifiedDI.bootstrap

    func testBootstrapRegistersIntoTheLiveContainer() {
        UnifiedDI.bootstrap { di in
            di.register(AuthInterface.self) { AuthRepositoryImpl() }
            di.register(SignUpRepositoryImpl())
            let auth: AuthInterface? = di.resolve()
            XCTAssertEqual(auth?.authenticate(), "Auth Success")
            XCTAssertEqual(di.requireResolve(SignUpRepositoryImpl.self).signUp(), "SignUp Success")
        }
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
        XCTAssertEqual(UnifiedDI.resolve(SignUpRepositoryImpl.self)?.signUp(), "SignUp Success")
    }

    func testAsyncBootstrapAddsToEarlierRegistrations() async {
        UnifiedDI.register(SignUpInterface.self) { SignUpRepositoryImpl() }
        await UnifiedDI.bootstrap { di in
            await Task.yield()
            di.register(AuthInterface.self, instance: MockAuthRepository())
            let logger = di.register { DebugLogger() as AppLogger }
            XCTAssertEqual(logger.name, "debug")
        }
        XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
        XCTAssertNotNil(UnifiedDI.resolve(SignUpInterface.self), "bootstrap discards nothing")
        XCTAssertEqual(UnifiedDI.resolve(AppLogger.self)?.name, "debug")
    }

    func testAppDIManagerBootstrap() async {
        await AppDIManager.shared.bootstrap { di in
            di.register(AuthInterface.self) { AuthRepositoryImpl() }
        }
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")
    }

    func testBootstrapInsideAnOverlayStaysInTheOverlay() {
        withContainerOverlay {
            UnifiedDI.bootstrap { di in
                di.register(AuthInterface.self) { MockAuthRepository() }
            }
            XCTAssertEqual(AuthUseCase().run(), "Mock Auth")
        }
        XCTAssertNil(UnifiedDI.resolve(AuthInterface.self))
    }

    // MARK: childContainerCount

    func testChildContainerCountCountsLiveChildrenWithRegistrations() {
        XCTAssertEqual(UnifiedDI.childContainerCount(), 0)
        var child: WeaveDI.Container? = WeaveDI.Container.live.createChild()
        child?.register(AppLogger.self, instance: DebugLogger())
        let grandchild = child?.createChild()
        grandchild?.register(AppLogger.self, instance: DebugLogger())
        let unrelated = WeaveDI.Container()
        unrelated.register(AppLogger.self, instance: DebugLogger())
        XCTAssertEqual(UnifiedDI.childContainerCount(), 1)

        child = nil
        withExtendedLifetime(grandchild) {
            XCTAssertEqual(UnifiedDI.childContainerCount(), 1, "the grandchild keeps its parent alive")
        }
        withExtendedLifetime(unrelated) {}
    }

    func testChildContainerCountDropsReleasedChildren() {
        do {
            let child = WeaveDI.Container(parent: .live)
            child.register(AppLogger.self, instance: DebugLogger())
            XCTAssertEqual(UnifiedDI.childContainerCount(), 1)
        }
        XCTAssertEqual(UnifiedDI.childContainerCount(), 0)
    }

    // MARK: ProvideScope, ComponentProtocol

    func testProvideScopeRawValues() {
        XCTAssertEqual(ProvideScope.transient.rawValue, "transient")
        XCTAssertEqual(ProvideScope.singleton.rawValue, "singleton")
        XCTAssertEqual(ProvideScope(rawValue: "weak"), .weak)
        XCTAssertEqual(ProvideScope(rawValue: "task"), .task)
        XCTAssertNil(ProvideScope(rawValue: "session"))
        XCTAssertEqual(ProvideScope.allCases.map(\.rawValue), ["transient", "singleton", "weak", "task", "graph"])
    }

    private struct AuthComponent: ComponentProtocol {
        static func registerAll(into container: WeaveDI.Container) {
            container.register(AuthInterface.self, scope: .singleton) { AuthRepositoryImpl() }
        }
    }

    private func install<C: ComponentProtocol>(_ component: C.Type) {
        component.registerAll()
    }

    func testComponentProtocolRegistersIntoTheLiveContainerByDefault() {
        install(AuthComponent.self)
        XCTAssertEqual(AuthUseCase().run(), "Auth Success")

        let container = WeaveDI.Container()
        AuthComponent.registerAll(into: container)
        XCTAssertNotNil(container.resolve(AuthInterface.self))
        _ = AuthComponent()
    }

    // MARK: WeaveDIConfiguration, OptimizationHooks

    func testMonitorToggleCallsTheHandlerAndTheHookOnChangesOnly() {
        let handlerCalls = TestMutex<[Bool]>([])
        let hookCalls = TestMutex<[Bool]>([])
        WeaveDIConfiguration.setMonitorToggleHandler { flag in handlerCalls.withLock { $0.append(flag) } }
        OptimizationHooks.setAutoMonitorEnabled = { flag in hookCalls.withLock { $0.append(flag) } }
        defer {
            WeaveDIConfiguration.enableAutoMonitor = false
            WeaveDIConfiguration.setMonitorToggleHandler(nil)
            OptimizationHooks.setAutoMonitorEnabled = nil
        }

        WeaveDIConfiguration.enableAutoMonitor = false
        WeaveDIConfiguration.enableAutoMonitor = true
        WeaveDIConfiguration.enableAutoMonitor = true
        WeaveDIConfiguration.enableAutoMonitor = false
        XCTAssertFalse(WeaveDIConfiguration.enableAutoMonitor)
        XCTAssertEqual(handlerCalls.withLock { $0 }, [true, false])
        XCTAssertEqual(hookCalls.withLock { $0 }, [true, false])
    }

    func testOptimizationHooksKeepWhatIsInstalled() {
        let levels = TestMutex<[OptimizerLogLevel]>([])
        OptimizationHooks.setOptimizerLogLevel = { level in levels.withLock { $0.append(level) } }
        defer { OptimizationHooks.setOptimizerLogLevel = nil }
        OptimizationHooks.setOptimizerLogLevel?(.errors)
        OptimizationHooks.setOptimizerLogLevel?(OptimizerLogLevel(rawValue: "off")!)
        XCTAssertEqual(levels.withLock { $0 }, [.errors, .off])
        XCTAssertNil(OptimizationHooks.trackRegistration)
    }

    func testDefaultInjectedEnvironmentSetsTheContext() {
        defer { WeaveDIConfiguration.defaultInjectedEnvironment = .automatic }
        XCTAssertEqual(LoggerUser().logger.name, "production")

        WeaveDIConfiguration.defaultInjectedEnvironment = .preview
        XCTAssertEqual(InjectedValues.context, .preview)
        XCTAssertEqual(InjectedManager.current[SelfKeyedClient.self].origin, "live", "previews use the live default")

        WeaveDIConfiguration.defaultInjectedEnvironment = .automatic
        XCTAssertEqual(InjectedValues.context, .test)
        XCTAssertEqual(InjectedManager.current[SelfKeyedClient.self].origin, "test")
    }

    @available(*, deprecated, message: "exercises upstream names kept as deprecated no-ops")
    func testApplyFromEnvironmentReadsTheNamedVariables() {
        setenv("UPSTREAM34_VERBOSE", " Yes ", 1)
        setenv("UPSTREAM34_FIX", "off", 1)
        setenv("UPSTREAM34_OPTIMIZER", "maybe", 1)
        defer {
            for name in ["UPSTREAM34_VERBOSE", "UPSTREAM34_FIX", "UPSTREAM34_OPTIMIZER"] { unsetenv(name) }
            WeaveDIConfiguration.enableVerboseLogging = false
            WeaveDIConfiguration.enableRegistryAutoFix = true
        }

        WeaveDIConfiguration.applyFromEnvironment(
            optimizerKey: "UPSTREAM34_OPTIMIZER",
            verboseKey: "UPSTREAM34_VERBOSE",
            registryFixKey: "UPSTREAM34_FIX"
        )
        XCTAssertTrue(WeaveDIConfiguration.enableVerboseLogging)
        XCTAssertFalse(WeaveDIConfiguration.enableRegistryAutoFix)
        XCTAssertTrue(WeaveDIConfiguration.enableOptimizerTracking, "an unreadable value leaves the switch")
    }

    #if SwiftDependencies
    private struct DependencyKeyedClient: DependencyKey, Sendable {
        let origin: String
        static let liveValue = DependencyKeyedClient(origin: "live")
        static let testValue = DependencyKeyedClient(origin: "test")
    }

    func testSubscriptByTypeFallsBackToASwiftDependenciesKeyOfItsOwnType() {
        XCTAssertEqual(InjectedManager.current[DependencyKeyedClient.self].origin, "test")
        let overridden = withDependencies {
            $0[DependencyKeyedClient.self] = DependencyKeyedClient(origin: "override")
        } operation: {
            InjectedManager.current[DependencyKeyedClient.self].origin
        }
        XCTAssertEqual(overridden, "override")
    }
    #endif
}
