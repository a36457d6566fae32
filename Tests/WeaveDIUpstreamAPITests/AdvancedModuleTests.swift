import Foundation
import WeaveDI
import XCTest

// Upstream 3.3's enhanced module system: ConditionalModule, ModuleGroup,
// ModuleRegistry, in dependency order.

private struct NetworkClient: Sendable { let name: String }
private struct FeedService: Sendable { let client: NetworkClient? }
private struct ModuleCheckFailed: Error {}

private final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ value: String) { lock.withLock { stored.append(value) } }
    var values: [String] { lock.withLock { stored } }
}

final class AdvancedModuleTests: XCTestCase {
    override func setUp() async throws {
        WeaveDI.Container.live = WeaveDI.Container()
        await MainActor.run { ModuleRegistry.shared.removeAllModules() }
    }

    override func tearDown() async throws {
        WeaveDI.Container.live = WeaveDI.Container()
        await MainActor.run { ModuleRegistry.shared.removeAllModules() }
    }

    @MainActor
    func testRegistryRunsModulesInDependencyOrderWithHooks() async throws {
        let calls = Calls()
        let feed = ConditionalModule(
            identifier: "feed",
            dependencies: ["network"],
            condition: { true },
            module: Module(FeedService.self) { FeedService(client: UnifiedDI.resolve(NetworkClient.self)) },
            beforeRegister: { calls.append("feed.before") },
            afterRegister: { calls.append("feed.after") }
        )
        let network = Module(NetworkClient.self) { NetworkClient(name: "live") }
            .asAdvanced(identifier: "network")
        let skipped = ConditionalModule(
            identifier: "skipped", condition: { false },
            module: Module(String.self) { "never" }, beforeRegister: { calls.append("skipped") })

        try await ModuleRegistry.shared.registerModules {
            feed
            network
            skipped
        }
        XCTAssertEqual(calls.values, ["feed.before", "feed.after"])
        XCTAssertEqual(UnifiedDI.resolve(FeedService.self)?.client?.name, "live")
        XCTAssertNil(UnifiedDI.resolve(String.self))
        XCTAssertEqual(ModuleRegistry.shared.status(for: "feed")?.isRegistered, true)
        XCTAssertNil(ModuleRegistry.shared.status(for: "skipped"))
    }

    @MainActor
    func testRegistryRefusesCyclesMissingDependenciesAndDuplicates() async throws {
        let a = Module(NetworkClient.self) { NetworkClient(name: "a") }
        do {
            try await ModuleRegistry.shared.registerModules([
                a.asAdvanced(identifier: "a", dependencies: ["b"]), a.asAdvanced(identifier: "b", dependencies: ["a"]),
            ])
            XCTFail("a cycle must be refused")
        } catch let error as ModuleSystemError {
            guard case .circularDependency = error else { return XCTFail("\(error)") }
        }
        do {
            try await ModuleRegistry.shared.registerModules([a.asAdvanced(identifier: "a", dependencies: ["missing"])])
            XCTFail("a missing dependency must be refused")
        } catch let error as ModuleSystemError {
            XCTAssertEqual(error.description, "module 'a' depends on 'missing', which is neither in the set nor registered")
        }
        try await ModuleRegistry.shared.registerModules([a.asAdvanced(identifier: "a")])
        do {
            try await ModuleRegistry.shared.registerModules([a.asAdvanced(identifier: "a")])
            XCTFail("a second module 'a' must be refused")
        } catch let error as ModuleSystemError {
            guard case .duplicateModule("a") = error else { return XCTFail("\(error)") }
        }
        try await ModuleRegistry.shared.registerModules([
            Module(FeedService.self) { FeedService(client: nil) }.asAdvanced(identifier: "feed", dependencies: ["a"])
        ])
        XCTAssertNotNil(UnifiedDI.resolve(FeedService.self), "a dependency registered earlier counts")
    }

    @MainActor
    func testAFailingModuleIsMarkedAndTheOthersGoOn() async throws {
        let failing = ConditionalModule(
            identifier: "failing", condition: { true }, module: Module(String.self) { "x" },
            beforeRegister: { throw ModuleCheckFailed() })
        try await ModuleRegistry.shared.registerModules([
            failing, Module(NetworkClient.self) { NetworkClient(name: "ok") }.asAdvanced(identifier: "ok"),
        ])
        XCTAssertTrue(ModuleRegistry.shared.status(for: "failing")?.error is ModuleCheckFailed)
        XCTAssertEqual(UnifiedDI.resolve(NetworkClient.self)?.name, "ok")
    }

    func testGroupsRegisterInOrderOrInParallel() async throws {
        let ordered = ModuleGroup(
            identifier: "ordered",
            modules: [
                Module(FeedService.self) { FeedService(client: UnifiedDI.resolve(NetworkClient.self)) }
                    .asAdvanced(identifier: "feed", dependencies: ["network"]),
                Module(NetworkClient.self) { NetworkClient(name: "grouped") }.asAdvanced(identifier: "network"),
            ])
        try await ordered.register()
        XCTAssertEqual(UnifiedDI.resolve(FeedService.self)?.client?.name, "grouped")

        let parallel = ModuleGroup(
            identifier: "parallel",
            modules: (0..<8).map { index in
                ConditionalModule(identifier: "m\(index)", condition: { index != 3 }, module: Module(String.self) { "s" })
            },
            parallelRegistration: true)
        try await parallel.register()
        try await parallel.validate()
        XCTAssertEqual(UnifiedDI.resolve(String.self), "s")
    }

    func testAGroupRunsNoHookOrValidatorOfAModuleWhoseConditionIsFalse() async throws {
        let calls = Calls()
        func module(_ name: String, registers: Bool) -> ConditionalModule {
            ConditionalModule(
                identifier: name, condition: { registers }, module: Module(NetworkClient.self) { NetworkClient(name: name) },
                beforeRegister: { calls.append("\(name).before") }, afterRegister: { calls.append("\(name).after") },
                validator: {
                    calls.append("\(name).validate")
                    throw ModuleCheckFailed()
                })
        }
        let group = ModuleGroup(identifier: "group", modules: [module("on", registers: true), module("off", registers: false)])
        try await group.beforeRegister()
        try await group.register()
        try await group.afterRegister()
        do {
            try await group.validate()
            XCTFail("the registered module's validator throws")
        } catch is ModuleCheckFailed {}
        XCTAssertEqual(calls.values, ["on.before", "on.after", "on.validate"])
        XCTAssertEqual(UnifiedDI.resolve(NetworkClient.self)?.name, "on")
    }
}
