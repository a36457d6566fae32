import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

#if canImport(Glibc)
import Glibc
#endif

private protocol Engine: Sendable { var serial: Int { get } }

private final class TrackedEngine: Engine {
    static let alive = TestAtomic<Int>(0)
    let serial: Int
    init(serial: Int = 0) {
        self.serial = serial
        Self.alive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { Self.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

private struct EngineKey: InjectedKey {
    static var liveValue: Engine { TrackedEngine(serial: -1) }
}

extension InjectedValues {
    fileprivate var lifetimeEngine: Engine {
        get { self[EngineKey.self] }
        set { self[EngineKey.self] = newValue }
    }
}

private struct EngineBundle: Sendable {
    let engine: TrackedEngine
    let name: String
    let sizes: [Int]
}

/// A handler as a server builds one per request.
private final class EngineHolder: @unchecked Sendable {
    @Injected(\.lifetimeEngine) var byKeyPath
    @Injected(EngineKey.self) var byKeyType
    @Injected var byType: Engine
    @Injected var optional: Engine?
}

private struct DefaultOnlyKey: InjectedKey {
    static let built = TestAtomic<Int>(0)
    static var liveValue: TrackedEngine {
        TrackedEngine(serial: built.add(1, ordering: .sequentiallyConsistent).newValue)
    }
}

private final class DefaultOnlyHolder: @unchecked Sendable {
    @Injected(DefaultOnlyKey.self) var engine
}

/// Resident set size in bytes.
private func residentBytes() -> Int {
    #if canImport(Glibc)
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    _ = withUnsafeMutablePointer(to: &size) { s in
        withUnsafeMutablePointer(to: &resident) { r in
            withVaList([s, r]) { vfscanf(file, "%ld %ld", $0) }
        }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

final class InjectedLifetimeTests: DITestCase {
    override func setUp() {
        super.setUp()
        InjectedValues.context = .live
    }

    override func tearDown() {
        InjectedValues.context = .test
        super.tearDown()
    }

    func testReleaseAllRunsDeinitAtOnceWhileHoldersThatReadItAreAlive() {
        forEachBackend { backend in
            UnifiedDI.register(Engine.self) { TrackedEngine(serial: 1) }
            let holder = EngineHolder()
            weak var seen: TrackedEngine?
            do {
                let engines = [holder.byKeyPath, holder.byKeyType, holder.byType, holder.optional!]
                XCTAssertTrue(engines.allSatisfy { $0.serial == 1 }, backend)
                seen = engines[0] as? TrackedEngine
            }
            XCTAssertNotNil(seen, backend)
            UnifiedDI.releaseAll()
            XCTAssertNil(seen, "\(backend): the released instance outlived releaseAll through a holder")
            // The holders still work, and now see the key's default.
            XCTAssertEqual(holder.byKeyPath.serial, -1, backend)
            _ = holder
        }
    }

    /// A lazy singleton is kept in memory laid out for its type: a struct
    /// instance is read back whole, and released with its registration.
    func testAReleasedValueTypeSingletonReleasesWhatItHolds() {
        let container = WeaveDI.Container()
        container.register(EngineBundle.self, scope: .singleton) {
            EngineBundle(engine: TrackedEngine(serial: 3), name: "bundle", sizes: [1, 2, 3])
        }
        weak var seen: TrackedEngine?
        do {
            let first = container.resolve(EngineBundle.self)
            let again = container.resolve(EngineBundle.self)
            seen = first?.engine
            XCTAssertTrue(again?.engine === seen)
            XCTAssertEqual(again?.name, "bundle")
            XCTAssertEqual(again?.sizes, [1, 2, 3])
        }
        XCTAssertNotNil(seen, "the container keeps its singleton")
        container.releaseAll()
        XCTAssertNil(seen, "the singleton's stored struct was not destroyed with its registration")
    }

    func testReleaseOfOneTypeRunsItsDeinitAtOnce() {
        UnifiedDI.register(Engine.self, scope: .singleton) { TrackedEngine(serial: 2) }
        let holder = EngineHolder()
        weak var seen: TrackedEngine?
        seen = holder.byType as? TrackedEngine
        XCTAssertEqual(seen?.serial, 2)
        UnifiedDI.release(Engine.self)
        XCTAssertNil(seen)
    }

    func testAPropertyStoresOneWordAndAHolderAllocatesOnlyItself() {
        XCTAssertEqual(MemoryLayout<Injected<Engine>>.size, MemoryLayout<UnsafeRawPointer>.size)
        UnifiedDI.register(Engine.self) { TrackedEngine(serial: 3) }
        let count = 100_000
        var holders: [EngineHolder] = []
        holders.reserveCapacity(count)
        for _ in 0..<100 { _ = EngineHolder().byKeyPath }  // make the slots
        let before = residentBytes()
        for _ in 0..<count {
            let holder = EngineHolder()
            _ = holder.byKeyPath.serial + holder.byType.serial
            holders.append(holder)
        }
        let perHolder = Double(residentBytes() - before) / Double(count)
        #if canImport(Glibc)
        // The object alone is a 16-byte header and four 8-byte properties
        // (48 bytes from malloc); a cache object and a cell per property, as
        // before, came to several hundred.
        XCTAssertLessThanOrEqual(perHolder, 120, "resident bytes per holder")
        #endif
        XCTAssertEqual(holders.count, count)
    }

    func testAMillionHoldersCreatedAndDestroyedKeepMemoryFlat() {
        UnifiedDI.register(Engine.self) { TrackedEngine(serial: 4) }
        for _ in 0..<10_000 { _ = EngineHolder().byKeyPath }
        let before = residentBytes()
        var sum = 0
        for _ in 0..<1_000_000 {
            let holder = EngineHolder()
            sum &+= holder.byKeyPath.serial &+ holder.byKeyType.serial
        }
        XCTAssertEqual(sum, 8_000_000)
        #if canImport(Glibc)
        XCTAssertLessThan(residentBytes() - before, 4 << 20, "resident memory grew")
        #endif
    }

    func testConcurrentFirstReadsOfOnePropertyAgree() {
        for round in 0..<20 {
            WeaveDI.Container.live = WeaveDI.Container()
            let counter = Counter()
            UnifiedDI.register(Engine.self, scope: .singleton) {
                TrackedEngine(serial: counter.increment())
            }
            let holder = EngineHolder()
            let seen = TestMutex<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let engine = index.isMultiple(of: 2) ? holder.byKeyPath : holder.byType
                let id = ObjectIdentifier(engine as! TrackedEngine)
                seen.withLock { $0.append(id) }
            }
            let ids = seen.withLock { $0 }
            XCTAssertEqual(Set(ids).count, 1, "round \(round): threads saw different instances")
            XCTAssertEqual(counter.count, 1, "round \(round): the singleton was built more than once")
        }
    }

    func testConcurrentFirstReadsOfAKeyDefaultAgree() {
        for round in 0..<10 {
            InjectedValues.context = round.isMultiple(of: 2) ? .preview : .live
            let holder = DefaultOnlyHolder()
            let seen = TestMutex<Set<ObjectIdentifier>>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let id = ObjectIdentifier(holder.engine)
                seen.withLock { _ = $0.insert(id) }
            }
            XCTAssertEqual(seen.withLock { $0.count }, 1, "round \(round)")
        }
    }

    func testCachedReadsFollowEveryWriteOnEveryForm() {
        let holder = EngineHolder()
        XCTAssertEqual(holder.byKeyPath.serial, -1)
        for serial in 10..<20 {
            UnifiedDI.register(Engine.self) { TrackedEngine(serial: serial) }
            XCTAssertEqual(holder.byKeyPath.serial, serial)
            XCTAssertEqual(holder.byKeyType.serial, serial)
            XCTAssertEqual(holder.byType.serial, serial)
            XCTAssertEqual(holder.optional?.serial, serial)
        }
        UnifiedDI.release(Engine.self)
        XCTAssertEqual(holder.byKeyPath.serial, -1)
    }
}
