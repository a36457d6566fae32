import CWeaveRegistry
import WeaveDI
import XCTest

private final class Session: Sendable {}

/// `clearCache()` drops every cached read. The cache is transparent (a read
/// answers the same with or without it), so what is checked is the step
/// that drops it: the generation every cached box is stamped with moves, and
/// a box is served only under its own stamp (slot_cache.pml).
final class ClearCacheTests: UpstreamTestCase {
    func testClearCacheAdvancesTheGenerationCachedReadsAreStampedWith() {
        let before = weave_generation()
        UnifiedDI.clearCache()
        XCTAssertNotEqual(weave_generation(), before)
    }

    func testClearCacheKeepsRegistrationsAndBuiltInstances() {
        UnifiedDI.register(Session.self, scope: .singleton) { Session() }
        let built = UnifiedDI.resolve(Session.self)
        UnifiedDI.clearCache()
        XCTAssertTrue(UnifiedDI.resolve(Session.self) === built)
    }
}
