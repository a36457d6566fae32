#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// A dry run of the build that records what it sees: `validate()`'s
/// `ValidationRun` (API/Diagnostics). While one is set on a thread's
/// `BuildChain`, every factory run and every miss on that thread goes
/// through it.
@usableFromInline
protocol BuildRecorder: AnyObject {
    /// `InstanceBuilder.run` while recording: the same build, recorded.
    func run<T>(
        registration: ObjectIdentifier, type: T.Type, context: BuildChain, _ factory: () throws -> T
    ) throws(DIError) -> T

    /// A resolve made by the build on top of `context` found no
    /// registration for the type named `name`.
    func noteMissing(named name: String, context: BuildChain)
}

@usableFromInline
enum BuildRecording {
    /// Recorders set on any thread: while zero, a miss costs one load here.
    @usableFromInline static let running = PlatformAtomic<Int>(0)

    /// A resolve that found nothing; recorded when a recorder is set on
    /// this thread.
    @usableFromInline
    static func noteMissing<T>(_ type: T.Type) {
        guard running.load(ordering: .relaxed) != 0 else { return }
        let context = BuildChain.current
        context.recorder?.noteMissing(named: typeName(type), context: context)
    }
}

/// The same for `validateAsync()`'s `AsyncValidationRun`, shared by the
/// tasks of one run (`BuildRecording.asyncRecorder`): the async builds
/// report to it the resolves and misses of their factories and the cycles
/// they meet.
@usableFromInline
protocol AsyncBuildRecorder: AnyObject, Sendable {
    /// The factory named `from` resolved the type named `to` (`missing`:
    /// and found no registration).
    func noteResolve(from: String, to: String, missing: Bool)

    /// A cycle met while recording: the factory it is thrown into may
    /// swallow it (`try?`) and still return, so it is recorded where found.
    func noteCycle(_ error: DIError)
}

extension BuildRecording {
    @TaskLocal static var asyncRecorder: (any AsyncBuildRecorder)?

    /// An async resolve of `type`, made by the factory on top of the task's
    /// chain (`missing`: one that found nothing).
    static func noteAsyncResolve(of type: Any.Type, missing: Bool) {
        guard let recorder = asyncRecorder, let from = AsyncChain.links.last?.name else { return }
        recorder.noteResolve(from: from, to: typeName(type), missing: missing)
    }

    /// `error` as it is thrown, recorded when it is a cycle met while an
    /// async recorder is set. Off a validation the cost is one task-local
    /// read, on the cycle path only.
    static func notedAsync(_ error: DIError) -> DIError {
        if case .circularDependency = error, let recorder = asyncRecorder {
            recorder.noteCycle(error)
        }
        return error
    }
}
