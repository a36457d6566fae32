import Testing
import WeaveDI
import WeaveDITesting

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
        withContainerOverlay {
            $0.register((any NestedService).self) { DepthService(depth: 1) }
        } operation: {
            withContainerOverlay {
                $0.register((any NestedService).self) { DepthService(depth: 2) }
            } operation: {
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
