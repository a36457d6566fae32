#if SwiftDependencies
import Dependencies
import WeaveDI
import XCTest

// Upstream's TCA sync family (3.3.4, 3.4.0), called the way its tests and
// apps call it: values cross between WeaveDI and swift-dependencies both
// ways, overrides stay in their scope on both sides, and no read loops.

private protocol SyncedService: Sendable {
    var name: String { get }
}

private final class NamedService: SyncedService {
    let name: String
    init(_ name: String) { self.name = name }
}

private struct SyncedServiceKey: DependencyKey {
    static let liveValue: any SyncedService = NamedService("dependency-live")
    static let testValue: any SyncedService = NamedService("dependency-test")
}

private struct SyncedInjectedKey: InjectedKey {
    static let liveValue: any SyncedService = NamedService("injected-live")
    static let testValue: any SyncedService = NamedService("injected-test")
}

// Another WeaveDI key of the same value type, never synced itself.
private struct PlainInjectedKey: InjectedKey {
    static let liveValue: any SyncedService = NamedService("plain-live")
    static let testValue: any SyncedService = NamedService("plain-test")
}

extension DependencyValues {
    fileprivate var syncedService: any SyncedService {
        get { self[autoSync: SyncedServiceKey.self] }
        set { self[autoSync: SyncedServiceKey.self] = newValue }
    }

    fileprivate var plainService: any SyncedService {
        get { self[SyncedServiceKey.self] }
        set { self[SyncedServiceKey.self] = newValue }
    }
}

extension InjectedValues {
    fileprivate var syncedInjected: any SyncedService {
        get { self[autoSync: SyncedInjectedKey.self] }
        set { self[autoSync: SyncedInjectedKey.self] = newValue }
    }

    fileprivate var plainInjected: any SyncedService {
        get { self[PlainInjectedKey.self] }
        set { self[PlainInjectedKey.self] = newValue }
    }
}

private final class InjectedConsumer {
    @Injected(\.plainInjected) var service
}

// `@Injected(SomeDependencyKey.self)`: reads the key, and once sync is in
// use a WeaveDI registration of its value type.
private final class DependencyKeyConsumer {
    @Injected(SyncedServiceKey.self) var service
}

private func keyConsumerName() -> String {
    DependencyKeyConsumer().service.name
}

private func dependencyName() -> String {
    @Dependency(\.syncedService) var service
    return service.name
}

private func resolvedName() -> String? {
    UnifiedDI.resolve((any SyncedService).self)?.name
}

// A key whose default reads WeaveDI, as upstream's guides write them.
private struct ResolvingKey: DependencyKey {
    static var liveValue: any SyncedService {
        UnifiedDI.resolve((any SyncedService).self) ?? NamedService("resolving-fallback")
    }
    static var testValue: any SyncedService { liveValue }
}

extension DependencyValues {
    fileprivate var resolvingService: any SyncedService {
        get { self[autoSync: ResolvingKey.self] }
        set { self[autoSync: ResolvingKey.self] = newValue }
    }
}

final class TCASyncTests: UpstreamTestCase {
    // MARK: WeaveDI to swift-dependencies

    func testRegistrationWithAutoSyncIsReadByDependency() {
        let registered = UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        XCTAssertEqual(registered.name, "weavedi")
        XCTAssertEqual(dependencyName(), "weavedi")
        XCTAssertEqual(resolvedName(), "weavedi")
        XCTAssertEqual(InjectedConsumer().service.name, "weavedi")
    }

    func testPlainRegistrationIsReadBySyncedDependency() {
        UnifiedDI.register((any SyncedService).self) { NamedService("plain-registration") }
        XCTAssertEqual(dependencyName(), "plain-registration")
        // Bridging keeps the registration: WeaveDI still reads it.
        XCTAssertEqual(resolvedName(), "plain-registration")
    }

    func testUnsyncedDependencyPropertyIsUnchanged() {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        @Dependency(\.plainService) var plain
        XCTAssertEqual(plain.name, "dependency-test")
    }

    func testWithoutRegistrationTheKeysOwnValueIsRead() {
        XCTAssertEqual(dependencyName(), "dependency-test")
        // The read bridged the type: WeaveDI reads the key through it.
        XCTAssertEqual(resolvedName(), "dependency-test")
    }

    // MARK: swift-dependencies to WeaveDI, scoped

    func testDependenciesOverrideIsReadByInjectedAndUnifiedDIInItsScopeOnly() {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        withDependencies {
            $0.syncedService = NamedService("override")
        } operation: {
            XCTAssertEqual(dependencyName(), "override")
            XCTAssertEqual(resolvedName(), "override")
            XCTAssertEqual(InjectedConsumer().service.name, "override")
            XCTAssertEqual(InjectedValues.current[autoSync: SyncedInjectedKey.self].name, "override")
            XCTAssertEqual(UnifiedDI.resolveWithAutoFallback((any SyncedService).self)?.name, "override")
        }
        XCTAssertEqual(dependencyName(), "weavedi")
        XCTAssertEqual(resolvedName(), "weavedi")
        XCTAssertEqual(InjectedConsumer().service.name, "weavedi")
    }

    func testDependenciesOverrideDoesNotReachOtherTasks() async {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        await withDependencies {
            $0.syncedService = NamedService("override")
        } operation: {
            let inChild = await Task { resolvedName() }.value
            let elsewhere = await Task.detached { resolvedName() }.value
            async let structured = resolvedName()
            let inStructured = await structured
            XCTAssertEqual(inChild, "override")
            XCTAssertEqual(inStructured, "override")
            XCTAssertEqual(elsewhere, "weavedi")
            XCTAssertEqual(resolvedName(), "override")
        }
        XCTAssertEqual(resolvedName(), "weavedi")
    }

    func testConcurrentScopesEachSeeTheirOwnOverride() async {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        let names = await withTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<8 {
                group.addTask {
                    withDependencies {
                        $0.syncedService = NamedService("task-\(index)")
                    } operation: {
                        (index, resolvedName())
                    }
                }
            }
            var names: [Int: String?] = [:]
            for await (index, name) in group { names[index] = name }
            return names
        }
        for index in 0..<8 {
            XCTAssertEqual(names[index] ?? nil, "task-\(index)")
        }
        XCTAssertEqual(resolvedName(), "weavedi")
    }

    func testKeyOverrideMadeWithoutSyncIsReadThroughAfterSyncSingle() async {
        await MainActor.run { TCASmartSync.syncSingle(SyncedServiceKey.self) }
        XCTAssertEqual(resolvedName(), "dependency-test")
        withDependencies {
            $0.plainService = NamedService("plain-override")
        } operation: {
            XCTAssertEqual(resolvedName(), "plain-override")
        }
        XCTAssertEqual(resolvedName(), "dependency-test")
    }

    func testRegistrationAfterSyncStaysBehindTheBridge() {
        _ = dependencyName()
        UnifiedDI.register((any SyncedService).self) { NamedService("registered-later") }
        XCTAssertEqual(resolvedName(), "registered-later")
        withDependencies {
            $0.syncedService = NamedService("override")
        } operation: {
            XCTAssertEqual(resolvedName(), "override")
        }
        XCTAssertEqual(resolvedName(), "registered-later")
        XCTAssertEqual(dependencyName(), "registered-later")
    }

    // MARK: Reading a DependencyKey through WeaveDI once sync is in use

    func testInjectedDependencyKeyWithoutSyncReadsTheKeyOnly() async {
        await MainActor.run { TCASmartSync.resetForTesting() }
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        // An app that never turns sync on: a registration of the value type
        // does not change what the key reads, as with @Dependency.
        XCTAssertEqual(keyConsumerName(), "dependency-test")
        @Dependency(SyncedServiceKey.self) var plain
        XCTAssertEqual(plain.name, "dependency-test")
    }

    @MainActor
    func testInjectedDependencyKeyReadsPlainRegistrationOnceSyncIsEnabled() async {
        enableBidirectionalTCASync()
        defer { TCASmartSync.resetForTesting() }
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        XCTAssertEqual(keyConsumerName(), "registered")

        // A plain withDependencies override of the key still wins, in its
        // scope and its child tasks only.
        await withDependencies {
            $0.plainService = NamedService("plain-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "plain-override")
            let inChild = await Task { keyConsumerName() }.value
            let elsewhere = await Task.detached { keyConsumerName() }.value
            XCTAssertEqual(inChild, "plain-override")
            XCTAssertEqual(elsewhere, "registered")
        }
        XCTAssertEqual(keyConsumerName(), "registered")

        // So does a synced one.
        withDependencies {
            $0.syncedService = NamedService("synced-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "synced-override")
        }
        XCTAssertEqual(keyConsumerName(), "registered")

        // And a withInjectedValues override of the value type.
        withInjectedValues {
            $0.plainInjected = NamedService("injected-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "injected-override")
        }
        XCTAssertEqual(keyConsumerName(), "registered")
    }

    @MainActor
    func testTurningSyncOffRestoresThePlainKeyRead() {
        enableBidirectionalTCASync()
        defer { TCASmartSync.resetForTesting() }
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        XCTAssertEqual(keyConsumerName(), "registered")
        // Nothing bridged the type, so with sync off the key reads as
        // @Dependency does.
        TCASmartSync.resetForTesting()
        XCTAssertEqual(keyConsumerName(), "dependency-test")
    }

    @MainActor
    func testInjectedDependencyKeyWithSyncEnabledAndNoRegistrationReadsTheKey() {
        enableBidirectionalTCASync()
        defer { TCASmartSync.resetForTesting() }
        XCTAssertEqual(keyConsumerName(), "dependency-test")
        withDependencies {
            $0.plainService = NamedService("plain-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "plain-override")
        }
    }

    func testSyncRegistrationIsReadByInjectedDependencyKeyWithoutEnabling() {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        XCTAssertEqual(keyConsumerName(), "weavedi")
        withDependencies {
            $0.plainService = NamedService("plain-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "plain-override")
            XCTAssertEqual(dependencyName(), "plain-override")
        }
        withDependencies {
            $0.syncedService = NamedService("synced-override")
        } operation: {
            XCTAssertEqual(keyConsumerName(), "synced-override")
        }
        XCTAssertEqual(keyConsumerName(), "weavedi")
        XCTAssertEqual(dependencyName(), "weavedi")
    }

    func testPlainKeyOverrideWinsOverRegistrationInSyncedReads() {
        // The synced getter bridges the type from the key, so WeaveDI reads
        // of the type see the key's own overrides too.
        XCTAssertEqual(dependencyName(), "dependency-test")
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        XCTAssertEqual(dependencyName(), "registered")
        withDependencies {
            $0.plainService = NamedService("plain-override")
        } operation: {
            XCTAssertEqual(dependencyName(), "plain-override")
            XCTAssertEqual(resolvedName(), "plain-override")
            XCTAssertEqual(keyConsumerName(), "plain-override")
            XCTAssertEqual(InjectedConsumer().service.name, "plain-override")
        }
        XCTAssertEqual(dependencyName(), "registered")
        XCTAssertEqual(resolvedName(), "registered")
        XCTAssertEqual(keyConsumerName(), "registered")
    }

    // MARK: withInjectedValues to swift-dependencies, scoped

    func testInjectedValuesOverrideIsReadByDependencyInItsScopeOnly() async {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        await withInjectedValues {
            $0.syncedInjected = NamedService("injected-override")
        } operation: {
            XCTAssertEqual(dependencyName(), "injected-override")
            XCTAssertEqual(resolvedName(), "injected-override")
            XCTAssertEqual(InjectedConsumer().service.name, "injected-override")
            let elsewhere = await Task.detached { dependencyName() }.value
            XCTAssertEqual(elsewhere, "weavedi")
        }
        XCTAssertEqual(dependencyName(), "weavedi")
        XCTAssertEqual(resolvedName(), "weavedi")
    }

    func testSetAutoSyncValueOverridesInItsScope() {
        withInjectedValues {
            $0.setAutoSyncValue(for: SyncedInjectedKey.self, value: NamedService("set-injected"))
        } operation: {
            XCTAssertEqual(InjectedValues.current.autoSyncValue(for: SyncedInjectedKey.self).name, "set-injected")
            XCTAssertEqual(dependencyName(), "set-injected")
        }
        withDependencies {
            $0.setAutoSyncValue(for: SyncedServiceKey.self, value: NamedService("set-dependency"))
        } operation: {
            XCTAssertEqual(DependencyValues._current.autoSyncValue(for: SyncedServiceKey.self).name, "set-dependency")
            XCTAssertEqual(resolvedName(), "set-dependency")
        }
        XCTAssertNotEqual(resolvedName(), "set-dependency")
    }

    // MARK: Reading by key bridges the type

    func testAutoSyncReadOfAnInjectedKeyMakesItResolvable() {
        XCTAssertNil(UnifiedDI.resolve((any SyncedService).self))
        XCTAssertEqual(InjectedValues.current[autoSync: SyncedInjectedKey.self].name, "injected-test")
        XCTAssertEqual(resolvedName(), "injected-test")
        XCTAssertEqual(InjectedValues.current.syncedInjected.name, "injected-test")
    }

    func testRegisterInjectedKeyWithTCAAndGetWithAutoResolve() {
        InjectedValues.current.registerInjectedKeyWithTCA(SyncedInjectedKey.self)
        XCTAssertEqual(resolvedName(), "injected-test")
        XCTAssertEqual(InjectedValues.current.getWithAutoResolve(SyncedInjectedKey.self).name, "injected-test")
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        XCTAssertEqual(InjectedValues.current.getWithAutoResolve(SyncedInjectedKey.self).name, "registered")
    }

    // MARK: Registrations

    func testRegistrationVariants() async {
        UnifiedDI.registerWithTCASync((any SyncedService).self) { NamedService("tca-sync") }
        XCTAssertEqual(dependencyName(), "tca-sync")

        let asyncRegistered = await UnifiedDI.registerAsyncWithAutoSync((any SyncedService).self) {
            NamedService("async")
        }
        XCTAssertEqual(asyncRegistered.name, "async")
        XCTAssertEqual(dependencyName(), "async")

        InjectedValues.current.setWithTCASync(SyncedInjectedKey.self, value: NamedService("set-with-tca"))
        XCTAssertEqual(dependencyName(), "set-with-tca")
        XCTAssertEqual(resolvedName(), "set-with-tca")

        InjectedValues.autoRegister((any SyncedService).self, value: NamedService("auto-register"))
        XCTAssertEqual(DependencyValues.autoResolve((any SyncedService).self)?.name, "auto-register")
        XCTAssertEqual(InjectedValues.autoResolve((any SyncedService).self)?.name, "auto-register")
    }

    func testKeyPathRegistrationWithTCASync() {
        UnifiedDI.registerKeyPathWithTCASync(\.syncedService) { NamedService("key-path") }
        XCTAssertEqual(dependencyName(), "key-path")
        XCTAssertEqual(UnifiedDI.resolve(\.syncedService)?.name, "key-path")
    }

    func testHandWrittenSyncRegistersTheValue() {
        let service = NamedService("hand-written")
        TCAAutoSyncContainer.autoSyncToWeaveDI((any SyncedService).self, value: service)
        XCTAssertTrue(UnifiedDI.resolve((any SyncedService).self) as AnyObject === service)
        // Written again with the same object from a getter: nothing changes.
        TCAAutoSyncContainer.autoSyncToWeaveDI((any SyncedService).self, value: service)
        XCTAssertTrue(UnifiedDI.resolve((any SyncedService).self) as AnyObject === service)
        // A synced override still wins in its scope.
        withDependencies {
            $0.syncedService = NamedService("override")
        } operation: {
            XCTAssertEqual(resolvedName(), "override")
        }
        XCTAssertEqual(resolvedName(), "hand-written")
    }

    // MARK: No loops

    func testKeyWhoseDefaultResolvesFromWeaveDIDoesNotLoop() {
        @Dependency(\.resolvingService) var service
        XCTAssertEqual(service.name, "resolving-fallback")
        XCTAssertEqual(resolvedName(), "resolving-fallback")
    }

    func testRegistrationThatReadsTheSyncedDependencyIsACycleNotALoop() {
        // The registration of the synced type reads that type back through
        // swift-dependencies: WeaveDI reports the cycle, the swift-dependencies
        // side falls back on the key's own value, and neither recurses.
        UnifiedDI.register((any SyncedService).self, scope: .transient) {
            @Dependency(\.syncedService) var inner
            return NamedService("wrapping-\(inner.name)")
        }
        XCTAssertEqual(dependencyName(), "dependency-test")
        XCTAssertNil(resolvedName())
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing((any SyncedService).self)) { error in
            guard case DIError.circularDependency = error else {
                return XCTFail("expected a cycle, got \(error)")
            }
        }
    }

    // MARK: Switchboard and keys

    @MainActor
    @available(*, deprecated, message: "exercises upstream names kept as deprecated no-ops")
    func testEnableAndPolicy() {
        TCASmartSync.resetForTesting()
        XCTAssertFalse(TCASmartSync.isEnabled)
        enableBidirectionalTCASync()
        XCTAssertTrue(TCASmartSync.isEnabled)
        TCASmartSync.configure(policy: .livePriority)
        XCTAssertEqual(TCASmartSync.getCurrentPolicy(), .livePriority)
        TCASmartSync.resetForTesting()
        XCTAssertEqual(TCAAutoSync.currentPolicy, .testPriority)
    }

    func testAutoDetectAndSyncBridgesWithoutCopying() {
        TCASmartSync.autoDetectAndSync(SyncedServiceKey.self, value: NamedService("ignored-copy"))
        XCTAssertEqual(resolvedName(), "dependency-test")
        withDependencies {
            $0.syncedService = NamedService("override")
        } operation: {
            XCTAssertEqual(TCASmartSync.retrieveTCACompatibleValue((any SyncedService).self)?.name, "override")
        }
    }

    func testBridgedKeyReadsRegistrationThenKeyDefault() {
        XCTAssertEqual(InjectedValues.current[SyncedServiceKey.weaveDIKey].name, "dependency-test")
        UnifiedDI.register((any SyncedService).self) { NamedService("registered") }
        XCTAssertEqual(InjectedValues.current[TCABridgedKey<SyncedServiceKey>.self].name, "registered")
    }
}

extension WeaveDI.Container {
    fileprivate var syncedService: (any SyncedService)? { resolve((any SyncedService).self) }
}

// The TCA sync bridge inside `withContainerOverlay` (issue 50, items 1 and
// 2): a registration made in an overlay is what every read in it gives, and
// a bridge installed in an overlay never makes the root's unrecognisable.
final class TCASyncOverlayTests: UpstreamTestCase {
    func testRegistrationWithAutoSyncInsideAnOverlayIsResolvedThere() {
        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("root") }
        withContainerOverlay {
            UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("overlay-mock") }
            XCTAssertEqual(resolvedName(), "overlay-mock")
            XCTAssertEqual(dependencyName(), "overlay-mock")
        }
        XCTAssertEqual(resolvedName(), "root")
        XCTAssertEqual(dependencyName(), "root")
    }

    func testFirstSyncRegistrationInsideAnOverlayStaysThere() {
        withContainerOverlay {
            UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("overlay-only") }
            XCTAssertEqual(resolvedName(), "overlay-only")
            XCTAssertEqual(dependencyName(), "overlay-only")
        }
        XCTAssertNotEqual(resolvedName(), "overlay-only")
        XCTAssertNotEqual(dependencyName(), "overlay-only")
    }

    func testTheRootBridgeIsStillRecognisedAfterAnOverlayInstallsItsOwn() {
        UnifiedDI.register((any SyncedService).self) { NamedService("app") }
        withContainerOverlay { overlay in
            overlay.register((any SyncedService).self) { NamedService("overlay-plain") }
        } operation: {
            // Installs the overlay's own bridge over its plain registration.
            XCTAssertEqual(dependencyName(), "overlay-plain")
        }
        // Installs the root's bridge over the app's registration.
        XCTAssertEqual(dependencyName(), "app")
        withContainerOverlay { overlay in
            overlay.register((any SyncedService).self) { NamedService("second-overlay") }
        } operation: {
            XCTAssertEqual(dependencyName(), "second-overlay")
        }
        // A second install at the root must see its bridge as one, not move
        // it behind a new bridge (which then reads itself: a cycle, nil).
        XCTAssertEqual(dependencyName(), "app")
        XCTAssertEqual(resolvedName(), "app")
    }

    func testParallelOverlaysEachReadTheirOwnSyncRegistration() async {
        UnifiedDI.register((any SyncedService).self) { NamedService("app") }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    await withContainerOverlay {
                        for round in 0..<20 {
                            let name = "overlay-\(index)-\(round)"
                            UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService(name) }
                            XCTAssertEqual(resolvedName(), name)
                            XCTAssertEqual(dependencyName(), name)
                            await Task.yield()
                        }
                    }
                }
            }
        }
        XCTAssertEqual(dependencyName(), "app")
        XCTAssertEqual(resolvedName(), "app")
    }

    func testASyncedReadRegistersNothingSoBootstrapIfNeededStillRuns() async {
        XCTAssertEqual(dependencyName(), "dependency-test", "the key's own value: nothing is registered")
        XCTAssertFalse(WeaveDI.Container.isBootstrapped, "a read installs a bridge, not a registration")
        let ran = await WeaveDI.Container.bootstrapIfNeeded { container in
            container.register((any SyncedService).self) { NamedService("bootstrapped") }
        }
        XCTAssertTrue(ran)
        XCTAssertTrue(WeaveDI.Container.isBootstrapped)
        XCTAssertEqual(dependencyName(), "bootstrapped")
        XCTAssertEqual(resolvedName(), "bootstrapped")
    }
}

#if Macros
// The macros, attached as upstream's tests and guides attach them.

private struct MacroServiceKey: DependencyKey {
    static let liveValue: any SyncedService = NamedService("macro-live")
    static let testValue: any SyncedService = NamedService("macro-test")
}

// Internal, as the property @GenerateAutoSync adds is.
struct TCASyncGeneratedValue: Sendable, Equatable {
    let name: String
}

struct SyncGeneratedValueKey: DependencyKey {
    static let liveValue = TCASyncGeneratedValue(name: "generated-live")
    static let testValue = TCASyncGeneratedValue(name: "generated-test")
}

@AutoSyncExtension
extension DependencyValues {
    fileprivate var macroService: any SyncedService {
        get { self[MacroServiceKey.self] }
        set { self[MacroServiceKey.self] = newValue }
    }
}

@AutoSyncExtension
extension InjectedValues {
    fileprivate var macroInjected: any SyncedService {
        get { self[SyncedInjectedKey.self] }
        set { self[SyncedInjectedKey.self] = newValue }
    }
}

@GenerateAutoSync(key: SyncGeneratedValueKey.self, type: TCASyncGeneratedValue.self)
extension DependencyValues {}

final class TCASyncMacroTests: UpstreamTestCase {
    func testAutoSyncExtensionTwinsSyncBothWays() {
        @Dependency(\.macroServiceSync) var initial
        XCTAssertEqual(initial.name, "macro-test")
        XCTAssertEqual(resolvedName(), "macro-test")

        UnifiedDI.registerWithAutoSync((any SyncedService).self) { NamedService("weavedi") }
        @Dependency(\.macroServiceSync) var registered
        @Dependency(\.macroService) var original
        XCTAssertEqual(registered.name, "weavedi")
        XCTAssertEqual(original.name, "macro-test")

        withDependencies {
            $0.macroServiceSync = NamedService("dependency-override")
        } operation: {
            XCTAssertEqual(resolvedName(), "dependency-override")
            XCTAssertEqual(InjectedValues.current.macroInjectedSync.name, "dependency-override")
            XCTAssertEqual(InjectedConsumer().service.name, "dependency-override")
        }
        XCTAssertEqual(resolvedName(), "weavedi")

        withInjectedValues {
            $0.macroInjectedSync = NamedService("injected-override")
        } operation: {
            @Dependency(\.macroServiceSync) var service
            XCTAssertEqual(service.name, "injected-override")
            XCTAssertEqual(resolvedName(), "injected-override")
        }
        @Dependency(\.macroServiceSync) var after
        XCTAssertEqual(after.name, "weavedi")
    }

    func testGenerateAutoSyncProperty() {
        @Dependency(\.syncGeneratedValue) var service
        XCTAssertEqual(service.name, "generated-test")
        withDependencies {
            $0.syncGeneratedValue = TCASyncGeneratedValue(name: "generated-override")
        } operation: {
            XCTAssertEqual(UnifiedDI.resolve(TCASyncGeneratedValue.self)?.name, "generated-override")
        }
        XCTAssertEqual(UnifiedDI.resolve(TCASyncGeneratedValue.self)?.name, "generated-test")
        UnifiedDI.registerWithAutoSync(TCASyncGeneratedValue.self) { TCASyncGeneratedValue(name: "registered") }
        @Dependency(\.syncGeneratedValue) var registered
        XCTAssertEqual(registered.name, "registered")
    }
}
#endif
#endif
