import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private protocol Stock: Sendable { var serial: Int { get } }
private final class StockImpl: Stock {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private struct StockKey: InjectedKey {
    static var liveValue: Stock { StockImpl(serial: -1) }
}

extension InjectedValues {
    fileprivate var stock: Stock {
        get { self[StockKey.self] }
        set { self[StockKey.self] = newValue }
    }
}

private final class StockHolder: @unchecked Sendable {
    @Injected(\.stock) var byKeyPath
    @Injected var byType: Stock?
}

private final class Lazy: Sendable {
    let generation: Int
    init(generation: Int) { self.generation = generation }
}

final class InjectionStressTests: DITestCase {
    /// Several writers register, replace and release at once; readers build
    /// `@Injected` holders and first-read them concurrently, race on lazy
    /// singletons, and read through `withInjectedValues`; one thread switches
    /// the injection context. Every read must give a value that was valid for
    /// it. Run under ASan and TSan by scripts/sanitize.sh.
    func testStressSeveralWritersConcurrentFirstReadsLazySingletonsAndContextSwitches() {
        let rounds = ProcessInfo.processInfo.environment["WEAVEDI_STRESS_READS"].flatMap(Int.init).map { $0 / 20 } ?? 60_000
        var churn: [any ChurnKey] = []
        makeChurnKeys(Double.self, count: 48, into: &churn)
        let keys = churn
        let stop = TestAtomic<Bool>(false)
        let wrong = TestAtomic<Int>(0)
        let reads = TestAtomic<Int>(0)
        let group = DispatchGroup()
        // Real threads: a dispatch queue's worker pool could leave the
        // readers queued behind writers that loop until the readers finish.
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread.detachNewThread {
                body()
                group.leave()
            }
        }

        for writer in 0..<3 {
            spawn {
                var step = 0
                while !stop.load(ordering: .relaxed) {
                    step += 1
                    switch (writer + step) % 4 {
                    case 0:
                        let serial = step
                        UnifiedDI.register(Stock.self) { StockImpl(serial: serial) }
                    case 1: UnifiedDI.release(Stock.self)
                    case 2:
                        let generation = step
                        UnifiedDI.register(Lazy.self, scope: .singleton) { Lazy(generation: generation) }
                    default: keys[(writer * 16 + step) % keys.count].register(id: step)
                    }
                }
            }
        }
        spawn {
            var flip = false
            while !stop.load(ordering: .relaxed) {
                flip.toggle()
                InjectedValues.context = flip ? .live : .test
                usleep(200)
            }
            InjectedValues.context = .test
        }
        for reader in 0..<3 {
            spawn {
                for index in 0..<rounds {
                    let holder = StockHolder()
                    let value = holder.byKeyPath.serial
                    if value == 0 || value < -1 { wrong.add(1, ordering: .relaxed) }
                    if let typed = holder.byType, typed.serial == 0 { wrong.add(1, ordering: .relaxed) }
                    if let lazy = UnifiedDI.resolve(Lazy.self), lazy.generation <= 0 {
                        wrong.add(1, ordering: .relaxed)
                    }
                    if index % 64 == reader {
                        withInjectedValues {
                            $0.stock = StockImpl(serial: -7)
                        } operation: {
                            if holder.byKeyPath.serial != -7 { wrong.add(1, ordering: .relaxed) }
                        }
                    }
                    reads.add(1, ordering: .relaxed)
                }
            }
        }
        // Readers finish first; then the writers stop.
        while reads.load(ordering: .relaxed) < rounds * 3 { usleep(1_000) }
        stop.store(true, ordering: .relaxed)
        group.wait()
        XCTAssertEqual(wrong.load(ordering: .relaxed), 0)
        XCTAssertEqual(reads.load(ordering: .relaxed), rounds * 3)
    }
}
