import Synchronization
import Testing
import WeaveDI
import WeaveDITesting

private protocol IsolationService: Sendable {
    var owner: Int { get }
}

private final class IsolationMock: IsolationService {
    let owner: Int
    init(owner: Int) { self.owner = owner }
}

private struct IsolationServiceKey: InjectedKey {
    static let liveValue: any IsolationService = IsolationMock(owner: -1)
}

extension InjectedValues {
    fileprivate var isolationService: any IsolationService {
        get { self[IsolationServiceKey.self] }
        set { self[IsolationServiceKey.self] = newValue }
    }
}

/// Every way a test reads a dependency. `@unchecked`: wrapper storage is a `var`.
private final class IsolationHolder: @unchecked Sendable {
    @Injected(\.isolationService) var viaKeyPath
    @Injected var viaType: any IsolationService
    @Injected var optional: (any IsolationService)?
    @Factory var fresh: IsolationMock
}

/// The deprecated `@Inject`, read through a protocol witness so the target
/// builds without deprecation warnings.
private protocol LegacyIsolationReading {
    func owner() -> Int?
}

private struct LegacyIsolationReader: LegacyIsolationReading {
    final class Holder: @unchecked Sendable {
        @available(*, deprecated) @Inject var service: (any IsolationService)?
    }

    @available(*, deprecated)
    func owner() -> Int? { Holder().service?.owner }
}

/// Two hundred tests run in parallel, each registering its own mock of the
/// same type in the shared-container style of the migration guide
/// (`releaseAll()` in the suite's set-up, `register` in the test). With the
/// trait removed they fail: they share one live container, so each sees
/// whichever test registered last.
@Suite(.isolatedContainer)
struct ParallelIsolationTests {
    init() {
        UnifiedDI.releaseAll()
    }

    @Test(arguments: 0..<200)
    func eachTestSeesOnlyItsOwnMock(owner: Int) async throws {
        UnifiedDI.register((any IsolationService).self) { IsolationMock(owner: owner) }
        UnifiedDI.register(IsolationMock.self, scope: .transient) { IsolationMock(owner: owner) }
        let legacy: any LegacyIsolationReading = LegacyIsolationReader()
        for _ in 0..<4 {
            // Let the other tests register in between.
            try await Task.sleep(for: .microseconds(300))
            let holder = IsolationHolder()
            #expect(UnifiedDI.resolve((any IsolationService).self)?.owner == owner)
            #expect(WeaveDI.Container.live.resolve((any IsolationService).self)?.owner == owner)
            #expect(holder.viaKeyPath.owner == owner)
            #expect(holder.viaType.owner == owner)
            #expect(holder.optional?.owner == owner)
            #expect(holder.fresh.owner == owner)
            #expect(legacy.owner() == owner)
            async let fromChild = UnifiedDI.resolve((any IsolationService).self)?.owner
            #expect(await fromChild == owner)
        }
        UnifiedDI.releaseAll()
        #expect(UnifiedDI.resolve((any IsolationService).self) == nil)
    }
}

private protocol SuiteSetUpService: Sendable { var name: String { get } }
private struct NamedSuiteSetUpService: SuiteSetUpService { let name: String }

/// The guide's `setUp { releaseAll(); register(mock) }` as a suite `init`:
/// with the trait it lands in the test's overlay, not the live container.
@Suite(.isolatedContainer)
struct SuiteSetUpRunsInsideTheOverlayTests {
    init() {
        UnifiedDI.releaseAll()
        UnifiedDI.register((any SuiteSetUpService).self) { NamedSuiteSetUpService(name: "mock") }
    }

    @Test func theTestSeesTheSetUpRegistrationAndTheLiveContainerDoesNot() async {
        #expect(UnifiedDI.resolve((any SuiteSetUpService).self)?.name == "mock")
        let seenOutside = await Task.detached { UnifiedDI.resolve((any SuiteSetUpService).self) }.value
        #expect(seenOutside == nil)
    }
}

private protocol ListedService: Sendable { var name: String { get } }
private struct NamedListedService: ListedService { let name: String }

@Test(.isolatedContainer { $0.register((any ListedService).self) { NamedListedService(name: "listed") } })
func theTraitRegistersWhatItLists() {
    #expect(UnifiedDI.resolve((any ListedService).self)?.name == "listed")
}

private protocol OverriddenService: Sendable { var name: String { get } }
private struct NamedOverriddenService: OverriddenService { let name: String }

private struct OverriddenServiceKey: InjectedKey {
    static let liveValue: any OverriddenService = NamedOverriddenService(name: "default")
}

extension InjectedValues {
    fileprivate var overriddenService: any OverriddenService {
        get { self[OverriddenServiceKey.self] }
        set { self[OverriddenServiceKey.self] = newValue }
    }
}

private struct OverriddenHolder: @unchecked Sendable {
    @Injected(\.overriddenService) var service
}

@Suite(.injectedValues { $0.overriddenService = NamedOverriddenService(name: "suite override") })
struct InjectedValuesTraitTests {
    @Test func everyTestOfTheSuiteSeesTheOverride() {
        #expect(OverriddenHolder().service.name == "suite override")
    }

    @Test(.injectedValues { $0.overriddenService = NamedOverriddenService(name: "test override") })
    func aTestTraitStacksOverTheSuiteOne() {
        #expect(OverriddenHolder().service.name == "test override")
    }
}

// What the overlay covers, each on a type of its own so these tests run in
// parallel with the rest without sharing a registration.

private protocol FallThroughService: Sendable { var name: String { get } }
private struct NamedFallThroughService: FallThroughService { let name: String }
private protocol EndingService: Sendable { var name: String { get } }
private struct NamedEndingService: EndingService { let name: String }
private protocol NestedService: Sendable { var depth: Int { get } }
private struct DepthService: NestedService { let depth: Int }
private protocol ResetService: Sendable { var name: String { get } }
private struct NamedResetService: ResetService { let name: String }

private struct CacheProbeKey: InjectedKey {
    static let liveValue = "default"
}

extension InjectedValues {
    fileprivate var cacheProbe: String {
        get { self[CacheProbeKey.self] }
        set { self[CacheProbeKey.self] = newValue }
    }
}

private final class CacheProbeHolder: @unchecked Sendable {
    @Injected(\.cacheProbe) var probe
}

/// These tests never touch the process-wide live container (another suite
/// replaces and empties it while they run): an outer overlay stands in for it.
@Suite struct ContainerOverlayTests {
    @Test func readsFallThroughToTheContainerBehindAndWritesStayInTheOverlay() async {
        await withContainerOverlay {
            $0.register((any FallThroughService).self) { NamedFallThroughService(name: "behind") }
        } operation: {
            // Started before the inner overlay, so it sees only the outer one.
            let (go, signal) = AsyncStream<Void>.makeStream()
            let readerBehind = Task {
                for await _ in go { break }
                return UnifiedDI.resolve((any FallThroughService).self)?.name
            }
            await withContainerOverlay {
                #expect(UnifiedDI.resolve((any FallThroughService).self)?.name == "behind")
                UnifiedDI.register((any FallThroughService).self) { NamedFallThroughService(name: "overlay") }
                #expect(UnifiedDI.resolve((any FallThroughService).self)?.name == "overlay")
                signal.yield()
                #expect(await readerBehind.value == "behind")
                UnifiedDI.releaseAll()
                // The overlay is empty again: the registration behind shows through.
                #expect(UnifiedDI.resolve((any FallThroughService).self)?.name == "behind")
            }
            #expect(UnifiedDI.resolve((any FallThroughService).self)?.name == "behind")
        }
    }

    @Test func theSharedInjectedCacheNeitherLeaksIntoAnOverlayNorOutOfIt() async {
        let holder = CacheProbeHolder()
        #expect(holder.probe == "default")
        await withContainerOverlay {
            $0.register(String.self) { "overlay" }
        } operation: {
            #expect(holder.probe == "overlay")
            // An unscoped reader meanwhile fills the shared cache.
            let outside = await Task.detached { [holder] in (holder.probe, holder.probe) }.value
            #expect(outside == ("default", "default"))
            #expect(holder.probe == "overlay")
        }
        #expect(holder.probe == "default")
    }

    @Test func theOverlayEndsWithItsOperationAndUnstructuredChildrenInheritIt() async {
        let escaped = await withContainerOverlay {
            $0.register((any EndingService).self) { NamedEndingService(name: "overlay") }
        } operation: {
            await Task { UnifiedDI.resolve((any EndingService).self)?.name }.value
        }
        #expect(escaped == "overlay")
        #expect(UnifiedDI.resolve((any EndingService).self) == nil)
    }

    @Test func overlaysNest() {
        withContainerOverlay { $0.register((any NestedService).self) { DepthService(depth: 1) } } operation: {
            withContainerOverlay { $0.register((any NestedService).self) { DepthService(depth: 2) } } operation: {
                #expect(UnifiedDI.resolve((any NestedService).self)?.depth == 2)
                UnifiedDI.release((any NestedService).self)
                #expect(UnifiedDI.resolve((any NestedService).self)?.depth == 1)
            }
            #expect(UnifiedDI.resolve((any NestedService).self)?.depth == 1)
        }
        #expect(UnifiedDI.resolve((any NestedService).self) == nil)
    }

    @Test func assigningLiveInsideAnOverlayReplacesOnlyTheOverlay() {
        withContainerOverlay {
            let behind = WeaveDI.Container.live
            withContainerOverlay {
                let replacement = WeaveDI.Container()
                replacement.register((any ResetService).self) { NamedResetService(name: "replacement") }
                WeaveDI.Container.live = replacement
                #expect(UnifiedDI.resolve((any ResetService).self)?.name == "replacement")
                WeaveDI.Container.live = WeaveDI.Container()
                #expect(UnifiedDI.resolve((any ResetService).self) == nil)
            }
            #expect(WeaveDI.Container.live === behind)
            #expect(UnifiedDI.resolve((any ResetService).self) == nil)
        }
    }
}
