import WeaveDI
import WeaveDIBenchPaths

#if Peers
import PeerPaths
#endif

/// `weavedi-bench startup [--sizes ...] [--rounds K]`: the startup table
/// (nanoseconds per type, the best of K rounds, idle machine), WeaveDI next
/// to a locked dictionary and, with the Peers trait, Swinject.
@MainActor
func startupMain(_ arguments: [String]) -> Int32 {
    var sizes = [100, 1_000, 10_000, 100_000]
    var rounds = 1
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        switch argument {
        case "--sizes": sizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
        case "--rounds": rounds = Int(iterator.next() ?? "") ?? 0
        default:
            log("usage: weavedi-bench startup [--sizes 100,1000,10000,100000] [--rounds K]")
            return 2
        }
    }
    #if Peers
    let contenders = [weaveDIStartup, lockedDictionaryStartup, swinjectStartup]
    #else
    let contenders = [weaveDIStartup, lockedDictionaryStartup]
    #endif
    guard rounds >= 1, !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else {
        log("weavedi-bench startup: --sizes takes positive counts and --rounds a count of at least 1")
        return 2
    }
    let rows = runStartup(sizes: sizes, contenders: contenders, rounds: rounds, progress: log)
    print(
        "| N | contender | register | first resolve | second resolve | register / dictionary | first / dictionary | bytes per type | bytes left after releaseAll | RSS before / after releaseAll (MB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows {
        let floor = rows.first { $0.count == row.count && $0.contender == lockedDictionaryStartup.name }
        let registerRatio = floor.map { fixed(row.register / $0.register, 1) + "x" } ?? "-"
        let firstRatio = floor.map { fixed(row.firstResolve / $0.firstResolve, 1) + "x" } ?? "-"
        print(
            "| \(row.count) | \(row.contender) | \(fixed(row.register, 0)) | \(fixed(row.firstResolve, 0)) | "
                + "\(fixed(row.secondResolve, 0)) | \(registerRatio) | \(firstRatio) | \(fixed(row.bytesPerType, 0)) | "
                + "\(fixed(row.bytesLeftAfterRelease, 0)) | \(fixed(row.residentBefore / 1_048_576, 1)) / "
                + "\(fixed(row.residentAfter / 1_048_576, 1)) |")
    }
    return 0
}
