#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads `start(timeout:)` runs its builds on: a new thread for each
/// job. A synchronous factory that never returns then holds a thread of its
/// own instead of one of the cooperative pool's, which is only as wide as
/// the CPUs: with as many hung factories as that, nothing else would run
/// again, start's timer included.
///
/// A job is a build task's run up to its next suspension, so a factory
/// that suspends runs on several threads in turn, each started for it; a
/// start builds each service once, so that is a few thread starts per
/// service, once per process. Child tasks run here too (they inherit the
/// executor preference); an unstructured `Task` does not, which is why
/// `AsyncBuilds.launch` asks `current` for a build's own task.
final class BuildThreads: @unchecked Sendable {
    /// The threads of the start whose build this task runs, while that
    /// start has not returned.
    @TaskLocal static var bound: BuildThreads?

    /// Whether the start that made these threads has not returned: builds
    /// begun after it (by a task a start build left behind) go to the
    /// cooperative pool as any other build does.
    private let open = PlatformAtomic<Bool>(true)

    /// The threads to launch a build task on, if the task asking runs for a
    /// start that has not returned.
    static var current: BuildThreads? {
        guard let threads = bound, threads.open.load(ordering: .relaxed) else { return nil }
        return threads
    }

    /// Builds begun from now on, by anything these threads still run, go
    /// to the cooperative pool.
    func close() {
        open.store(false, ordering: .relaxed)
    }

    /// Starts a detached thread that runs `body`; false when the system
    /// refuses a thread.
    fileprivate static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        let created = pthread_create(
            &thread, &attributes,
            { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box)
        #else
        var thread = pthread_t()
        let created = pthread_create(
            &thread, &attributes,
            { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, box)
        #endif
        if created != 0 {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return false
        }
        return true
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, macCatalyst 18, *)
extension BuildThreads: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        if !Self.spawn({ job.runSynchronously(on: executor) }) {
            // No thread to be had: the pool runs it, as it would without a start.
            DILog.buildThreadRefused()
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }
}
