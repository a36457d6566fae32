import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private struct Tagged<Tag> {}
private enum Tag0 {}
private enum Tag1 {}
private enum Tag2 {}
private enum Tag3 {}

/// Issue 41 (c): a type's short name is read with no lock once known;
/// concurrent first namings of the same types agree, and the qualified
/// names messages print still find every type named.
final class TypeNameTests: XCTestCase {
    func testConcurrentNamingsAgreeAndKnownNamesAreReadWithoutAdding() async {
        let types: [Any.Type] = [
            Tagged<Tag0>.self, Tagged<Tag1>.self, Tagged<Tag2>.self, Tagged<Tag3>.self,
            Tagged<Tagged<Tag0>>.self, Tagged<Tagged<Tag1>>.self, Tagged<Int>.self, Tagged<String>.self,
        ]
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { types.map { typeName($0) } }
            }
            var all: [[String]] = []
            for await names in group { all.append(names) }
            return all
        }
        let expected = types.map { String(describing: $0) }
        XCTAssertTrue(names.allSatisfy { $0 == expected }, "\(names)")
        for type in types {
            XCTAssertEqual(TypeNames.known(type), String(describing: type))
        }
        XCTAssertTrue(TypeNames.qualified("Tagged<Tag0>").contains("WeaveDITests"), TypeNames.qualified("Tagged<Tag0>"))
        XCTAssertNil(TypeNames.known(Tagged<Tagged<Tagged<Tag3>>>.self), "named before anyone asked")
    }
}
