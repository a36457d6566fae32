import CWeaveRegistry

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// One async build in flight: the instance of one holder, built by one task
/// that no waiter owns. Every field but `FactoryRun`'s flag is guarded by
/// `AsyncBuilds.state`.
@usableFromInline
class AsyncFlight: FactoryRun, @unchecked Sendable {
    /// The build whose factory this task runs, if any: what a wait made here
    /// makes that build wait on (`AsyncBuilds`' cycle check).
    @TaskLocal static var current: AsyncFlight?

    let name: String
    /// The builds this one's factory is waiting for now, with how many of
    /// its waits are on each.
    var awaiting: [ObjectIdentifier: (flight: AsyncFlight, count: Int)] = [:]

    init(name: String) { self.name = name }

    /// The tasks waiting for this build.
    var waiterCount: Int { 0 }

    func startAwaiting(_ other: AsyncFlight) {
        awaiting[ObjectIdentifier(other), default: (other, 0)].count += 1
    }

    func stopAwaiting(_ other: AsyncFlight) {
        let key = ObjectIdentifier(other)
        guard let entry = awaiting[key] else { return }
        awaiting[key] = entry.count == 1 ? nil : (other, entry.count - 1)
    }

    /// The builds from this one to `target` along waits, both included; nil
    /// when this one does not wait on `target`, even indirectly. A build
    /// whose factory has returned waits on nothing, whatever its edges still
    /// say: a task it left running recorded them (async_returned.pml,
    /// CHILD_RESOLVES_B). A late read of its flag keeps the edge: the
    /// conservative answer, a cycle.
    func path(to target: AsyncFlight) -> [AsyncFlight]? {
        var visited: Set<ObjectIdentifier> = []
        func search(_ node: AsyncFlight) -> [AsyncFlight]? {
            if node === target { return [node] }
            if node.hasReturned { return nil }
            guard visited.insert(ObjectIdentifier(node)).inserted else { return nil }
            for next in node.awaiting.values {
                if let rest = search(next.flight) { return [node] + rest }
            }
            return nil
        }
        return search(self)
    }
}

/// A flight of a `T`, with the continuations of the tasks waiting for it.
final class TypedFlight<T>: AsyncFlight, @unchecked Sendable {
    override var waiterCount: Int { waiters.count }

    struct Waiter {
        let continuation: CheckedContinuation<T, any Error>
        /// The build the waiting task runs for, which waits on this one.
        let from: AsyncFlight?
    }

    var waiters: [UInt64: Waiter] = [:]
}

/// What a waiter does after its look under the lock.
enum JoinStep<T> {
    case resume(Result<T, any Error>)
    case wait
    case start(TypedFlight<T>)
}

/// Builds async registrations' instances: once per holder (a singleton's
/// or weak registration's `SharedInstanceHolder`, a scope's `ScopedInstance`),
/// however many tasks ask at once, with no thread blocked meanwhile.
///
/// The protocol, every step under `state`'s lock (held for a few
/// dictionary operations, never across an await):
/// - A waiter looks for the built instance, then for a cancellation, then
///   joins the holder's flight, starting it when there is none. A look and
///   a join under one lock: the build cannot publish and finish between.
/// - The build runs in a task of its own, so no waiter owns it. It
///   publishes the instance, then under the lock removes its flight and
///   takes every waiter, and resumes them: a waiter that came before the
///   removal is resumed, one that comes after finds the instance.
/// - A cancelled waiter removes itself under the lock and is resumed with
///   `CancellationError`; the build goes on. One cancelled before it joins
///   sees the cancellation under the lock and does not join. One cancelled
///   after the build took it gets the build's outcome.
/// - A build that never ends keeps its flight: later waiters join it (and
///   can stop waiting by being cancelled, as `start(timeout:)` does).
/// - A failure is given to the waiters of that flight and nothing is
///   published: the next waiter starts a new flight.
/// - A build's factory that waits on another build records the edge; a wait
///   that would close a loop of builds is a cycle, thrown instead of waited.
/// - A waiter, once resumed, takes the lock once more, changing nothing: an
///   edge from the build's end that ThreadSanitizer sees (see `value`).
/// The protocol is modelled in IntegrationTests/Models/async_build.pml.
@usableFromInline
enum AsyncBuilds {
    struct State {
        var flights: [ObjectIdentifier: AsyncFlight] = [:]
        var lastWaiter: UInt64 = 0
    }

    static let state = Locked(State())

    /// The instance `holder` keeps: the one `current` finds, or the one the
    /// holder's single flight builds with `make` and `publish`es.
    static func value<T>(
        of holder: InstanceHolder,
        registration: ObjectIdentifier,
        current: @escaping @Sendable () -> T?,
        publish: @escaping @Sendable (T) -> T,
        make: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if let value = current() {
            return value
        }
        let name = typeName(T.self)
        if let cycle = AsyncChain.cycle(at: registration, name: name) {
            throw BuildRecording.notedAsync(cycle)
        }
        #if WEAVE_STRESS_HOOKS
        await AsyncBuildHooks.reached(.afterFirstLook, T.self)
        #endif
        let key = ObjectIdentifier(holder)
        // A flight whose factory has returned waits on nothing: a task it
        // left running waits as one no build runs for.
        let me = AsyncFlight.current.flatMap { $0.hasReturned ? nil : $0 }
        let chain = AsyncChain.links
        let id = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        // Once resumed, the waiter takes the lock once more and changes
        // nothing: the build took it after publishing (or failing) and
        // before resuming, so everything the build wrote (the instance and
        // its fields, the error) is ordered before what this task reads
        // next, as ThreadSanitizer sees it. The continuation orders it
        // already, but the Swift runtime (6.3.1) tells TSan so only when the
        // task suspended before its resume: a build that ends while its
        // waiter is still inside withCheckedThrowingContinuation's body
        // (after `launch`) finds the continuation not yet awaited, and the
        // waiter's swift_continuation_await then takes its fast path, which
        // has no TSan acquire. TSan reported that as a race between the
        // factory's initialisation of the instance and the waiter's first
        // read of it (AsyncServiceTests, about 1 run in 20).
        defer { state.withLock { _ in } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let step: JoinStep<T> = state.withLock { state in
                    if let value = current() {
                        return .resume(.success(value))
                    }
                    if Task.isCancelled {
                        return .resume(.failure(CancellationError()))
                    }
                    let existing = state.flights[key].map { unsafeDowncast($0, to: TypedFlight<T>.self) }
                    // A new flight waits on nothing yet, so only an existing one can close a loop.
                    if let me, let existing, let loop = existing.path(to: me) {
                        let names = ([me] + loop).map(\.name)
                        return .resume(.failure(DIError.circularDependency(chain: names.joined(separator: " -> "))))
                    }
                    let flight = existing ?? TypedFlight<T>(name: name)
                    let fresh = existing == nil
                    if fresh {
                        state.flights[key] = flight
                    }
                    me?.startAwaiting(flight)
                    flight.waiters[id] = TypedFlight<T>.Waiter(continuation: continuation, from: me)
                    return fresh ? .start(flight) : .wait
                }
                switch step {
                case .resume(let result):
                    if case .failure(let error as DIError) = result {
                        _ = BuildRecording.notedAsync(error)
                    }
                    continuation.resume(with: result)
                case .wait:
                    break
                case .start(let flight):
                    let link = AsyncChain.Link(registration: registration, name: name, run: flight)
                    launch(flight, key: key, chain: chain + [link], publish: publish, make: make)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> TypedFlight<T>.Waiter? in
                guard let flight = state.flights[key].map({ unsafeDowncast($0, to: TypedFlight<T>.self) }),
                    let waiter = flight.waiters.removeValue(forKey: id)
                else { return nil }
                waiter.from?.stopAwaiting(flight)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Runs one flight's build in a task no waiter owns, then ends the
    /// flight and resumes its waiters with the outcome. A build begun for a
    /// start runs on that start's threads (`BuildThreads`), which this task,
    /// unstructured, would not inherit.
    private static func launch<T>(
        _ flight: TypedFlight<T>,
        key: ObjectIdentifier,
        chain: [AsyncChain.Link],
        publish: @escaping @Sendable (T) -> T,
        make: @escaping @Sendable () async throws -> T
    ) {
        let build: @Sendable () async -> Void = {
            let outcome: Result<T, any Error>
            do {
                let value = try await AsyncChain.$links.withValue(chain) {
                    try await AsyncFlight.$current.withValue(flight) {
                        defer { flight.markReturned() }
                        return try await make()
                    }
                }
                outcome = .success(publish(value))
            } catch {
                outcome = .failure(DIError.factoryError(error, building: T.self, chain: chain.dropLast().map(\.name)))
            }
            #if WEAVE_STRESS_HOOKS
            await AsyncBuildHooks.reached(.beforeFlightEnds, T.self)
            #endif
            let waiters = state.withLock { state in
                state.flights[key] = nil
                let waiters = Array(flight.waiters.values)
                flight.waiters = [:]
                for waiter in waiters {
                    waiter.from?.stopAwaiting(flight)
                }
                return waiters
            }
            // Every waiter gets the one instance: `T` is `Sendable` at every
            // registration (`register` requires it), though not spelled here.
            // The last waiter takes this task's reference, so nothing here
            // keeps the instance once it is handed out: a weak instance its
            // waiters drop is gone, not held until this task ends.
            nonisolated(unsafe) let shared = consume outcome
            guard let last = waiters.last else { return }
            for waiter in waiters.dropLast() {
                waiter.continuation.resume(with: shared)
            }
            last.continuation.resume(with: consume shared)
        }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, macCatalyst 18, *),
            let threads = BuildThreads.current
        {
            Task(executorPreference: threads, operation: build)
        } else {
            Task(operation: build)
        }
    }

    /// A `.transient` async registration: its factory runs in the caller's
    /// task, on every resolve.
    static func fresh<T>(
        registration: ObjectIdentifier, make: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let name = typeName(T.self)
        if let cycle = AsyncChain.cycle(at: registration, name: name) {
            throw BuildRecording.notedAsync(cycle)
        }
        let chain = AsyncChain.links
        let run = FactoryRun()
        do {
            let link = AsyncChain.Link(registration: registration, name: name, run: run)
            return try await AsyncChain.$links.withValue(chain + [link]) {
                defer { run.markReturned() }
                return try await make()
            }
        } catch let error as CancellationError where Task.isCancelled {
            throw error
        } catch {
            throw DIError.factoryError(error, building: T.self, chain: chain.map(\.name))
        }
    }

    /// What the build of `holder` waits on now, from it down the waits:
    /// "Repository -> ConnectionPool". Just its own name when it waits on
    /// nothing or is not in flight.
    static func waitChain(of holder: InstanceHolder, name: String) -> String {
        state.withLock { state in
            guard var flight = state.flights[ObjectIdentifier(holder)] else { return name }
            var names = [flight.name]
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(flight)]
            while let next = flight.awaiting.values.map(\.flight).min(by: { $0.name < $1.name }),
                seen.insert(ObjectIdentifier(next)).inserted
            {
                names.append(next.name)
                flight = next
            }
            return names.joined(separator: " -> ")
        }
    }

    /// The number of flights in progress, for tests.
    static var inFlight: Int { state.withLock { $0.flights.count } }

    /// The tasks waiting for `holder`'s build now, for tests.
    static func waiterCount(of holder: InstanceHolder) -> Int {
        state.withLock { state in
            state.flights[ObjectIdentifier(holder)]?.waiterCount ?? 0
        }
    }
}

extension Resolver {
    /// Async validations running anywhere (`validateAsync()`): while zero,
    /// an async resolve is a synchronous read and, only for an async
    /// registration not built yet, its build; else it also reports what it
    /// resolves to the validation.
    @usableFromInline static let asyncValidations = PlatformAtomic<Int>(0)

    /// The async resolve of the live container (`registry` nil) or of
    /// `registry`: a synchronous read first (a built instance, any
    /// synchronous registration), then, for an async registration not
    /// built yet, its build. Inlined, so the read is specialised in the
    /// caller as `resolve`'s is.
    @inlinable @inline(__always)
    static func resolveAsync<T>(_ type: T.Type, in registry: Registry?) async throws -> T {
        if asyncValidations.load(ordering: .relaxed) == 0 {
            do throws(DIError) {
                let resolved = registry == nil ? try resolveLive(type) : try resolve(type, in: registry)
                guard let resolved else { throw DIError.missing(type) }
                return resolved
            } catch .asyncRegistration(let name) {
                return try await buildAsync(type, in: registry, after: .asyncRegistration(type: name))
            }
        }
        return try await resolveAsyncValidating(type, in: registry)
    }

    /// After a synchronous read threw `error`: the build of `type`'s async
    /// registration, when `type`'s is one; else `error` (a synchronous
    /// factory that needs an async registration not built yet).
    @usableFromInline
    static func buildAsync<T>(_ type: T.Type, in registry: Registry?, after error: DIError) async throws -> T {
        guard let entry = entry(type, in: registry), entry.isAsync else {
            throw error
        }
        return try await buildAsync(entry.lazy, as: T.self)
    }

    /// `resolveAsync` while a `validateAsync()` runs: the same, and what
    /// it resolves (or misses) is recorded for the validation.
    @usableFromInline
    static func resolveAsyncValidating<T>(_ type: T.Type, in registry: Registry?) async throws -> T {
        BuildRecording.noteAsyncResolve(of: T.self, missing: false)
        do throws(DIError) {
            let resolved = registry == nil ? try resolveLive(type) : try resolve(type, in: registry)
            guard let resolved else { throw DIError.missing(type) }
            return resolved
        } catch .dependencyNotFound(let name) {
            BuildRecording.noteAsyncResolve(of: T.self, missing: true)
            throw DIError.dependencyNotFound(type: name)
        } catch .asyncRegistration(let name) {
            return try await buildAsync(type, in: registry, after: .asyncRegistration(type: name))
        }
    }

    /// An async registration's instance, by its scope: the registration's
    /// own, the scope's that keeps it (`OverrideScopes`, the rule), or a
    /// fresh one.
    static func buildAsync<T>(_ entry: LazyEntry, as type: T.Type) async throws -> T {
        guard entry.makeAsync != nil else {
            return try build(entry, as: T.self)
        }
        let make: @Sendable () async throws -> T = { try await entry.makeValueAsync(as: T.self) }
        let registration = ObjectIdentifier(entry)
        switch entry.kind {
        // An async build can move between threads, so it has no thread's
        // graph to join: a `.graph` registration with an async factory is
        // built fresh, as a transient (see GraphScope's limits).
        case .lazy(.transient), .lazy(.graph), .prebuilt:
            return try await AsyncBuilds.fresh(registration: registration, make: make)
        case .lazy(.singleton), .lazy(.weak):
            if !OverrideScopes.noneActive, let scope = OverrideScopes.keeper(of: entry) {
                if let value = scope.existing(entry, as: T.self) ?? entry.current(as: T.self) {
                    return value
                }
                if entry.kind == .lazy(.weak) {
                    let holder = scope.holder(for: entry) { SharedInstanceHolder(type: T.self, weak: true) }
                    return try await holder.valueOfAsyncBuild(registration: registration, make: make)
                }
                return try await scope.instance(for: entry).valueOfAsyncBuild(registration: registration, make: make)
            }
            return try await entry.valueOfAsyncBuild(registration: registration, make: make)
        case .lazy(.task):
            guard let scope = TaskScope.current else {
                DILog.scopeLeak(T.self)
                throw DIError.noActiveScope(type: typeName(T.self))
            }
            return try await scope.instance(for: entry).valueOfAsyncBuild(registration: registration, make: make)
        }
    }
}

extension SharedInstanceHolder {
    func valueOfAsyncBuild<T>(registration: ObjectIdentifier, make: @escaping @Sendable () async throws -> T) async throws -> T {
        try await AsyncBuilds.value(
            of: self, registration: registration,
            current: { self.current(as: T.self) },
            publish: { value in
                let (published, replaced) = self.publish(value)
                if let replaced {
                    weave_defer_release(UnsafeMutableRawPointer(mutating: replaced))
                }
                return published
            },
            make: make)
    }
}

extension ScopedInstance {
    func valueOfAsyncBuild<T>(
        registration: ObjectIdentifier, make: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await AsyncBuilds.value(
            of: self, registration: registration,
            current: { self.built(as: T.self) },
            publish: { self.publish($0) },
            make: make)
    }
}

#if WEAVE_STRESS_HOOKS
/// The windows of the async build protocol a test can hold open: each is a
/// point where another task's step changes the outcome.
enum AsyncBuildWindow: Sendable {
    /// A waiter has found nothing built and not yet joined a flight.
    case afterFirstLook
    /// A build has published its instance and not yet ended its flight.
    case beforeFlightEnds
}

/// Debug builds only: a test sets `hook` to suspend a task at a window.
enum AsyncBuildHooks {
    /// Called with the window and the type being built.
    static let hook = Locked<(@Sendable (AsyncBuildWindow, Any.Type) async -> Void)?>(nil)

    static func reached(_ window: AsyncBuildWindow, _ type: Any.Type) async {
        if let hook = hook.withLock({ $0 }) {
            await hook(window, type)
        }
    }
}
#endif
