// The string helpers messages are built with (Sources/WeaveDICore/Registry/Text.swift)
// written because the standard library's own need iOS 16: on Linux, where
// those are available, every helper must agree with its standard-library
// counterpart on random strings over a small alphabet (so separators and
// targets occur, overlap and repeat).
import PropertyBased
import Testing

@testable import WeaveDI
@testable import WeaveDICore

private enum TextGen {
    static let text = Gen.element(of: ["a", "b", "-", ">", " "]).array(of: 0...14).map { $0.compactMap { $0 }.joined() }
    static let needle = Gen.element(of: ["a", "b", "-", ">", " "]).array(of: 1...3).map { $0.compactMap { $0 }.joined() }
}

@Suite struct TextTests {
    @Test func piecesAgreeWithSplit() async {
        await propertyCheck(count: 2000, input: TextGen.text, TextGen.needle) { text, separator in
            let expected = text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            #expect(text.pieces(separatedBy: separator) == expected, "\(text.debugDescription) by \(separator.debugDescription)")
        }
    }

    @Test func searchAgreesWithFirstRangeAndContains() async {
        await propertyCheck(count: 2000, input: TextGen.text, TextGen.needle) { text, needle in
            #expect(text.firstOccurrence(of: needle) == text.firstRange(of: needle), "\(text.debugDescription)")
            #expect(text.includes(needle) == text.contains(needle), "\(text.debugDescription)")
        }
    }

    @Test func replacingEveryAgreesWithReplacing() async {
        await propertyCheck(count: 2000, input: TextGen.text, TextGen.needle, TextGen.text) { text, target, replacement in
            #expect(
                text.replacingEvery(target, with: replacement) == text.replacing(target, with: replacement),
                "\(text.debugDescription): \(target.debugDescription) -> \(replacement.debugDescription)")
        }
    }

    @Test func qualifiedTypeNamesDropThePrivateContextAddress() {
        #expect(!qualifiedTypeName(PrivateTextProbe.self).contains("unknown context"))
        #expect(qualifiedTypeName(PrivateTextProbe.self) == "WeaveDITests.PrivateTextProbe")
        #expect(qualifiedTypeName([PrivateTextProbe].self) == "Swift.Array<WeaveDITests.PrivateTextProbe>")
    }
}

private struct PrivateTextProbe {}
