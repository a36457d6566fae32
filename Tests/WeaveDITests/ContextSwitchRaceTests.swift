import Dispatch
import WeaveDI
import XCTest

private struct ContextRaceValue: Sendable { let context: String }

/// The test-context default parks its first evaluation until the test lets
/// it go, so the context switch lands inside that evaluation every time.
private struct ContextRaceKey: InjectedKey {
    static let parkFirstTestEvaluation = TestAtomic<Bool>(false)
    static let evaluationStarted = DispatchSemaphore(value: 0)
    static let contextSwitched = DispatchSemaphore(value: 0)

    static var liveValue: ContextRaceValue { ContextRaceValue(context: "live") }
    static var previewValue: ContextRaceValue { ContextRaceValue(context: "preview") }
    static var testValue: ContextRaceValue {
        if parkFirstTestEvaluation.exchange(false, ordering: .sequentiallyConsistent) {
            evaluationStarted.signal()
            contextSwitched.wait()
        }
        return ContextRaceValue(context: "test")
    }
}

extension InjectedValues {
    fileprivate var contextRace: ContextRaceValue {
        get { self[ContextRaceKey.self] }
        set { self[ContextRaceKey.self] = newValue }
    }
}

private final class ContextRaceReader: @unchecked Sendable {
    @Injected(\.contextRace) var byKeyPath
    @Injected(ContextRaceKey.self) var byKeyType
    @Injected var byType: ContextRaceValue?
}

private final class SeenContext: Sendable {
    let value = TestMutex<String?>(nil)
}

/// Issue 10, item 4: a default whose first evaluation started under one
/// context and finished after `InjectedValues.context` moved on must not
/// leave its stale value cached.
final class ContextSwitchRaceTests: DITestCase {
    private var savedContext = InjectionContext.test

    override func setUp() {
        super.setUp()
        savedContext = InjectedValues.context
    }

    override func tearDown() {
        InjectedValues.context = savedContext
        super.tearDown()
    }

    func testAnEvaluationOverlappingAContextSwitchLeavesNoStaleValue() {
        // Start from the test context with nothing evaluated, so the reader
        // thread below is the first evaluation of the key.
        InjectedValues.context = .test
        ContextRaceKey.parkFirstTestEvaluation.store(true, ordering: .sequentiallyConsistent)

        let readerDone = DispatchSemaphore(value: 0)
        let seenByReader = SeenContext()
        DispatchQueue.global().async {
            let value = InjectedValues.current[ContextRaceKey.self]
            seenByReader.value.withLock { $0 = value.context }
            readerDone.signal()
        }

        // The reader is now inside `testValue`, having chosen the test context.
        ContextRaceKey.evaluationStarted.wait()
        InjectedValues.context = .live
        ContextRaceKey.contextSwitched.signal()
        readerDone.wait()

        // That read began before the switch; what it returned is its own business.
        XCTAssertEqual(seenByReader.value.withLock { $0 }, "test")
        XCTAssertFalse(ContextRaceKey.parkFirstTestEvaluation.load(ordering: .sequentiallyConsistent))

        // Every read after the switch must see the new context's default.
        XCTAssertEqual(InjectedValues.current[ContextRaceKey.self].context, "live")
        XCTAssertEqual(InjectedValues.current.contextRace.context, "live")
        let reader = ContextRaceReader()
        XCTAssertEqual(reader.byKeyPath.context, "live")
        XCTAssertEqual(reader.byKeyType.context, "live")
        XCTAssertEqual(reader.byType?.context, "live")
    }

    /// The reader's value-type read comes first here: the type table, not
    /// only the key table, must not keep the stale evaluation.
    func testTheTypeTableKeepsNoStaleValueEither() {
        InjectedValues.context = .test
        ContextRaceKey.parkFirstTestEvaluation.store(true, ordering: .sequentiallyConsistent)

        let readerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = InjectedValues.current[ContextRaceKey.self]
            readerDone.signal()
        }
        ContextRaceKey.evaluationStarted.wait()
        InjectedValues.context = .live
        ContextRaceKey.contextSwitched.signal()
        readerDone.wait()

        // Nothing was evaluated under the live context yet: a type read
        // evaluates the live default, never keeps the test context's one.
        XCTAssertEqual(ContextRaceReader().byType?.context, "live")
        XCTAssertEqual(InjectedValues.current[ContextRaceKey.self].context, "live")
    }
}
