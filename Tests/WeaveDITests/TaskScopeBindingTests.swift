import XCTest

@testable import WeaveDI
@testable import WeaveDICore

/// `TaskScope.currentUnretained` reads the task-local binding through the
/// Concurrency runtime's own call instead of `TaskLocal.get`: wherever a
/// task or thread can be, it must name the scope the public read names.
final class TaskScopeBindingTests: DITestCase {
    private func assertAgree(_ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let viaGet = TaskScope.current.map(ObjectIdentifier.init)
        let direct = TaskScope.currentUnretained.map { ObjectIdentifier($0.takeUnretainedValue()) }
        XCTAssertEqual(direct, viaGet, what, file: file, line: line)
    }

    func testOutsideEveryScopeBothReadNil() async {
        XCTAssertNil(TaskScope.currentUnretained)
        assertAgree("a task outside any scope")
        let detached = await Task.detached { TaskScope.currentUnretained == nil }.value
        XCTAssertTrue(detached)
    }

    func testASynchronousScopeOnAThreadWithoutATask() {
        let agreed = TestMutex<[Bool]>([])
        let thread = Thread {
            withTaskScope {
                let outer = TaskScope.currentUnretained?.takeUnretainedValue()
                let viaGet = TaskScope.current
                agreed.withLock { $0.append(outer != nil && outer === viaGet) }
                withTaskScope {
                    let inner = TaskScope.currentUnretained?.takeUnretainedValue()
                    agreed.withLock { $0.append(inner != nil && inner !== outer && inner === TaskScope.current) }
                }
                agreed.withLock { $0.append(TaskScope.currentUnretained?.takeUnretainedValue() === outer) }
            }
            agreed.withLock { $0.append(TaskScope.currentUnretained == nil) }
        }
        thread.start()
        let deadline = Date().addingTimeInterval(30)
        while agreed.withLock({ $0.count }) < 4 && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(agreed.withLock { $0 }, [true, true, true, true])
    }

    func testAsyncScopesChildTasksGroupsAndUnstructuredTasks() async {
        await withTaskScope {
            let scope = TaskScope.currentUnretained?.takeUnretainedValue()
            XCTAssertNotNil(scope)
            assertAgree("the scope's own task")
            async let child = TaskScope.currentUnretained?.takeUnretainedValue()
            let childScope = await child
            XCTAssertTrue(childScope === scope, "async let")
            let fromGroup = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask { TaskScope.currentUnretained?.takeUnretainedValue() === scope }
                }
                return await group.reduce(true) { $0 && $1 }
            }
            XCTAssertTrue(fromGroup, "task group children")
            let unstructured = await Task { TaskScope.currentUnretained?.takeUnretainedValue() === scope }.value
            XCTAssertTrue(unstructured, "an unstructured task inherits the binding")
            withTaskScope {
                let inner = TaskScope.currentUnretained?.takeUnretainedValue()
                XCTAssertTrue(inner != nil && inner !== scope, "a nested scope is its own")
                assertAgree("a nested scope")
            }
            XCTAssertTrue(TaskScope.currentUnretained?.takeUnretainedValue() === scope)
            let detached = await Task.detached { TaskScope.currentUnretained == nil }.value
            XCTAssertTrue(detached, "a detached task inherits nothing")
        }
        XCTAssertNil(TaskScope.currentUnretained)
    }
}
