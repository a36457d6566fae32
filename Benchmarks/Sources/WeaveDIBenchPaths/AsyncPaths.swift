import Dispatch
import Synchronization
import WeaveDI

// Async services (issue 23): a built async singleton read with
// `resolveAsyncThrowing`, against the synchronous `UnifiedDI.resolve` of a
// built lazy singleton; and many tasks awaiting one first build.

public final class AsyncPool: Sendable {
    public init() {}
}

/// Built once per round of the concurrent first-build path, each round in a
/// container of its own.
public final class FirstBuilt: Sendable {
    public init() {}
}

/// Registers the async singleton and builds it, so the read path measures
/// the built read.
public func registerAsyncServices() {
    UnifiedDI.register(AsyncPool.self, scope: .singleton) { () async throws -> AsyncPool in
        await Task.yield()
        return AsyncPool()
    }
    runAsync {
        _ = try? await UnifiedDI.resolveAsyncThrowing(AsyncPool.self)
    }
}

/// Runs `body` as a detached task on the global concurrent executor, as a
/// server runs a request, and waits for it on the calling thread.
func runOnGlobalExecutor(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

/// An async call that returns without suspending: a request's own async
/// work, at its cheapest.
@inline(never)
func requestWork() async {}

/// Runs `body` as a task on the calling thread and returns when it is done:
/// the synchronous harness's bridge, once per round. The task prefers
/// `CallingThreadExecutor`, which runs its jobs on the thread that called
/// this, so the work is timed, and counted by callgrind, on that thread.
func runAsync(_ body: @escaping @Sendable () async -> Void) {
    let executor = CallingThreadExecutor()
    Task(executorPreference: executor) {
        await body()
        executor.finish()
    }
    executor.run()
}

/// A task executor whose jobs run on the thread inside `run()`, until
/// `finish()`.
final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<(queue: [UnownedJob], finished: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.queue.append(job) }
        ready.signal()
    }

    func finish() {
        jobs.withLock { $0.finished = true }
        ready.signal()
    }

    func run() {
        while true {
            ready.wait()
            let (job, finished) = jobs.withLock { state -> (UnownedJob?, Bool) in
                state.queue.isEmpty ? (nil, state.finished) : (state.queue.removeFirst(), false)
            }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if finished {
                return
            }
        }
    }
}

/// How many tasks await one first build in `async.first.concurrent`.
public let concurrentFirstAwaits = 1_000

public func asyncPaths() -> [BenchPath] {
    [
        BenchPath(
            id: "resolve.async.built", label: "try await resolveAsyncThrowing, async singleton (built)",
            group: "resolve",
            run: { n in
                runAsync {
                    for _ in 0..<n { consume(try? await UnifiedDI.resolveAsyncThrowing(AsyncPool.self)) }
                }
            }),
        BenchPath(
            id: "async.first.concurrent",
            label: "\(concurrentFirstAwaits) tasks await one first build (per build)", group: "registration",
            multiThread: false, costScale: 2_000,
            run: { n in
                runAsync {
                    for _ in 0..<n { await concurrentFirstBuild() }
                }
            }),
    ]
}

/// Registers a fresh async singleton, has `concurrentFirstAwaits` tasks
/// await it at once, and checks they got one instance from one build.
func concurrentFirstBuild() async {
    typealias Service = FirstBuilt
    let builds = Atomic<Int>(0)
    let container = WeaveDI.Container()
    container.register(Service.self, scope: .singleton) {
        builds.add(1, ordering: .relaxed)
        await Task.yield()
        return Service()
    }
    let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
        for _ in 0..<concurrentFirstAwaits {
            group.addTask { (try? await container.resolveAsyncThrowing(Service.self)).map(ObjectIdentifier.init) }
        }
        var seen = Set<ObjectIdentifier?>()
        for await identity in group { seen.insert(identity) }
        return seen
    }
    precondition(
        builds.load(ordering: .relaxed) == 1 && identities.count == 1 && identities.first! != nil,
        "async.first.concurrent: \(builds.load(ordering: .relaxed)) builds, \(identities.count) instances")
}
