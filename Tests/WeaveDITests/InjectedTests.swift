import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private protocol Greeting: Sendable { var text: String { get } }
private struct Hello: Greeting { let text: String }

private struct GreetingKey: InjectedKey {
    static let liveValue: Greeting = Hello(text: "live")
    static let testValue: Greeting = Hello(text: "test")
    static let previewValue: Greeting = Hello(text: "preview")
}

private struct LiveOnlyKey: InjectedKey {
    static let liveValue = 17
}

extension InjectedValues {
    fileprivate var greeting: Greeting {
        get { self[GreetingKey.self] }
        set { self[GreetingKey.self] = newValue }
    }

    fileprivate var liveOnly: Int {
        get { self[LiveOnlyKey.self] }
        set { self[LiveOnlyKey.self] = newValue }
    }
}

private final class GreetingReader: @unchecked Sendable {
    @Injected(\.greeting) var byKeyPath
    @Injected(GreetingKey.self) var byKeyType
    @Injected var byType: Greeting
    @Injected var optional: Greeting?
    @Injected var missing: Double?
}

final class InjectedTests: DITestCase {
    func testSwiftTestIsDetectedAsTestContext() {
        XCTAssertEqual(InjectedValues.context, .test)
        XCTAssertEqual(InjectedValues.current.greeting.text, "test")
        XCTAssertEqual(InjectedValues.current.liveOnly, 17, "testValue defaults to liveValue")
    }

    func testContextDetectionRules() {
        func detect(_ env: [String: String], _ args: [String]) -> InjectionContext {
            InjectionContext.detect(environment: { env[$0] }, arguments: args)
        }
        XCTAssertEqual(detect([:], ["/usr/bin/server"]), .live)
        XCTAssertEqual(detect([:], ["/x/.build/debug/AppPackageTests.xctest"]), .test)
        XCTAssertEqual(detect([:], ["/usr/bin/xctest", "A.xctest"]), .test)
        XCTAssertEqual(detect([:], ["/x/AppPackageTests.xctest", "--testing-library", "swift-testing"]), .test)
        XCTAssertEqual(detect(["XCTestConfigurationFilePath": "/tmp/x"], ["/a/b"]), .test)
        XCTAssertEqual(detect(["XCODE_RUNNING_FOR_PREVIEWS": "1"], ["/a/b"]), .preview)
        XCTAssertEqual(detect(["WEAVEDI_CONTEXT": "live"], ["/x/AppPackageTests.xctest"]), .live)
        XCTAssertEqual(detect(["WEAVEDI_CONTEXT": "PREVIEW"], ["/a"]), .preview)
    }

    func testForcingTheContextInCodeSwitchesDefaultsAndInvalidatesCaches() {
        let reader = GreetingReader()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        InjectedValues.context = .live
        defer { InjectedValues.context = .test }
        XCTAssertEqual(reader.byKeyPath.text, "live")
        InjectedValues.context = .preview
        XCTAssertEqual(reader.byKeyType.text, "preview")
    }

    func testPrecedenceOverrideThenContainerThenDefault() {
        let reader = GreetingReader()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        UnifiedDI.register(Greeting.self) { Hello(text: "registered") }
        XCTAssertEqual(reader.byKeyPath.text, "registered")
        withInjectedValues {
            $0.greeting = Hello(text: "override")
        } operation: {
            XCTAssertEqual(reader.byKeyPath.text, "override")
            XCTAssertEqual(reader.byKeyType.text, "override")
            XCTAssertEqual(reader.byType.text, "override")
        }
        XCTAssertEqual(reader.byKeyPath.text, "registered")
        UnifiedDI.release(Greeting.self)
        XCTAssertEqual(reader.byKeyPath.text, "test")
    }

    func testAllFourFormsAgreeAndOptionalResolvesTheWrappedType() {
        UnifiedDI.register(Greeting.self) { Hello(text: "container") }
        let reader = GreetingReader()
        XCTAssertEqual(reader.byKeyPath.text, "container")
        XCTAssertEqual(reader.byKeyType.text, "container")
        XCTAssertEqual(reader.byType.text, "container")
        XCTAssertEqual(reader.optional?.text, "container", "optional form must resolve Greeting, not Optional<Greeting>")
        XCTAssertNil(reader.missing)
        UnifiedDI.release(Greeting.self)
        // Not registered: the optional form falls back to the default of
        // the key whose Value is that type.
        XCTAssertEqual(InjectedValues.current.greeting.text, "test")
        XCTAssertEqual(reader.optional?.text, "test")
        UnifiedDI.register(Double.self) { 2.5 }
        XCTAssertEqual(reader.missing, 2.5)
    }

    func testRegisteringAnOptionalTypeIsNotWhatTheOptionalFormReads() {
        UnifiedDI.register(Optional<Double>.self) { 9.0 }
        XCTAssertNil(GreetingReader().missing)
    }

    func testNestedScopesStackAndRevertEvenOnThrow() {
        struct Boom: Error {}
        withInjectedValues {
            $0.greeting = Hello(text: "outer")
        } operation: {
            XCTAssertEqual(InjectedValues.current.greeting.text, "outer")
            withInjectedValues {
                $0.liveOnly = 5
            } operation: {
                XCTAssertEqual(InjectedValues.current.greeting.text, "outer", "outer override lost in inner scope")
                XCTAssertEqual(InjectedValues.current.liveOnly, 5)
                withInjectedValues {
                    $0.greeting = Hello(text: "inner")
                } operation: {
                    XCTAssertEqual(InjectedValues.current.greeting.text, "inner")
                }
            }
            XCTAssertEqual(InjectedValues.current.liveOnly, 17)
            let result: Void? = try? withInjectedValues {
                $0.greeting = Hello(text: "thrown")
            } operation: {
                throw Boom()
            }
            XCTAssertNil(result)
            XCTAssertEqual(InjectedValues.current.greeting.text, "outer")
        }
        XCTAssertEqual(InjectedValues.current.greeting.text, "test")
        XCTAssertEqual(OverrideScopes.count, 0, "a scope outlived its closure")
    }

    func testChildTasksInheritOverrides() async {
        await withInjectedValues {
            $0.greeting = Hello(text: "parent")
        } operation: {
            async let child = InjectedValues.current.greeting.text
            let fromGroup = await withTaskGroup(of: String.self) { group in
                group.addTask { GreetingReader().byKeyPath.text }
                return await group.next() ?? ""
            }
            let childText = await child
            XCTAssertEqual(childText, "parent")
            XCTAssertEqual(fromGroup, "parent")
        }
    }

    func testFiveHundredConcurrentTasksNeverSeeEachOthersOverrides() async {
        let reader = GreetingReader()
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for i in 0..<500 {
                group.addTask {
                    await withInjectedValues {
                        $0.greeting = Hello(text: "task \(i)")
                    } operation: {
                        var wrong = 0
                        for _ in 0..<20 {
                            if reader.byKeyPath.text != "task \(i)" { wrong += 1 }
                            if InjectedValues.current.greeting.text != "task \(i)" { wrong += 1 }
                            await Task.yield()
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(reader.byKeyPath.text, "test")
    }

    func testReleaseAllDoesNotDisturbKeyDefaults() {
        let reader = GreetingReader()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        UnifiedDI.register(Int.self) { 1 }
        UnifiedDI.releaseAll()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        XCTAssertEqual(InjectedValues.current.liveOnly, 17)
    }

    func testAssigningCurrentRegistersForCodeOutsideAnyScope() {
        InjectedValues.current.greeting = Hello(text: "assigned")
        XCTAssertEqual(GreetingReader().byKeyPath.text, "assigned")
        XCTAssertEqual(UnifiedDI.resolve(Greeting.self)?.text, "assigned")
    }

    /// The fast path must never serve a stale value: after each change, every
    /// thread's very next read sees it.
    func testCachedReadsSeeEveryChangeOnEveryThread() {
        let reader = GreetingReader()
        let stale = TestAtomic<Int>(0)
        func expectEverywhere(_ text: String) {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<50 where reader.byKeyPath.text != text || reader.byType.text != text {
                    stale.add(1, ordering: .relaxed)
                }
            }
        }
        expectEverywhere("test")
        for i in 0..<50 {
            UnifiedDI.register(Greeting.self) { Hello(text: "v\(i)") }
            expectEverywhere("v\(i)")
        }
        UnifiedDI.release(Greeting.self)
        expectEverywhere("test")
        UnifiedDI.register(Greeting.self, scope: .singleton) { Hello(text: "lazy") }
        expectEverywhere("lazy")
        UnifiedDI.releaseAll()
        expectEverywhere("test")
        let swapped = WeaveDI.Container()
        swapped.register(Greeting.self) { Hello(text: "swapped") }
        WeaveDI.Container.live = swapped
        expectEverywhere("swapped")
        XCTAssertEqual(stale.load(ordering: .sequentiallyConsistent), 0)
    }

    func testAnOverrideScopeOnOneThreadDoesNotLeakToCachedReadsElsewhere() {
        let reader = GreetingReader()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            withInjectedValues {
                $0.greeting = Hello(text: "elsewhere")
            } operation: {
                inside.signal()
                release.wait()
            }
        }
        inside.wait()
        XCTAssertEqual(reader.byKeyPath.text, "test")
        withInjectedValues {
            $0.greeting = Hello(text: "here")
        } operation: {
            XCTAssertEqual(reader.byKeyPath.text, "here")
        }
        release.signal()
    }
}
