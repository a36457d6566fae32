import WeaveDI

protocol Greeter: Sendable { func greet(_ name: String) -> String }
struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)" } }
struct LoudGreeter: Greeter { func greet(_ name: String) -> String { "HELLO, \(name.uppercased())" } }

// A dependency, its default, and its key path.
struct GreeterKey: InjectedKey {
    static let liveValue: any Greeter = EnglishGreeter()
}
extension InjectedValues {
    var greeter: any Greeter {
        get { self[GreeterKey.self] }
        set { self[GreeterKey.self] = newValue }
    }
}

// Read without a lock, cached between writes.
final class WelcomeService: @unchecked Sendable {
    @Injected(\.greeter) var greeter
    func welcome(_ name: String) -> String { greeter.greet(name) }
}

// Registered by type, with a lifetime.
final class Database: Sendable {}
UnifiedDI.register(Database.self, scope: .singleton) { Database() }

print(WelcomeService().welcome("Ada"))  // Hello, Ada
print(UnifiedDI.resolve(Database.self) === UnifiedDI.resolve(Database.self))  // true

// A task-local override, as a test would set one.
withInjectedValues {
    $0.greeter = LoudGreeter()
} operation: {
    print(WelcomeService().welcome("Ada"))  // HELLO, ADA
}
