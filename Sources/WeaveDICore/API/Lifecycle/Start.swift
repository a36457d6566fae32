@available(iOS 16, tvOS 16, watchOS 9, macCatalyst 16, *)  // Duration
extension DIContainer {
    /// Builds every `.singleton` registration of this container and its
    /// parents, synchronous and async, before the first request, and throws
    /// one error naming every service that failed or did not finish within
    /// `timeout`.
    ///
    /// The async singletons start first, all at once; a factory that awaits
    /// another joins that one's build, so dependencies finish first and
    /// independent services build concurrently. Then the synchronous
    /// singletons, which may read the async ones already built. Each build
    /// gets `timeout` of its own; a build still running then is reported as
    /// hung with what it waits on ("Repository -> ConnectionPool"), and goes
    /// on in the background (a later resolve joins it). The builds run on
    /// threads of their own, not the cooperative pool's (from macOS 15, iOS
    /// 18, tvOS 18, watchOS 11 and visionOS 2, and on Linux), so `start`
    /// returns in time however many synchronous factories never return;
    /// each such factory keeps its thread. On older Apple systems they run
    /// on the pool, and as many hung factories as it has threads stall it.
    ///
    /// ```swift
    /// container.register(ConnectionPool.self, scope: .singleton) {
    ///     try await ConnectionPool.connect(to: databaseURL)
    /// }
    /// try await container.start(timeout: .seconds(10))
    /// ```
    ///
    /// - Parameter timeout: How long each service may take to build.
    /// - Throws: ``DIError/startFailed(failures:)`` listing every failed or
    ///   hung service, sorted by name; `CancellationError` when the calling
    ///   task is cancelled.
    public func start(timeout: Duration) async throws {
        let singletons = reachableEntries.map(\.entry).filter { $0.kind == .lazy(.singleton) }
        let threads = BuildThreads()
        defer { threads.close() }
        var failures = await Self.start(singletons.filter(\.isAsync), timeout: timeout, on: threads)
        failures += await Self.start(singletons.filter { !$0.isAsync }, timeout: timeout, on: threads)
        try Task.checkCancellation()
        if !failures.isEmpty {
            let error = DIError.startFailed(failures: failures.sorted { ($0.type, $0.chain) < ($1.type, $1.chain) })
            DILog.failure(error)
            throw error
        }
    }

    private static func start(
        _ entries: [AnyRegistryEntry], timeout: Duration, on threads: BuildThreads
    ) async -> [StartFailure] {
        await withTaskGroup(of: StartFailure?.self) { group in
            for entry in entries {
                group.addTask { await start(entry, timeout: timeout, on: threads) }
            }
            var failures: [StartFailure] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
    }

    /// One service: its build raced against the timeout. Neither is a
    /// child task: a task group would wait at its end for a build that
    /// never ends. The timer's win cancels only the wait.
    private static func start(_ entry: AnyRegistryEntry, timeout: Duration, on threads: BuildThreads) async -> StartFailure? {
        let race = StartRace()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StartRace.Outcome, Never>) in
                race.wait(continuation)
                let build: @Sendable () async -> Void = {
                    do {
                        try await entry.buildForStart()
                        race.end(.built)
                    } catch let error as DIError {
                        race.end(.failed(error))
                    } catch {
                        race.end(.timedOut)  // the wait was cancelled: the timer won, or start was cancelled
                    }
                }
                let buildTask = BuildThreads.$bound.withValue(threads) {
                    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, macCatalyst 18, *) {
                        Task(executorPreference: threads, operation: build)
                    } else {
                        Task(operation: build)
                    }
                }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    race.end(.timedOut)
                }
                race.hold(buildTask, timer)
            }
        } onCancel: {
            race.end(.timedOut)
        }
        let name = typeName(entry.type)
        switch outcome {
        case .built:
            return nil
        case .failed(let error):
            let chain: String
            switch error {
            case .factoryFailed(_, let failing, _): chain = failing
            case .circularDependency(let cycle): chain = cycle
            default: chain = name
            }
            return StartFailure(type: name, chain: chain, error: error)
        case .timedOut:
            let chain = entry.startHolder.map { AsyncBuilds.waitChain(of: $0, name: name) } ?? name
            return StartFailure(type: name, chain: chain, error: nil)
        }
    }
}

@available(iOS 16, tvOS 16, watchOS 9, macCatalyst 16, *)  // Duration
extension UnifiedDI {
    /// ``DIContainer/start(timeout:)`` of the live container: builds every
    /// singleton, sync and async, dependencies first and independent ones
    /// concurrently, before the first request.
    ///
    /// ```swift
    /// UnifiedDI.register(ConnectionPool.self, scope: .singleton) {
    ///     try await ConnectionPool.connect(to: databaseURL)
    /// }
    /// try await UnifiedDI.start(timeout: .seconds(10))
    /// ```
    ///
    /// - Parameter timeout: How long each service may take to build.
    /// - Throws: ``DIError/startFailed(failures:)`` naming every service that
    ///   failed or hung, with its chain.
    public static func start(timeout: Duration) async throws {
        try await DIContainer.live.start(timeout: timeout)
    }
}

/// One service's race in `start(timeout:)`: the first of its build, its
/// timer and start's cancellation to end it resumes the waiting start; the
/// others change nothing. Whichever ends it cancels both tasks: the build's
/// wait (its build goes on) and the timer.
private final class StartRace: Sendable {
    enum Outcome: Sendable {
        case built
        case failed(DIError)
        case timedOut
    }

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Takes the waiting start's continuation, resumed at once when the
    /// race has already ended (start was cancelled first).
    func wait(_ continuation: CheckedContinuation<Outcome, Never>) {
        let ended = state.withLock { state -> Outcome? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let ended { continuation.resume(returning: ended) }
    }

    /// The build and the timer, cancelled when the race ends.
    func hold(_ build: Task<Void, Never>, _ timer: Task<Void, Never>) {
        let ended = state.withLock { state -> Bool in
            if state.outcome != nil { return true }
            state.tasks = [build, timer]
            return false
        }
        if ended {
            build.cancel()
            timer.cancel()
        }
    }

    func end(_ outcome: Outcome) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, [Task<Void, Never>]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        continuation?.resume(returning: outcome)
        for task in tasks { task.cancel() }
    }
}
