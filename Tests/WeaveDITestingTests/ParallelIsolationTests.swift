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
