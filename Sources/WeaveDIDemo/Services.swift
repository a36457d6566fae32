import WeaveDI

protocol Greeter: Sendable {
    func greet(_ name: String) -> String
}

final class EnglishGreeter: Greeter {
    func greet(_ name: String) -> String { "Hello, \(name)" }
}

protocol Clock: Sendable {
    var now: Int { get }
}

final class FixedClock: Clock {
    let now = 42
}

final class Repository: Sendable {
    let greeter: Greeter
    let clock: Clock

    init(greeter: Greeter, clock: Clock) {
        self.greeter = greeter
        self.clock = clock
    }
}

struct GreeterKey: InjectedKey {
    static let liveValue: Greeter = EnglishGreeter()
}

extension InjectedValues {
    var greeter: Greeter {
        get { self[GreeterKey.self] }
        set { self[GreeterKey.self] = newValue }
    }
}

/// Holds one property of each injection form, as an app type would. The
/// wrappers are never reassigned, which is what makes sharing it safe.
final class Consumers: @unchecked Sendable {
    @available(*, deprecated, message: "measured on purpose")
    @Inject var inject: Greeter?
    @Injected(\.greeter) var byKeyPath
    @Injected(GreeterKey.self) var byKeyType
    @Injected var byType: Greeter
    @Injected var byOptionalType: Greeter?
}
