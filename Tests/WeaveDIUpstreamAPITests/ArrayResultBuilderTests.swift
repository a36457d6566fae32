import WeaveDI
import XCTest

// ModuleBuilder, DependencyBuilder and EasyScopeBuilder take their block,
// loop and branch methods from ArrayResultBuilder's extension; these
// builders, used from this client module, find them, and so does an app's
// own builder conforming to the protocol.

@resultBuilder
enum LabelBuilder: ArrayResultBuilder {
    typealias Element = String
    static func buildExpression(_ expression: String) -> [String] { [expression] }
}

private func labels(@LabelBuilder _ build: () -> [String]) -> [String] { build() }

private func modules(@ModuleBuilder _ build: () -> [any AdvancedModule]) -> [any AdvancedModule] { build() }

private func module(_ identifier: String) -> any AdvancedModule {
    Module(String.self) { identifier }.asAdvanced(identifier: identifier)
}

final class ArrayResultBuilderTests: XCTestCase {
    func testAnAppsBuilderGetsEveryStatementForm() {
        let flag = true
        let choice = 2
        let built = labels {
            "a"
            if flag { "b" }
            if !flag { "never" }
            if flag { "c" } else { "never" }
            switch choice {
            case 1: "never"
            default: "d"
            }
            for index in 0..<2 { "loop\(index)" }
            if #available(macOS 10.15, iOS 13, *) { "e" }
        }
        XCTAssertEqual(built, ["a", "b", "c", "d", "loop0", "loop1", "e"])
        XCTAssertEqual(labels {}, [])
    }

    func testModuleBuilderTakesBranchesAndLoops() {
        let withCache = false
        let built = modules {
            module("network")
            if withCache {
                module("cache")
            } else {
                module("memory")
            }
            for name in ["feed", "profile"] {
                module(name)
            }
        }
        XCTAssertEqual(built.map(\.identifier), ["network", "memory", "feed", "profile"])
    }
}
