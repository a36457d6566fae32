import Foundation
import WeaveDI
import XCTest

final class ChurnStressTests: DITestCase {
    /// Readers resolve a stable key while a writer registers, replaces and
    /// removes other keys (growing the table) and flips the backend. Run it
    /// under ASan and TSan with scripts/sanitize.sh.
    func testStressReadersNeverSeeAWrongOrMissingStableValue() throws {
        let totalReads = ProcessInfo.processInfo.environment["WEAVEDI_STRESS_READS"].flatMap(Int.init) ?? 1_200_000
        let readerCount = 3
        let readsPerReader = totalReads / readerCount
        var keys: [any ChurnKey] = []
        makeChurnKeys(Int.self, count: 96, into: &keys)
        let churnKeys = keys

        let stable = ServiceImpl(id: 424_242)
        UnifiedDI.register(Service.self) { stable }
        let child = WeaveDI.Container.live.createChild()

        let failures = TestAtomic<Int>(0)
        let misses = TestAtomic<Int>(0)
        let reads = TestAtomic<Int>(0)
        let writerRounds = TestAtomic<Int>(0)
        let readersDone = TestAtomic<Int>(0)
        let group = DispatchGroup()

        for reader in 0..<readerCount {
            DispatchQueue.global().async(group: group) {
                for i in 0..<readsPerReader {
                    let viaChild = (i + reader) % 4 == 0
                    let service = viaChild ? child.resolve(Service.self) : UnifiedDI.resolve(Service.self)
                    guard let service else {
                        misses.add(1, ordering: .relaxed)
                        continue
                    }
                    if service.id != 424_242 {
                        failures.add(1, ordering: .relaxed)
                    }
                    // Churned keys may be present or not, but never hold garbage.
                    if i % 16 == 0, let id = churnKeys[i % churnKeys.count].resolvedID(), id < 0 || id > 1_000_000 {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                reads.add(readsPerReader, ordering: .relaxed)
                readersDone.add(1, ordering: .sequentiallyConsistent)
            }
        }

        DispatchQueue.global().async(group: group) {
            var round = 0
            while readersDone.load(ordering: .sequentiallyConsistent) < readerCount || round < 4 {
                round += 1
                for (index, key) in churnKeys.enumerated() { key.register(id: round * 100 + index) }
                for (index, key) in churnKeys.enumerated() where index % 3 == 0 {
                    key.register(id: round * 100 + index + 1)
                }
                for (index, key) in churnKeys.enumerated() {
                    let expected = round * 100 + index + (index % 3 == 0 ? 1 : 0)
                    if key.resolvedID() != expected { failures.add(1, ordering: .relaxed) }
                }
                for (index, key) in churnKeys.enumerated() where index % 2 == 0 { key.remove() }
                for (index, key) in churnKeys.enumerated() where index % 2 == 0 {
                    if key.resolvedID() != nil { failures.add(1, ordering: .relaxed) }
                }
                if round % 2 == 0 {
                    UnifiedRegistry.shared.disableOptimization()
                } else {
                    UnifiedRegistry.shared.enableOptimization()
                }
                writerRounds.add(1, ordering: .relaxed)
            }
            UnifiedRegistry.shared.enableOptimization()
        }

        XCTAssertEqual(group.wait(timeout: .now() + 600), .success, "stress run did not finish")
        XCTAssertEqual(failures.load(ordering: .sequentiallyConsistent), 0, "wrong values observed")
        XCTAssertEqual(misses.load(ordering: .sequentiallyConsistent), 0, "stable key went missing")
        XCTAssertEqual(reads.load(ordering: .sequentiallyConsistent), readsPerReader * readerCount)
        XCTAssertGreaterThanOrEqual(writerRounds.load(ordering: .sequentiallyConsistent), 4)
        print(
            "stress: \(readsPerReader * readerCount) reads by \(readerCount) threads during "
                + "\(writerRounds.load(ordering: .sequentiallyConsistent)) writer rounds over \(churnKeys.count) keys")
    }
}
