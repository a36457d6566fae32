import WeaveDI
import XCTest

private protocol Greeter: Sendable { func greet() -> String }
private struct PlainGreeter: Greeter { func greet() -> String { "hi" } }
private struct LoudGreeter: Greeter {
    let base: Greeter?
    func greet() -> String { (base?.greet() ?? "nobody").uppercased() + "!" }
}

final class DecoratorTests: DITestCase {
    /// A cycle is one registration built again on one chain; a child's
    /// registration that decorates its parent's registration of the same
    /// type is not one.
    func testChildRegistrationMayDecorateTheParentsRegistrationOfTheSameType() {
        let parent = WeaveDI.Container()
        parent.register(Greeter.self, scope: .transient) { PlainGreeter() }
        let child = parent.createChild()
        child.register(Greeter.self, scope: .transient) { LoudGreeter(base: parent.resolve(Greeter.self)) }
        XCTAssertEqual(child.resolve(Greeter.self)?.greet(), "HI!")
        XCTAssertNil(caughtError { () throws(DIError) in try child.resolveThrowing(Greeter.self) })
    }
}
