import CWeaveRegistry
import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private struct CounterKey: InjectedKey {
    static let liveValue = 41
}

private struct Settings: Sendable {
    let name: String
    let port: Int
}

private struct SettingsKey: InjectedKey {
    static let liveValue = Settings(name: "default", port: 8080)
}

private struct SharedSettingsKey: InjectedKey {
    static let liveValue = Settings(name: "shared", port: 7070)
}

private struct OtherSettingsKey: InjectedKey {
    static let liveValue = Settings(name: "other", port: 9090)
}

extension InjectedValues {
    fileprivate var keyPathCounter: Int {
        get { self[CounterKey.self] }
        set { self[CounterKey.self] = newValue }
    }

    fileprivate var keyPathSettings: Settings {
        get { self[SettingsKey.self] }
        set { self[SettingsKey.self] = newValue }
    }

    fileprivate var sharedSettings: Settings {
        get { self[SharedSettingsKey.self] }
        set { self[SharedSettingsKey.self] = newValue }
    }

    fileprivate var otherSettings: Settings {
        get { self[OtherSettingsKey.self] }
        set { self[OtherSettingsKey.self] = newValue }
    }
}

private final class CounterReader {
    @Injected(\.keyPathCounter) var counter
}

/// A key path object made at run time: equal to the `\.key.port` literal,
/// but a new object each call, as another module's literal is another
/// object.
private func portKeyPath(
    _ base: KeyPath<InjectedValues, Settings> & Sendable
) -> KeyPath<InjectedValues, Int> & Sendable {
    let made = base.appending(path: \Settings.port)
    return unsafeBitCast(made, to: (KeyPath<InjectedValues, Int> & Sendable).self)
}

private func isIndexed(_ keyPath: AnyKeyPath) -> Bool {
    weave_slot_find(InjectionSlots.identity(ObjectIdentifier(keyPath), .keyPath)) != nil
}

final class KeyPathSlotTests: DITestCase {
    /// Every `\.key` evaluation retains the one shared key path object; once
    /// the slot index keeps it, a retain must not write to it (at two
    /// threads those writes cost more than the rest of a handler).
    func testAnIndexedKeyPathObjectIsNotWrittenByRetains() throws {
        try XCTSkipUnless(ImmortalObjects.available, "this Swift runtime cannot make objects immortal")
        XCTAssertEqual(CounterReader().counter, 41)
        let keyPath: KeyPath<InjectedValues, Int> = \.keyPathCounter
        XCTAssertTrue(isIndexed(keyPath))
        let before = _getRetainCount(keyPath)
        let extra = (0..<3).map { _ in Unmanaged.passRetained(keyPath) }
        XCTAssertEqual(_getRetainCount(keyPath), before, "a retain changed the count")
        extra.forEach { $0.release() }
        XCTAssertEqual(_getRetainCount(keyPath), before)
    }

    /// An equal key path that is another object (another module's
    /// literal) reads the same slot and is indexed itself, so reading
    /// through it takes no lock after its first use.
    func testAnEqualKeyPathObjectSharesTheSlotAndIsIndexed() {
        let literal: KeyPath<InjectedValues, Int> & Sendable = \.keyPathSettings.port
        let made = portKeyPath(\.keyPathSettings)
        XCTAssertTrue(literal == made)
        XCTAssertNotEqual(ObjectIdentifier(literal), ObjectIdentifier(made))

        let slot = InjectionSlots.slot(forKeyPath: literal)
        XCTAssertFalse(isIndexed(made))
        XCTAssertEqual(Injected(made).wrappedValue, 8080)
        XCTAssertTrue(isIndexed(made))
        XCTAssertEqual(InjectionSlots.slot(forKeyPath: made).toOpaque(), slot.toOpaque())

        withInjectedValues {
            $0.keyPathSettings = Settings(name: "scoped", port: 1)
        } operation: {
            XCTAssertEqual(Injected(made).wrappedValue, 1)
            XCTAssertEqual(Injected(literal).wrappedValue, 1)
        }
        XCTAssertEqual(Injected(made).wrappedValue, 8080)
    }

    /// Key paths made at run time are a new object each: past the bound
    /// they still read the slot, but are neither indexed nor kept.
    func testEqualKeyPathObjectsAreIndexedUpToABound() {
        let literal: KeyPath<InjectedValues, Int> & Sendable = \.otherSettings.port
        let slot = InjectionSlots.slot(forKeyPath: literal)
        let count = InjectionSlots.aliasesPerKeyPath + 8
        let made = (0..<count).map { _ in portKeyPath(\.otherSettings) }
        XCTAssertEqual(Set(made.map(ObjectIdentifier.init)).count, count, "each call makes a new object")
        for keyPath in made {
            XCTAssertEqual(Injected(keyPath).wrappedValue, 9090)
            XCTAssertEqual(InjectionSlots.slot(forKeyPath: keyPath).toOpaque(), slot.toOpaque())
        }
        XCTAssertEqual(made.filter(isIndexed).count, InjectionSlots.aliasesPerKeyPath)
        XCTAssertTrue(made.prefix(InjectionSlots.aliasesPerKeyPath).allSatisfy(isIndexed))
    }

    /// Threads making properties through the literal and through equal
    /// objects at once (under TSan in scripts/sanitize.sh): every read is
    /// the key's, every object reads one slot.
    func testConcurrentFirstUsesOfEqualKeyPathObjects() {
        let literal: KeyPath<InjectedValues, Int> & Sendable = \.sharedSettings.port
        let made = (0..<8).map { _ in portKeyPath(\.sharedSettings) }
        // `Locked` (pthread) rather than `Mutex`, whose futex TSan does not see.
        let slots = Locked<Set<UInt>>([])
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<200 {
                let keyPath = round.isMultiple(of: 2) ? literal : made[(thread + round) % made.count]
                if Injected(keyPath).wrappedValue != 7070 {
                    wrong.withLock { $0 += 1 }
                }
                let slot = UInt(bitPattern: InjectionSlots.slot(forKeyPath: keyPath).toOpaque())
                slots.withLock { _ = $0.insert(slot) }
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, 0)
        XCTAssertEqual(slots.withLock { $0.count }, 1)
        XCTAssertTrue(made.allSatisfy(isIndexed))
    }
}
