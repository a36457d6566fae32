import Testing
import WeaveDI

// Each builds the other in its initializer through a non-optional
// `@Injected var`, so neither can ever be built: the read must stop naming
// the cycle, not claim that nothing is registered.
private final class InjectedCycleFirst: @unchecked Sendable {
    @Injected var second: InjectedCycleSecond
    init() { _ = second }
}

private final class InjectedCycleSecond: @unchecked Sendable {
    @Injected var first: InjectedCycleFirst
    init() { _ = first }
}

private final class InjectedCycleEntry: @unchecked Sendable {
    @Injected var first: InjectedCycleFirst
}

/// Issue 10, item 2. Exit tests run in a child process, so the live
/// container they register into is their own.
@Suite struct InjectedCycleMessageTests {
    @Test func aCycleThroughNonOptionalInjectedPropertiesStopsNamingTheChain() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            UnifiedDI.register(InjectedCycleFirst.self, scope: .transient) { InjectedCycleFirst() }
            UnifiedDI.register(InjectedCycleSecond.self, scope: .transient) { InjectedCycleSecond() }
            _ = InjectedCycleEntry().first
        }
        let stop = fatalErrorLine(result)
        #expect(
            stop.contains(
                "circular dependency: WeaveDITests.InjectedCycleFirst -> WeaveDITests.InjectedCycleSecond -> WeaveDITests.InjectedCycleFirst"
            ), "\(stop)")
        #expect(!stop.contains("registered"), "\(stop)")
    }

    /// The same cycle entered through `UnifiedDI.resolve`, which on its own
    /// would turn a cycle into nil: the non-optional property inside must
    /// still stop with the chain rather than build on a missing piece.
    @Test func theSameCycleEnteredThroughResolveStopsNamingTheChain() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            UnifiedDI.register(InjectedCycleFirst.self, scope: .transient) { InjectedCycleFirst() }
            UnifiedDI.register(InjectedCycleSecond.self, scope: .transient) { InjectedCycleSecond() }
            _ = UnifiedDI.resolve(InjectedCycleSecond.self)
        }
        let stop = fatalErrorLine(result)
        #expect(
            stop.contains(
                "circular dependency: WeaveDITests.InjectedCycleSecond -> WeaveDITests.InjectedCycleFirst -> WeaveDITests.InjectedCycleSecond"
            ), "\(stop)")
        #expect(!stop.contains("registered"), "\(stop)")
    }
}
