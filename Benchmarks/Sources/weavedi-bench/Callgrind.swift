// Reading valgrind --tool=callgrind output. valgrind does the counting (the
// gate's and the table's instructions per operation) because this VM's
// `perf stat -e instructions` says <not supported>: no hardware counters, so
// package-benchmark's instruction metric and perf are unavailable, while
// callgrind's counts are deterministic for a given binary and input whatever
// else the machine runs.
//
// No Foundation in this executable: the gate's counts depend on the heap and
// address layout of the process (the C table and Swift's dictionaries hash
// type-metadata addresses, so probe lengths follow the layout), and loading
// Foundation's libraries moves it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a text file, without their line ends; nil when it cannot be read.
func readLines(_ path: String) -> [Substring]? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
}

/// Writes `text` to `path`; false when it cannot.
func writeFile(_ path: String, _ text: String) -> Bool {
    guard let file = fopen(path, "w") else { return false }
    defer { fclose(file) }
    return fputs(text, file) >= 0
}

/// printf-style formatting (C's vsnprintf) for numbers.
func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = max(0, min(Int(vsnprintf(&buffer, buffer.count, format, list)), buffer.count - 1))
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The allocator entry points whose calls count as allocations.
let allocators: Set<Substring> = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]

/// Instructions, and calls into the allocator, in one callgrind dump
/// (`cg.out.<k>`). Allocations need `--compress-strings=no` (callee names
/// spelled out on every `cfn=` line).
func callgrindTotals(_ path: String) -> (instructions: Int, allocations: Int)? {
    guard let lines = readLines(path) else { return nil }
    var instructions: Int?
    var allocations = 0
    var callee: Substring = ""
    for line in lines {
        if line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            instructions = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        } else if line.hasPrefix("cfn=") {
            callee = line.dropFirst(4).drop { $0 == " " }
        } else if line.hasPrefix("calls="), allocators.contains(callee) {
            allocations += line.dropFirst(6).split(separator: " ").first.flatMap { Int($0) } ?? 0
        }
    }
    return instructions.map { ($0, allocations) }
}

/// One measured path of a callgrind run: the program printed
/// `<TAG> <dump-index> <path-id>@<table-size> <operations>` per dump.
struct Dump {
    let index: Int
    let key: String
    let operations: Int
}

func dumps(listedIn path: String, tag: String) -> [Dump] {
    (readLines(path) ?? []).compactMap { line in
        let fields = line.split(separator: " ")
        guard fields.count == 4, fields[0] == tag, let index = Int(fields[1]), let n = Int(fields[3]) else { return nil }
        return Dump(index: index, key: String(fields[2]), operations: n)
    }
}
