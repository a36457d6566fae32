// Search, split and replace on strings, for messages. The standard
// library's own (`contains(_:)` and `split(separator:)` with a string,
// `replacing(_:with:)`, `firstRange(of:)`, regexes) need iOS 16 / macOS 13,
// above the minimums this package declares. Off every read path.
extension StringProtocol {
    /// The first range of `needle`, comparing characters.
    func firstOccurrence(of needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return startIndex..<startIndex }
        var start = startIndex
        while start < endIndex {
            if self[start...].starts(with: needle) {
                return start..<index(start, offsetBy: needle.count)
            }
            start = index(after: start)
        }
        return nil
    }

    func includes(_ needle: String) -> Bool {
        firstOccurrence(of: needle) != nil
    }

    /// The pieces between occurrences of `separator`, empty ones kept.
    func pieces(separatedBy separator: String) -> [String] {
        var pieces: [String] = []
        var rest = self[...]
        while let range = rest.firstOccurrence(of: separator), !separator.isEmpty {
            pieces.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        pieces.append(String(rest))
        return pieces
    }

    func replacingEvery(_ target: String, with replacement: String) -> String {
        pieces(separatedBy: target).joined(separator: replacement)
    }
}
