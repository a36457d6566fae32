import Testing
import WeaveDI
import WeaveDITesting

private protocol OverriddenService: Sendable { var name: String { get } }
private struct NamedOverriddenService: OverriddenService { let name: String }

private struct OverriddenServiceKey: InjectedKey {
    static let liveValue: any OverriddenService = NamedOverriddenService(name: "default")
}

extension InjectedValues {
    fileprivate var overriddenService: any OverriddenService {
        get { self[OverriddenServiceKey.self] }
        set { self[OverriddenServiceKey.self] = newValue }
    }
}

private struct OverriddenHolder: @unchecked Sendable {
    @Injected(\.overriddenService) var service
}

@Suite(.injectedValues { $0.overriddenService = NamedOverriddenService(name: "suite override") })
struct InjectedValuesTraitTests {
    @Test func everyTestOfTheSuiteSeesTheOverride() {
        #expect(OverriddenHolder().service.name == "suite override")
    }

    @Test(.injectedValues { $0.overriddenService = NamedOverriddenService(name: "test override") })
    func aTestTraitStacksOverTheSuiteOne() {
        #expect(OverriddenHolder().service.name == "test override")
    }
}
