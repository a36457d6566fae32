// Model-based randomized test: random operation sequences run against the
// library and against `ContainerModel`, a small reference of the documented
// semantics, single-threaded; every answer must agree exactly.
//
// Each run checks `WEAVEDI_MODEL_SEQUENCES` sequences (default 10,000), each
// generated from its own seed by swift-property-based's `propertyCheck`,
// which draws fresh seeds every run. On a disagreement it shrinks the
// sequence, reports the shortest failing one with a step-by-step trace, and
// prints the seed of the original sequence as `.fixedSeed("<seed>")`.
// To rerun that one sequence without editing the source:
//
//     WEAVEDI_MODEL_SEED='<seed>' swift test --filter ContainerModelTests
//
// (or add `.fixedSeed("<seed>")` to the @Test; that trait records an issue
// even when the sequence passes, so it is never committed).
//
// The sequences use the live container (`UnifiedDI`, `@Injected` and
// `InjectedValues` read only that one), the injection context's defaults and
// the optimization switch, all process-wide, so the suite is `.serialized`
// and leaves a fresh live container and the C path on when it ends. The
// XCTest tests run in another process under `swift test`.

import Logging
import PropertyBased
import Testing
import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Services

/// Which registration (or override, or default) made an instance, and which
/// instance it is: serials are never reused, unlike object addresses.
private final class ModelService<Marker: ModelMarker>: Sendable {
    let tag: Int
    let serial: Int

    init(tag: Int) {
        self.tag = tag
        self.serial = modelSerials.add(1, ordering: .relaxed).newValue
    }
}

private let modelSerials = TestAtomic<Int>(0)

/// The tag of every key default's instance.
private let modelDefaultTag = -1

private struct ModelKey<Marker: ModelMarker>: InjectedKey {
    static var liveValue: ModelService<Marker> { ModelService(tag: modelDefaultTag) }
}

private enum ModelMarkerA: ModelMarker {
    static let name = "A"
    static let keyPath: KeyPath<InjectedValues, ModelService<Self>> & Sendable = \.modelServiceA
}

private enum ModelMarkerB: ModelMarker {
    static let name = "B"
    static let keyPath: KeyPath<InjectedValues, ModelService<Self>> & Sendable = \.modelServiceB
}

private enum ModelMarkerC: ModelMarker {
    static let name = "C"
    static let keyPath: KeyPath<InjectedValues, ModelService<Self>> & Sendable = \.modelServiceC
}

private protocol ModelMarker: Sendable {
    static var name: String { get }
    static var keyPath: KeyPath<InjectedValues, ModelService<Self>> & Sendable { get }
}

extension InjectedValues {
    fileprivate var modelServiceA: ModelService<ModelMarkerA> {
        get { self[ModelKey<ModelMarkerA>.self] }
        set { self[ModelKey<ModelMarkerA>.self] = newValue }
    }

    fileprivate var modelServiceB: ModelService<ModelMarkerB> {
        get { self[ModelKey<ModelMarkerB>.self] }
        set { self[ModelKey<ModelMarkerB>.self] = newValue }
    }

    fileprivate var modelServiceC: ModelService<ModelMarkerC> {
        get { self[ModelKey<ModelMarkerC>.self] }
        set { self[ModelKey<ModelMarkerC>.self] = newValue }
    }
}

private final class ModelHolder<Marker: ModelMarker>: @unchecked Sendable {
    @Injected(ModelKey<Marker>.self) var byKeyType
    @Injected(Marker.keyPath) var byKeyPath
    @Injected var byType: ModelService<Marker>?
}

private let modelMarkers: [any ModelMarker.Type] = [ModelMarkerA.self, ModelMarkerB.self, ModelMarkerC.self]

// MARK: - Sequences

private enum RegistrationKind: Int, CaseIterable, CustomStringConvertible {
    case eager, instance, singleton, transient, weak, task

    var description: String {
        switch self {
        case .eager: "eager"
        case .instance: "instance"
        case .singleton: ".singleton"
        case .transient: ".transient"
        case .weak: ".weak"
        case .task: ".task"
        }
    }
}

private enum ContainerRead: Int, CaseIterable, CustomStringConvertible {
    case resolve, resolveThrowing

    var description: String { self == .resolve ? "resolve" : "resolveThrowing" }
}

private enum InjectedRead: Int, CaseIterable, CustomStringConvertible {
    case subscriptKey, keyType, keyPath, optionalType

    var description: String {
        switch self {
        case .subscriptKey: "InjectedValues.current[Key.self]"
        case .keyType: "@Injected(Key.self)"
        case .keyPath: "@Injected(\\.key)"
        case .optionalType: "@Injected var x: T?"
        }
    }
}

/// A container operand: 0 is whichever container is live at that step,
/// n > 0 picks one of the containers made so far (n - 1, modulo their count;
/// container 0 is the one live when the sequence starts).
private typealias ContainerPick = Int

private enum ModelAction: CustomStringConvertible {
    case register(ContainerPick, type: Int, RegistrationKind)
    case resolve(ContainerPick, type: Int, ContainerRead, keep: Bool)
    case read(type: Int, InjectedRead, keep: Bool)
    case release(ContainerPick, type: Int)
    case releaseAll(ContainerPick)
    case createChild(of: ContainerPick)
    case newContainer
    case replaceLive
    case beginTaskScope
    case endTaskScope
    case beginOverride(type: Int)
    case endOverride
    case optimization(Bool)
    case dropHeld

    init(code: Int, container: Int, type: Int, variant: Int, keep: Bool) {
        switch code {
        case 0..<14: self = .register(container, type: type, RegistrationKind(rawValue: variant % 6)!)
        case 14..<38: self = .resolve(container, type: type, ContainerRead(rawValue: variant % 2)!, keep: keep)
        case 38..<52: self = .read(type: type, InjectedRead(rawValue: variant % 4)!, keep: keep)
        case 52..<58: self = .release(container, type: type)
        case 58..<61: self = .releaseAll(container)
        case 61..<67: self = .createChild(of: container)
        case 67..<69: self = .newContainer
        case 69..<71: self = .replaceLive
        case 71..<77: self = .beginTaskScope
        case 77..<82: self = .endTaskScope
        case 82..<87: self = .beginOverride(type: type)
        case 87..<91: self = .endOverride
        case 91..<95: self = .optimization(keep)
        default: self = .dropHeld
        }
    }

    /// The container operand, for the trace to say which container it picked.
    var containerPick: ContainerPick? {
        switch self {
        case .register(let pick, _, _), .resolve(let pick, _, _, _), .release(let pick, _),
            .releaseAll(let pick), .createChild(let pick):
            return pick
        default:
            return nil
        }
    }

    var description: String {
        func on(_ pick: ContainerPick) -> String { pick == 0 ? "live" : "pick \(pick)" }
        func name(_ type: Int) -> String { modelMarkers[type].name }
        switch self {
        case .register(let c, let t, let kind): return "register(\(on(c)), \(name(t)), \(kind))"
        case .resolve(let c, let t, let how, let keep): return "\(how)(\(on(c)), \(name(t))\(keep ? ", keep" : ""))"
        case .read(let t, let how, let keep): return "\(how) \(name(t))\(keep ? " keep" : "")"
        case .release(let c, let t): return "release(\(on(c)), \(name(t)))"
        case .releaseAll(let c): return "releaseAll(\(on(c)))"
        case .createChild(let c): return "createChild(of: \(on(c)))"
        case .newContainer: return "newContainer"
        case .replaceLive: return "live = Container()"
        case .beginTaskScope: return "withTaskScope {"
        case .endTaskScope: return "} // task scope"
        case .beginOverride(let t): return "withInjectedValues { \(name(t)) = override } {"
        case .endOverride: return "} // override"
        case .optimization(let on): return on ? "enableOptimization" : "disableOptimization"
        case .dropHeld: return "drop held instances"
        }
    }
}

/// The shrinker works on the raw integers; the action is decoded from them,
/// so every shrunk sequence is still a valid one.
private enum ModelSequences {
    static let action = zip(
        Gen.int(in: 0...99), Gen.int(in: 0...7), Gen.int(in: 0...2), Gen.int(in: 0...5), Gen.bool
    ).map { ModelAction(code: $0.0, container: $0.1, type: $0.2, variant: $0.3, keep: $0.4) }

    static let sequence = action.array(of: 1...60)
}

// MARK: - The model

/// What a read should give.
private enum Expected: Equatable, CustomStringConvertible {
    case missing
    case noScope
    /// An instance of `tag`: the one with `serial`, or (nil) one built by this read.
    case instance(tag: Int, serial: Int?)

    var description: String {
        switch self {
        case .missing: "nil (not registered)"
        case .noScope: "nil (task scope required)"
        case .instance(let tag, let serial?): "tag \(tag) #\(serial)"
        case .instance(let tag, nil): "tag \(tag), a new instance"
        }
    }
}

/// What a read gave.
private enum Observed: CustomStringConvertible {
    case none
    case notFound
    case noScope
    case otherError(String)
    case instance(tag: Int, serial: Int)

    var description: String {
        switch self {
        case .none: "nil"
        case .notFound: "DIError.dependencyNotFound"
        case .noScope: "DIError.noActiveScope"
        case .otherError(let text): text
        case .instance(let tag, let serial): "tag \(tag) #\(serial)"
        }
    }
}

/// The documented semantics, reduced to bookkeeping:
/// - eager and instance registrations hand out one fixed instance;
/// - `.singleton`: one instance per registration, built on first resolve,
///   gone with the registration (release, releaseAll, re-register);
/// - `.transient`: a new instance per resolve;
/// - `.weak`: the last instance while someone holds it, else a new one;
/// - a `.singleton` or `.weak` instance not built (or not alive) when a
///   `withInjectedValues` scope reaches it is that scope's own: shared in
///   the scope and the scopes it encloses, never seen outside it;
/// - `.task`: one instance per registration per `withTaskScope` (the
///   innermost), none outside a scope;
/// - a child resolves its own registrations first, then its parent's;
/// - `UnifiedDI`, `InjectedValues` and `@Injected` read the live container;
///   `InjectedValues` and `@Injected` see `withInjectedValues` overrides
///   first and fall back to the key's default (evaluated once, shared);
/// - the optimization switch changes nothing observable.
private struct ContainerModel {
    final class Registration {
        let tag: Int
        let kind: RegistrationKind
        var instance: Int?

        init(tag: Int, kind: RegistrationKind, instance: Int?) {
            self.tag = tag
            self.kind = kind
            self.instance = instance
        }
    }

    struct Container {
        let parent: Int?
        var registrations: [Int: Registration] = [:]
    }

    var containers = [Container(parent: nil)]
    var live = 0
    /// Innermost last; registration tag to instance serial.
    var taskScopes: [[Int: Int]] = []
    /// Innermost last; each holds every override visible in that scope.
    var overrides: [[Int: (tag: Int, serial: Int)]] = []
    /// Innermost last, one per override scope: registration tag to the
    /// serial of the singleton or weak instance that scope built.
    var scopeInstances: [[Int: Int]] = []
    var held: Set<Int> = []
    let defaults: [Int]

    init(defaults: [Int]) { self.defaults = defaults }

    func registration(in container: Int, type: Int) -> Registration? {
        var current: Int? = container
        while let index = current {
            if let found = containers[index].registrations[type] { return found }
            current = containers[index].parent
        }
        return nil
    }

    func expectResolve(in container: Int, type: Int) -> Expected {
        guard let entry = registration(in: container, type: type) else { return .missing }
        switch entry.kind {
        case .eager, .instance:
            return .instance(tag: entry.tag, serial: entry.instance)
        case .singleton:
            return .instance(tag: entry.tag, serial: entry.instance ?? scopeInstance(of: entry))
        case .transient:
            return .instance(tag: entry.tag, serial: nil)
        case .weak:
            return .instance(tag: entry.tag, serial: aliveWeak(entry) ?? scopeInstance(of: entry))
        case .task:
            guard let scope = taskScopes.last else { return .noScope }
            return .instance(tag: entry.tag, serial: scope[entry.tag])
        }
    }

    func aliveWeak(_ entry: Registration) -> Int? {
        entry.instance.flatMap { held.contains($0) ? $0 : nil }
    }

    /// What an enclosing override scope built of `entry` (alive, for a weak one).
    func scopeInstance(of entry: Registration) -> Int? {
        for scope in scopeInstances.reversed() {
            if let serial = scope[entry.tag], entry.kind != .weak || held.contains(serial) {
                return serial
            }
        }
        return nil
    }

    /// Records the instance a resolve of `type` in `container` built.
    mutating func resolved(in container: Int, type: Int, serial: Int) {
        guard let entry = registration(in: container, type: type) else { return }
        switch entry.kind {
        case .singleton, .weak:
            let builtOutside = entry.kind == .singleton ? entry.instance : aliveWeak(entry)
            if builtOutside == nil && !scopeInstances.isEmpty {
                if scopeInstance(of: entry) == nil {
                    scopeInstances[scopeInstances.count - 1][entry.tag] = serial
                }
            } else {
                entry.instance = serial
            }
        case .task:
            taskScopes[taskScopes.count - 1][entry.tag] = serial
        case .eager, .instance, .transient:
            break
        }
    }

    func expectInjected(type: Int, _ how: InjectedRead) -> Expected {
        if let override = overrides.last?[type] {
            return .instance(tag: override.tag, serial: override.serial)
        }
        let fromLive = expectResolve(in: live, type: type)
        switch fromLive {
        case .instance:
            return fromLive
        case .noScope where how == .optionalType:
            // The registration exists but cannot serve here; an optional
            // property reports that as nil rather than using a default.
            return .missing
        case .missing, .noScope:
            return .instance(tag: modelDefaultTag, serial: defaults[type])
        }
    }
}

// MARK: - Running a sequence

/// Runs one sequence against the library and the model in lock step and
/// stops at the first disagreement.
private final class ModelRun {
    private enum Closing { case taskScope, override }

    private let steps: [ModelAction]
    private var model: ContainerModel
    private var containers: [WeaveDI.Container]
    private var held: [AnyObject] = []
    private var nextTag = 1
    private var trace: [String] = []
    private(set) var failure: String?
    private var depth = 0

    init(_ steps: [ModelAction], defaults: [Int]) {
        self.steps = steps
        self.model = ContainerModel(defaults: defaults)
        self.containers = [WeaveDI.Container.live]
    }

    /// Runs the sequence; returns nil when library and model agreed throughout.
    func run() -> String? {
        var index = 0
        execute(&index, closing: nil)
        return failure
    }

    private func container(_ pick: ContainerPick) -> Int {
        pick == 0 ? model.live : (pick - 1) % containers.count
    }

    private func execute(_ index: inout Int, closing: Closing?) {
        while index < steps.count, failure == nil {
            let action = steps[index]
            index += 1
            var line = String(repeating: "  ", count: depth) + "\(index - 1): \(action)"
            if let pick = action.containerPick {
                let target = container(pick)
                line += "  [container \(target)\(target == model.live ? ", live" : "")]"
            }
            trace.append(line)
            switch action {
            case .register(let pick, let type, let kind):
                register(container(pick), modelMarkers[type], type: type, kind: kind)
            case .resolve(let pick, let type, let how, let keep):
                resolve(container(pick), modelMarkers[type], type: type, how, keep: keep)
            case .read(let type, let how, let keep):
                read(modelMarkers[type], type: type, how, keep: keep)
            case .release(let pick, let type):
                release(container(pick), modelMarkers[type], type: type)
            case .releaseAll(let pick):
                let target = container(pick)
                if target == model.live {
                    UnifiedDI.releaseAll()
                } else {
                    containers[target].releaseAll()
                }
                model.containers[target].registrations = [:]
            case .createChild(let pick):
                let parent = container(pick)
                containers.append(containers[parent].createChild())
                model.containers.append(.init(parent: parent))
            case .newContainer:
                containers.append(WeaveDI.Container())
                model.containers.append(.init(parent: nil))
            case .replaceLive:
                let fresh = WeaveDI.Container()
                WeaveDI.Container.live = fresh
                containers.append(fresh)
                model.containers.append(.init(parent: nil))
                model.live = containers.count - 1
            case .beginTaskScope:
                model.taskScopes.append([:])
                depth += 1
                withTaskScope { execute(&index, closing: .taskScope) }
                depth -= 1
                model.taskScopes.removeLast()
            case .endTaskScope:
                if closing == .taskScope { return }
            case .beginOverride(let type):
                beginOverride(modelMarkers[type], type: type, &index)
            case .endOverride:
                if closing == .override { return }
            case .optimization(let on):
                if on {
                    UnifiedRegistry.shared.enableOptimization()
                } else {
                    UnifiedRegistry.shared.disableOptimization()
                }
            case .dropHeld:
                held.removeAll()
                model.held.removeAll()
            }
        }
    }

    private func takeTag() -> Int {
        defer { nextTag += 1 }
        return nextTag
    }

    private func register<M: ModelMarker>(_ target: Int, _ marker: M.Type, type: Int, kind: RegistrationKind) {
        let container = containers[target]
        let isLive = target == model.live
        let tag = takeTag()
        var instance: Int?
        switch kind {
        case .eager:
            let factory: @Sendable () -> ModelService<M> = { ModelService(tag: tag) }
            let made =
                isLive
                ? UnifiedDI.register(ModelService<M>.self, factory: factory)
                : container.register(ModelService<M>.self, factory: factory)
            instance = made.serial
        case .instance:
            let made = ModelService<M>(tag: tag)
            container.register(ModelService<M>.self, instance: made)
            instance = made.serial
        case .singleton, .transient, .weak, .task:
            let scope: ProvideScope =
                switch kind {
                case .singleton: .singleton
                case .transient: .transient
                case .weak: .weak
                default: .task
                }
            if isLive {
                UnifiedDI.register(ModelService<M>.self, scope: scope) { ModelService(tag: tag) }
            } else {
                container.register(ModelService<M>.self, scope: scope) { ModelService(tag: tag) }
            }
        }
        model.containers[target].registrations[type] = .init(tag: tag, kind: kind, instance: instance)
    }

    private func resolve<M: ModelMarker>(_ target: Int, _ marker: M.Type, type: Int, _ how: ContainerRead, keep: Bool) {
        let expected = model.expectResolve(in: target, type: type)
        let before = modelSerials.load(ordering: .relaxed)
        let isLive = target == model.live
        let container = containers[target]
        var value: ModelService<M>?
        let observed: Observed
        switch how {
        case .resolve:
            value = isLive ? UnifiedDI.resolve(ModelService<M>.self) : container.resolve(ModelService<M>.self)
            observed = value.map { .instance(tag: $0.tag, serial: $0.serial) } ?? .none
        case .resolveThrowing:
            do throws(DIError) {
                let found =
                    isLive
                    ? try UnifiedDI.resolveThrowing(ModelService<M>.self)
                    : try container.resolveThrowing(ModelService<M>.self)
                value = found
                observed = .instance(tag: found.tag, serial: found.serial)
            } catch .dependencyNotFound {
                observed = .notFound
            } catch .noActiveScope {
                observed = .noScope
            } catch {
                observed = .otherError(error.description)
            }
        }
        guard agree(expected, observed, builtAfter: before, nilAllowed: how == .resolve) else { return }
        if let value {
            model.resolved(in: target, type: type, serial: value.serial)
            hold(value, keep: keep)
        }
    }

    private func read<M: ModelMarker>(_ marker: M.Type, type: Int, _ how: InjectedRead, keep: Bool) {
        let expected = model.expectInjected(type: type, how)
        let before = modelSerials.load(ordering: .relaxed)
        let value: ModelService<M>? =
            switch how {
            case .subscriptKey: InjectedValues.current[ModelKey<M>.self]
            case .keyType: ModelHolder<M>().byKeyType
            case .keyPath: ModelHolder<M>().byKeyPath
            case .optionalType: ModelHolder<M>().byType
            }
        let observed: Observed = value.map { .instance(tag: $0.tag, serial: $0.serial) } ?? .none
        guard agree(expected, observed, builtAfter: before, nilAllowed: true) else { return }
        if let value {
            if case .instance(let tag, _) = expected, tag != modelDefaultTag, model.overrides.last?[type] == nil {
                model.resolved(in: model.live, type: type, serial: value.serial)
            }
            hold(value, keep: keep)
        }
    }

    private func release<M: ModelMarker>(_ target: Int, _ marker: M.Type, type: Int) {
        if target == model.live {
            UnifiedDI.release(ModelService<M>.self)
        } else {
            containers[target].release(ModelService<M>.self)
        }
        model.containers[target].registrations[type] = nil
    }

    private func beginOverride<M: ModelMarker>(_ marker: M.Type, type: Int, _ index: inout Int) {
        let value = ModelService<M>(tag: 1_000_000 + takeTag())
        var visible = model.overrides.last ?? [:]
        visible[type] = (value.tag, value.serial)
        model.overrides.append(visible)
        model.scopeInstances.append([:])
        depth += 1
        withInjectedValues {
            $0[ModelKey<M>.self] = value
        } operation: {
            execute(&index, closing: .override)
        }
        depth -= 1
        model.overrides.removeLast()
        model.scopeInstances.removeLast()
    }

    private func hold<M: ModelMarker>(_ value: ModelService<M>, keep: Bool) {
        guard keep else { return }
        held.append(value)
        model.held.insert(value.serial)
    }

    private func agree(_ expected: Expected, _ observed: Observed, builtAfter before: Int, nilAllowed: Bool) -> Bool {
        let matches: Bool
        switch (expected, observed) {
        case (.missing, .none), (.noScope, .none):
            matches = nilAllowed
        case (.missing, .notFound), (.noScope, .noScope):
            matches = true
        case (.instance(let tag, let serial?), .instance(let seenTag, let seenSerial)):
            matches = tag == seenTag && serial == seenSerial
        case (.instance(let tag, nil), .instance(let seenTag, let seenSerial)):
            matches = tag == seenTag && seenSerial > before
        default:
            matches = false
        }
        if !matches {
            failure = "step \(trace.count - 1): expected \(expected), got \(observed)\n" + trace.joined(separator: "\n")
        }
        return matches
    }
}

// MARK: - The test

@Suite(.serialized) struct ContainerModelTests {
    static var sequenceCount: Int {
        getenv("WEAVEDI_MODEL_SEQUENCES").flatMap { Int(String(cString: $0)) } ?? 10_000
    }

    /// Empties the live container, turns the C path on and evaluates every
    /// key's default, whose instances the model then expects.
    static func reset() -> [Int] {
        UnifiedRegistry.shared.enableOptimization()
        WeaveDI.Container.live = WeaveDI.Container()
        return [
            InjectedValues.current[ModelKey<ModelMarkerA>.self].serial,
            InjectedValues.current[ModelKey<ModelMarkerB>.self].serial,
            InjectedValues.current[ModelKey<ModelMarkerC>.self].serial,
        ]
    }

    fileprivate static func check(_ steps: [ModelAction]) -> String? {
        let defaults = reset()
        return ModelRun(steps, defaults: defaults).run()
    }

    @Test func randomSequencesAgreeWithTheModel() async {
        // Sequences resolve `.task` registrations outside any scope on
        // purpose; the warning each logs would drown the test output.
        let logger = DILog.logger
        var quiet = logger
        quiet.logLevel = .critical
        DILog.logger = quiet
        defer {
            DILog.logger = logger
            _ = Self.reset()
        }
        if let seed = getenv("WEAVEDI_MODEL_SEED").map({ String(cString: $0) }) {
            guard var rng = Xoshiro(seed: seed) else {
                Issue.record("WEAVEDI_MODEL_SEED is not a seed printed by this test: \(seed)")
                return
            }
            let steps = ModelSequences.sequence.run(using: &rng)
            print("ContainerModelTests: replaying seed \(seed), \(steps.count) steps")
            if let failure = Self.check(steps) {
                Issue.record("\(failure)")
            }
            return
        }
        let clock = ContinuousClock()
        let start = clock.now
        var checked = 0
        var steps = 0
        await propertyCheck(count: Self.sequenceCount, input: ModelSequences.sequence) { sequence in
            checked += 1
            steps += sequence.count
            if let failure = Self.check(sequence) {
                Issue.record("\(failure)")
            }
        }
        print(
            "ContainerModelTests: \(checked) sequences run "
                + "(\(steps) steps, shrinking included) in \(clock.now - start)")
    }
}
