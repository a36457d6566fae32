import Testing

@testable import WeaveDI
@testable import WeaveDICore

#if canImport(Glibc)
import Glibc
#endif

/// Issue 10, item 6: after 100,000 registrations and `releaseAll`, the
/// table's memory must come back, and repeating that must not make the
/// process grow round after round.
///
/// A test cannot declare 100,000 Swift types, but the table never looks
/// behind a key: it is keyed by the bits of a type's `ObjectIdentifier`
/// (`typeKey`), so distinct synthetic keys with the alignment of metadata
/// pointers make the same table, nodes and entries as distinct types would.
///
/// The rounds run in a child process (an exit test) so that the heap they
/// measure is not shaped by whatever tests ran before; the child prints one
/// line of resident-set figures per round and the parent checks them.
@Suite struct TableMemoryTests {
    static let registrations = 100_000
    static let rounds = 10
    /// Above any address a metadata record has here, 16-byte aligned.
    static let firstKey: TypeKey = 0x7000_0000_0000

    struct Round {
        let before: Int
        let registered: Int
        let released: Int
    }

    /// Resident set size in bytes, from /proc/self/statm.
    static func residentSetBytes() -> Int {
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

    /// Runs in the child: registers into the live container and empties it
    /// with `UnifiedDI.releaseAll`, as an application would.
    static func measureRounds() {
        let container = WeaveDI.Container.live
        for _ in 1...rounds {
            let before = residentSetBytes()
            for index in 0..<registrations {
                let key = firstKey + TypeKey(index) * 16
                container.registry.set(PrebuiltEntry(index, factory: nil), forKey: key)
            }
            precondition(container.registrationCount == registrations)
            let registered = residentSetBytes()
            UnifiedDI.releaseAll()
            precondition(container.registrationCount == 0)
            let released = residentSetBytes()
            print("rss-round \(before) \(registered) \(released)")
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + (bytes < 0 ? -(1 << 19) : 1 << 19)) / (1 << 20)
        return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10) MB"
    }

    @Test(.enabled(if: residentSetBytes() > 0, "reads /proc/self/statm"))
    func releaseAllGivesTheTableMemoryBackAndRoundsDoNotGrow() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            TableMemoryTests.measureRounds()
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        let rounds = output.split(separator: "\n").compactMap { line -> Round? in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "rss-round",
                let before = Int(fields[1]), let registered = Int(fields[2]), let released = Int(fields[3])
            else { return nil }
            return Round(before: before, registered: registered, released: released)
        }
        try #require(rounds.count == Self.rounds, "\(output)")

        var report = ["TableMemoryTests: resident set per round, \(Self.registrations) registrations each:"]
        for (index, round) in rounds.enumerated() {
            report.append(
                "round \(index + 1): before \(Self.megabytes(round.before)), "
                    + "registered \(Self.megabytes(round.registered)), "
                    + "after releaseAll \(Self.megabytes(round.released)) "
                    + "(registering took \(Self.megabytes(round.registered - round.before)), "
                    + "releaseAll left \(Self.megabytes(round.released - round.before)))")
        }
        print(report.joined(separator: "\n"))

        let first = rounds[0]
        let grown = first.registered - first.before
        // The table, its nodes and 100,000 entries take about 11 MB;
        // otherwise the checks below would measure nothing.
        #expect(grown > 4 << 20, "registering barely grew the process: \(Self.megabytes(grown))")
        for (index, round) in rounds.enumerated() {
            let kept = round.released - round.before
            // Most of what registering took comes back: at most a quarter
            // stays resident (allocator caches, pages the heap still uses).
            #expect(
                kept <= grown / 4,
                "round \(index + 1): releaseAll left \(Self.megabytes(kept)) of \(Self.megabytes(grown))")
        }
        // Rounds do not accumulate. A single round may end a huge page (2 MB)
        // higher and the next one lower again, so the best of the last
        // three rounds is compared with round 1: growth per round would
        // raise all three.
        let settled = rounds.suffix(3).map(\.released).min()!
        #expect(
            settled - first.released <= 2 << 20,
            "after \(Self.rounds) rounds the process ended \(Self.megabytes(settled - first.released)) above round 1")
    }
}
