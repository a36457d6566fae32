import CWeaveRegistry
import Foundation
import XCTest

/// Slot reads skip their fence only where writers run membarrier; the
/// protocol itself is checked by IntegrationTests/Models/slot_reads.pml and
/// the C stress test's held-box writes.
final class SlotReadSectionTests: XCTestCase {
    func testSlotReadsAreFencelessOnLinuxUnlessAskedNotToBe() throws {
        #if os(Linux)
        let forced = ProcessInfo.processInfo.environment["WEAVE_SLOT_READ_FENCE"] != nil
        XCTAssertEqual(
            weave_debug_slot_reads_fenceless(), !forced,
            "membarrier(PRIVATE_EXPEDITED) registration: slot reads would pay a fence each")
        #else
        XCTAssertFalse(weave_debug_slot_reads_fenceless(), "membarrier exists on Linux only")
        #endif
    }
}
