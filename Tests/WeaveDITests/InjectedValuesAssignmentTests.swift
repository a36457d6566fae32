import WeaveDI
import XCTest

private struct Label: Sendable, Equatable { let text: String }
private struct Count: Sendable, Equatable { let value: Int }

private struct LabelKey: InjectedKey {
    static let liveValue = Label(text: "default")
}

private struct CountKey: InjectedKey {
    static let liveValue = Count(value: 0)
}

extension InjectedValues {
    fileprivate var label: Label {
        get { self[LabelKey.self] }
        set { self[LabelKey.self] = newValue }
    }

    fileprivate var count: Count {
        get { self[CountKey.self] }
        set { self[CountKey.self] = newValue }
    }
}

/// `InjectedValues.current = values` registers what was set on `values`,
/// and nothing it merely carries from the enclosing `withInjectedValues`
/// scopes: a scoped test override must end with its scope.
final class InjectedValuesAssignmentTests: XCTestCase {
    override func setUp() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    func testAssigningRegistersWhatWasSetOnTheCopy() {
        var values = InjectedValues.current
        values.count = Count(value: 3)
        InjectedValues.current = values

        XCTAssertEqual(UnifiedDI.resolve(Count.self), Count(value: 3))
        XCTAssertEqual(InjectedValues.current.count, Count(value: 3))
    }

    func testAssigningInsideAScopeLeavesTheScopesOverridesOut() {
        withInjectedValues {
            $0.label = Label(text: "scoped")
        } operation: {
            var values = InjectedValues.current
            XCTAssertEqual(values.label, Label(text: "scoped"))
            values.count = Count(value: 7)
            InjectedValues.current = values
        }

        XCTAssertNil(UnifiedDI.resolve(Label.self), "the scope's override was registered in the live container")
        XCTAssertEqual(InjectedValues.current.label, Label(text: "default"))
        XCTAssertEqual(UnifiedDI.resolve(Count.self), Count(value: 7))
    }

    func testReassigningAnInheritedKeyOnTheCopyRegistersIt() {
        withInjectedValues {
            $0.label = Label(text: "scoped")
        } operation: {
            var values = InjectedValues.current
            values.label = Label(text: "assigned")
            InjectedValues.current = values
        }

        XCTAssertEqual(UnifiedDI.resolve(Label.self), Label(text: "assigned"))
    }
}
