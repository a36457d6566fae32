import Testing
import WeaveDI

private struct DefaultLoopFirstValue: Sendable { let depth: Int }
private struct DefaultLoopSecondValue: Sendable { let depth: Int }

// Every context's default reads the other key, so the loop is met whichever
// context the child process detects.
private struct DefaultLoopFirstKey: InjectedKey {
    static var liveValue: DefaultLoopFirstValue { next }
    static var testValue: DefaultLoopFirstValue { next }
    static var previewValue: DefaultLoopFirstValue { next }
    private static var next: DefaultLoopFirstValue {
        DefaultLoopFirstValue(depth: InjectedValues.current[DefaultLoopSecondKey.self].depth + 1)
    }
}

private struct DefaultLoopSecondKey: InjectedKey {
    static var liveValue: DefaultLoopSecondValue { next }
    static var testValue: DefaultLoopSecondValue { next }
    static var previewValue: DefaultLoopSecondValue { next }
    private static var next: DefaultLoopSecondValue {
        DefaultLoopSecondValue(depth: InjectedValues.current[DefaultLoopFirstKey.self].depth + 1)
    }
}

private struct DefaultLoopSelfKey: InjectedKey {
    static var liveValue: Int { InjectedValues.current[DefaultLoopSelfKey.self] + 1 }
    static var testValue: Int { InjectedValues.current[DefaultLoopSelfKey.self] + 1 }
    static var previewValue: Int { InjectedValues.current[DefaultLoopSelfKey.self] + 1 }
}

extension InjectedValues {
    fileprivate var defaultLoopFirst: DefaultLoopFirstValue {
        get { self[DefaultLoopFirstKey.self] }
        set { self[DefaultLoopFirstKey.self] = newValue }
    }
}

private final class DefaultLoopReader: @unchecked Sendable {
    @Injected(\.defaultLoopFirst) var first
}

/// Issue 10, item 3: defaults that read each other, or themselves, used to
/// recurse until the stack overflowed (a SIGSEGV with no message). They
/// must stop with a message naming the keys. Each case runs in its own
/// child process.
@Suite struct DefaultValueLoopTests {
    @Test func defaultsThatReadEachOtherStopNamingBothKeys() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = InjectedValues.current[DefaultLoopFirstKey.self]
        }
        let stop = fatalErrorLine(result)
        #expect(
            stop.contains(
                "the default of WeaveDITests.DefaultLoopFirstKey reads itself: "
                    + "WeaveDITests.DefaultLoopFirstKey -> WeaveDITests.DefaultLoopSecondKey -> WeaveDITests.DefaultLoopFirstKey"),
            "\(stop)")
    }

    @Test func theLoopReachedThroughAnInjectedPropertyStopsTheSameWay() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DefaultLoopReader().first
        }
        let stop = fatalErrorLine(result)
        #expect(
            stop.contains("WeaveDITests.DefaultLoopFirstKey -> WeaveDITests.DefaultLoopSecondKey -> WeaveDITests.DefaultLoopFirstKey"),
            "\(stop)")
    }

    @Test func aDefaultThatReadsItselfStopsNamingTheKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = InjectedValues.current[DefaultLoopSelfKey.self]
        }
        let stop = fatalErrorLine(result)
        #expect(
            stop.contains(
                "the default of WeaveDITests.DefaultLoopSelfKey reads itself: WeaveDITests.DefaultLoopSelfKey -> WeaveDITests.DefaultLoopSelfKey"
            ),
            "\(stop)")
    }
}
