import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class Built: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class RequestUnit: Sendable {}

/// A `.task` instance that names the registration that built it.
private final class Stamped: Sendable {
    let registration: Int
    init(registration: Int) { self.registration = registration }
}

/// Concurrent first resolves of one instance: the first thread claims the
/// slot and builds, the others wait on the monitor (their flag makes the
/// builder wake them). The factories are slow, so the waits really happen.
/// Run under ASan and TSan by scripts/sanitize.sh (the name has "Stress");
/// the results are collected under `Locked`, a pthread mutex TSan sees.
final class BuildClaimStressTests: DITestCase {
    func testStressConcurrentFirstResolvesOfASingletonBuildItOnce() {
        let threads = 4
        let rounds = ProcessInfo.processInfo.environment["WEAVEDI_STRESS_ROUNDS"].flatMap(Int.init) ?? 100_000
        let clock = ContinuousClock()
        let started = clock.now
        for round in 0..<rounds {
            let builds = TestAtomic<Int>(0)
            UnifiedDI.register(Built.self, scope: .singleton) {
                builds.add(1, ordering: .relaxed)
                // A slow build now and then makes the racers really wait;
                // on every round it would cost minutes.
                usleep(round % 1000 == 0 ? 200 : 0)
                return Built(serial: round)
            }
            let seen = Locked<Set<ObjectIdentifier>>([])
            let wrong = TestAtomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                guard let built = UnifiedDI.resolve(Built.self), built.serial == round else {
                    wrong.add(1, ordering: .relaxed)
                    return
                }
                seen.withLock { _ = $0.insert(ObjectIdentifier(built)) }
            }
            XCTAssertEqual(wrong.load(ordering: .relaxed), 0, "round \(round)")
            XCTAssertEqual(builds.load(ordering: .relaxed), 1, "round \(round): the factory ran more than once")
            XCTAssertEqual(seen.withLock { $0.count }, 1, "round \(round): racers got different instances")
        }
        let elapsed = (clock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        print("build claim: \(rounds) rounds of \(threads) concurrent first resolves in \(String(format: "%.1f", seconds)) s")
    }

    func testStressWeakInstancesAreSharedWhileHeldAcrossThreads() {
        let builds = TestAtomic<Int>(0)
        UnifiedDI.register(Built.self, scope: .weak) {
            builds.add(1, ordering: .relaxed)
            usleep(50)
            return Built(serial: 1)
        }
        for round in 0..<100 {
            let before = builds.load(ordering: .relaxed)
            let seen = Locked<[Built]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                if let built = UnifiedDI.resolve(Built.self) {
                    seen.withLock { $0.append(built) }
                }
            }
            let held = seen.withLock { $0 }
            XCTAssertEqual(held.count, 4, "round \(round)")
            XCTAssertEqual(Set(held.map(ObjectIdentifier.init)).count, 1, "round \(round): held weak instances differ")
            XCTAssertEqual(builds.load(ordering: .relaxed) - before, 1, "round \(round)")
        }
    }

    func testStressChildTasksOfOneScopeShareItsTaskInstance() async {
        let builds = TestAtomic<Int>(0)
        UnifiedDI.register(RequestUnit.self, scope: .task) {
            builds.add(1, ordering: .relaxed)
            usleep(100)
            return RequestUnit()
        }
        for round in 0..<100 {
            let before = builds.load(ordering: .relaxed)
            let identities = await withTaskScope {
                await withTaskGroup(of: ObjectIdentifier?.self) { group in
                    for _ in 0..<4 {
                        group.addTask { UnifiedDI.resolve(RequestUnit.self).map(ObjectIdentifier.init) }
                    }
                    var all: [ObjectIdentifier?] = []
                    for await identity in group { all.append(identity) }
                    return all
                }
            }
            XCTAssertFalse(identities.contains(nil), "round \(round)")
            XCTAssertEqual(Set(identities).count, 1, "round \(round): one scope's child tasks got different instances")
            XCTAssertEqual(builds.load(ordering: .relaxed) - before, 1, "round \(round)")
        }
    }
    /// `.task` resolves read through the type's slot take no reference of
    /// their own to the registration (the scope's holder, made inside the
    /// slot read, holds it) while a writer replaces and releases that
    /// registration: no resolve may touch a freed registration or box
    /// (ASan), race (TSan), or get another scope's instance; within one
    /// scope, two resolves give one instance unless the registration changed
    /// between them.
    func testStressTaskResolvesWhileTheirRegistrationIsReplaced() {
        let registrations = TestAtomic<Int>(0)
        let stop = TestAtomic<Bool>(false)
        @Sendable func register() {
            let number = registrations.add(1, ordering: .relaxed).newValue
            UnifiedDI.register(Stamped.self, scope: .task) { Stamped(registration: number) }
        }
        register()
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        for reader in 0..<2 {
            done.enter()
            Thread {
                var scopes = 0
                while !stop.load(ordering: .relaxed) || scopes < 5_000 {
                    withTaskScope {
                        let first = UnifiedDI.resolve(Stamped.self)
                        let second = UnifiedDI.resolve(Stamped.self)
                        if let first, let second, first !== second, first.registration == second.registration {
                            failures.withLock { $0.append("reader \(reader): two instances of one registration in a scope") }
                        }
                    }
                    scopes += 1
                }
                done.leave()
            }.start()
        }
        for round in 0..<4_000 {
            if round % 7 == 0 {
                UnifiedDI.release(Stamped.self)
            }
            register()
        }
        stop.store(true, ordering: .relaxed)
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "a reader hung")
        XCTAssertEqual(failures.withLock { $0 }, [])
    }
}
