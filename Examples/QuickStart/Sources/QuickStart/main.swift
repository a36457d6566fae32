import WeaveDI

protocol Greeter: Sendable { func greet(_ name: String) -> String }
struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)" } }
struct LoudGreeter: Greeter { func greet(_ name: String) -> String { "HELLO, \(name.uppercased())" } }

struct GreeterKey: InjectedKey {                 // a dependency and its default
    static let liveValue: any Greeter = EnglishGreeter()
}
extension InjectedValues {                       // its key path
    var greeter: any Greeter {
        get { self[GreeterKey.self] }
        set { self[GreeterKey.self] = newValue }
    }
}

final class WelcomeService: @unchecked Sendable {
    @Injected(\.greeter) var greeter              // read without a lock, cached between writes
    func welcome(_ name: String) -> String { greeter.greet(name) }
}

final class Database: Sendable {}
UnifiedDI.register(Database.self, scope: .singleton) { Database() }   // by type, with a lifetime

print(WelcomeService().welcome("Ada"))                                // Hello, Ada
print(UnifiedDI.resolve(Database.self) === UnifiedDI.resolve(Database.self))   // true
withInjectedValues { $0.greeter = LoudGreeter() } operation: {        // task-local override, as in a test
    print(WelcomeService().welcome("Ada"))                            // HELLO, ADA
}
