import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `weavedi-demo --graph`: validates the demo's registrations, prints their
/// graph as DOT and as Mermaid, then times `validate()` on 10,000
/// generated registrations.
func runGraphMode() -> Never {
    let report = UnifiedDI.validate()
    print(report)
    print("\n# Graphviz DOT (render: dot -Tsvg)\n")
    print(report.graph.dot())
    print("# Mermaid\n")
    print(report.graph.mermaid())
    timeLargeValidation()
    exit(report.isValid ? 0 : 1)
}

/// Generated registrations: `Node<A, B, C, D>` for every four digits (10,000
/// distinct types, with names as long as real ones), each a singleton whose
/// factory resolves `Hub<A>`, one of ten shared singletons, as services
/// resolve the infrastructure they are built on.
protocol Digit: Sendable {}
struct D0: Digit {}
struct D1: Digit {}
struct D2: Digit {}
struct D3: Digit {}
struct D4: Digit {}
struct D5: Digit {}
struct D6: Digit {}
struct D7: Digit {}
struct D8: Digit {}
struct D9: Digit {}
let digits: [any Digit.Type] = [
    D0.self, D1.self, D2.self, D3.self, D4.self, D5.self, D6.self, D7.self, D8.self, D9.self,
]
struct Hub<A: Digit>: Sendable {}
struct Node<A: Digit, B: Digit, C: Digit, D: Digit>: Sendable {}

func registerHub<A: Digit>(_: A.Type, in container: DIContainer) {
    container.register(Hub<A>.self, scope: .singleton) { Hub<A>() }
}

func registerNode<A: Digit, B: Digit, C: Digit, D: Digit>(
    _: A.Type, _: B.Type, _: C.Type, _: D.Type, in container: DIContainer
) {
    container.register(Node<A, B, C, D>.self, scope: .singleton) {
        _ = UnifiedDI.resolve(Hub<A>.self)
        return Node<A, B, C, D>()
    }
}

func timeLargeValidation() {
    let container = DIContainer()
    for a in digits {
        registerHub(a, in: container)
        for b in digits {
            for c in digits {
                for d in digits {
                    registerNode(a, b, c, d, in: container)
                }
            }
        }
    }

    let clock = ContinuousClock()
    var times: [Duration] = []
    var last: ValidationReport?
    for _ in 0..<5 {
        let start = clock.now
        last = container.validate()
        times.append(clock.now - start)
    }
    let sorted = times.sorted()
    let report = last!
    func ms(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
        return value < 10 ? String(Int(value * 10)).withDecimal : String(Int(value.rounded()))
    }
    print(
        "validate() of \(report.registrationCount) generated registrations (\(report.graph.edges.count) edges, "
            + "\(report.problems.count) problems): median \(ms(sorted[2])) ms, first run \(ms(times[0])) ms, "
            + "5 runs")
}

extension String {
    /// "123" (tenths) as "12.3".
    fileprivate var withDecimal: String {
        count == 1 ? "0.\(self)" : "\(dropLast()).\(suffix(1))"
    }
}
