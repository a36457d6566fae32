import InMemoryLogging
import Logging
import WeaveDI
import XCTest

// Names upstream WeaveDI 3.4.0 compiles, written as its documentation
// writes them (issue 50, item 5).

private protocol TimeSource: Sendable {
    var name: String { get }
}

private final class SystemClock: TimeSource {
    let name = "system"
}

// Named nowhere else in the test bundle: a miss notes the name, and a name
// two test types share is printed qualified in other tests' messages.
private final class Sundial: Sendable {}

#if Macros
private final class Database: Sendable {}

@DependencyGraph([
    SystemClock.self: [Database.self],
    Database.self: [],
])
private final class StorageDependencyGraph {}

@Component
private struct StorageComponent {
    @Provide(.singleton) var database: Database = Database()
    @Provide(.transient) var clock: TimeSource = SystemClock()
}
#endif

final class UpstreamNamesTests: UpstreamTestCase {
    func testTopLevelContainerIsTheLiveContainer() {
        Container.shared.register(TimeSource.self) { SystemClock() }
        XCTAssertEqual(UnifiedDI.resolve(TimeSource.self)?.name, "system")
        XCTAssertTrue(Container.shared === WeaveDI.Container.live)
        let own = Container()
        XCTAssertFalse(own === Container.shared)
        XCTAssertEqual(own.registrationCount, 0)
    }

    func testCatchDependencyNotFoundWithUpstreamsUnlabelledPattern() {
        do {
            _ = try UnifiedDI.resolveThrowing(Sundial.self)
            XCTFail("nothing registers Sundial")
        } catch DIError.dependencyNotFound(let name) {
            XCTAssertEqual(name, "Sundial")
        } catch {
            XCTFail("\(error)")
        }
    }

    func testUpstreamsUnlabelledConstructorsAreTheLabelledCases() {
        XCTAssertEqual(DIError.dependencyNotFound("TimeSource"), .dependencyNotFound(type: "TimeSource"))
        XCTAssertEqual(DIError.circularDependency("A -> B -> A"), .circularDependency(chain: "A -> B -> A"))
        XCTAssertNotEqual(DIError.dependencyNotFound("TimeSource"), .dependencyNotFound(type: "Database"))
    }

    @available(*, deprecated, message: "builds upstream's never-thrown cases")
    func testUpstreamsOtherCasesBuildMatchAndDescribeThemselves() {
        struct Refused: Error {}
        let errors: [DIError] = [
            .creationFailed("Database", underlying: Refused()),
            .configurationError("no modules"),
            .containerNotBootstrapped("bootstrap first"),
            .internalError("broken"),
            .registrationFailed("duplicate"),
        ]
        guard case .creationFailed(let type, let underlying) = errors[0] else {
            return XCTFail("\(errors[0])")
        }
        XCTAssertEqual(type, "Database")
        XCTAssertTrue(underlying is Refused)
        XCTAssertEqual(errors[0], .creationFailed("Database", underlying: Refused()))
        XCTAssertNotEqual(errors[0], .creationFailed("Database", underlying: nil))
        XCTAssertEqual(errors[4], .registrationFailed(type: "", reason: "duplicate"))
        for (error, words) in zip(errors, ["Database", "no modules", "bootstrap first", "broken", "duplicate"]) {
            XCTAssertTrue(error.description.contains(words), error.description)
            XCTAssertEqual(error.errorDescription, error.description)
            XCTAssertNotNil(error.failureReason)
        }
    }

    func testLocalizedMembersSayWhatToDo() {
        let error = DIError.dependencyNotFound(type: "TimeSource")
        XCTAssertEqual(error.failureReason, "the dependency is not registered")
        XCTAssertEqual(error.recoverySuggestion, "Register it first, e.g. UnifiedDI.register(TimeSource.self) { ... }")
        XCTAssertEqual(error.errorDescription, error.description)
    }

    func testResultResolvedAndResolvedWithLogging() {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        var logger = Logger(label: "WeaveDI") { _ in handler }
        logger.logLevel = .debug
        DILog.logger = logger

        let found: Result<Int, DIError> = .success(7)
        let missing: Result<Int, DIError> = .failure(.dependencyNotFound(type: "TimeSource"))
        XCTAssertEqual(found.resolved, 7)
        XCTAssertNil(missing.resolved)
        XCTAssertEqual(found.resolvedWithLogging(), 7)
        XCTAssertTrue(handler.entries.isEmpty, "\(handler.entries)")
        XCTAssertNil(missing.resolvedWithLogging())
        let messages = handler.entries.map { "\($0.message)" }
        XCTAssertTrue(messages.contains { $0.contains("TimeSource") && $0.contains("UpstreamNamesTests.swift") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("Suggestion: Register it first") }, "\(messages)")
    }

    #if Macros
    func testDependencyGraphNamesItsUnregisteredTypes() {
        XCTAssertEqual(validateDependencyGraph(), ["SystemClock", "Database"])
        UnifiedDI.register(Database.self) { Database() }
        XCTAssertEqual(validateDependencyGraph(), ["SystemClock"])
        UnifiedDI.register(SystemClock.self) { SystemClock() }
        XCTAssertEqual(validateDependencyGraph(), [])
    }

    func testProvideWithAnUnlabelledScope() throws {
        let container = Container()
        StorageComponent.registerAll(into: container)
        let first = try XCTUnwrap(container.resolve(Database.self))
        XCTAssertTrue(container.resolve(Database.self) === first, ".singleton: one instance")
        XCTAssertEqual(container.resolve(TimeSource.self)?.name, "system")
    }
    #endif
}
