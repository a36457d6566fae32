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
    /// on in the background (a later resolve joins it). A synchronous
    /// factory that never returns keeps its thread.
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
        let singletons = reachableEntries.map(\.entry).filter { $0.kind == .singleton }
        var failures = await Self.start(singletons.filter(\.isAsync), timeout: timeout)
        failures += await Self.start(singletons.filter { !$0.isAsync }, timeout: timeout)
        try Task.checkCancellation()
        if !failures.isEmpty {
            let error = DIError.startFailed(failures: failures.sorted { ($0.type, $0.chain) < ($1.type, $1.chain) })
            DILog.failure(error)
            throw error
        }
    }

    private static func start(_ entries: [AnyRegistryEntry], timeout: Duration) async -> [StartFailure] {
        await withTaskGroup(of: StartFailure?.self) { group in
            for entry in entries {
                group.addTask { await start(entry, timeout: timeout) }
            }
            var failures: [StartFailure] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
    }

    /// One service: its build raced against the timeout. The timer's win
    /// cancels only the wait.
    private static func start(_ entry: AnyRegistryEntry, timeout: Duration) async -> StartFailure? {
        enum Outcome: Sendable {
            case built
            case failed(DIError)
            case timedOut
        }
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    try await entry.buildForStart()
                    return .built
                } catch let error as DIError {
                    return .failed(error)
                } catch {
                    return .timedOut  // the wait was cancelled: the timer won, or start was cancelled
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
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
