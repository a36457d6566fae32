import CWeaveRegistry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The registrations whose factories are running on the current thread, outermost
/// first. Factories are synchronous, so a thread (not a task) is the right
/// owner: it is how a cycle is caught before it can recurse without end.
@usableFromInline
final class BuildChain {
    /// Deeper than any real object graph; guards against runaway recursion
    /// that never repeats a type (a factory building ever-new generic types).
    static let maximumDepth = 256

    /// The registrations being built here and their types, outermost
    /// first: one array, so a build pushes and pops once.
    @usableFromInline struct Frame {
        @usableFromInline let key: ObjectIdentifier
        @usableFromInline let type: Any.Type
    }

    // One thread owns this object: no dynamic exclusivity checks needed.
    @exclusivity(unchecked) @usableFromInline private(set) var frames: [Frame] = []
    @usableFromInline var types: [Any.Type] { frames.map(\.type) }
    /// The first cycle met since the outermost factory started; every
    /// instance built while it is set was built on a missing dependency.
    @exclusivity(unchecked) @usableFromInline var cycle: String?
    /// The kind of the registration whose factory is running here, if any.
    @exclusivity(unchecked) @usableFromInline var buildingKind: AnyRegistryEntry.Kind?
    /// Set while `validate()` runs on this thread.
    @exclusivity(unchecked) @usableFromInline var recorder: (any BuildRecorder)?
    /// The `InjectedKey`s whose defaults are being evaluated, outermost first.
    @exclusivity(unchecked) var evaluatingDefaults: [(id: ObjectIdentifier, name: String)] = []

    /// The `.graph` instances built since the outermost factory on this
    /// thread started, by registration. Only this thread reads or writes it
    /// (the chain is the thread's), so two outermost resolves on two threads
    /// never share an instance; `pop` empties it when the outermost factory
    /// returns, so the next outermost resolve never sees one.
    /// Each instance with its registration, held until the graph ends: a
    /// registration freed mid-build cannot leave its address to another
    /// whose lookup would find this instance.
    typealias GraphInstance = (registration: AnyObject, value: Any)
    @exclusivity(unchecked) var graphInstances: [ObjectIdentifier: GraphInstance] = [:]
    /// Whether `graphInstances` holds anything: what `pop` reads, one byte,
    /// so a build without a `.graph` registration pays a load and a branch.
    @exclusivity(unchecked) @usableFromInline var holdsGraph = false

    @usableFromInline var isEmpty: Bool { frames.isEmpty }

    /// Returns the cycle's chain when `registration` is already being built here.
    @usableFromInline func chainIfCycle(registration: ObjectIdentifier, type: Any.Type) -> String? {
        if let start = frames.firstIndex(where: { $0.key == registration }) {
            return (frames[start...].map { typeName($0.type) } + [typeName(type)]).joined(separator: " -> ")
        }
        if frames.count >= Self.maximumDepth {
            return (frames.map { typeName($0.type) } + [typeName(type)]).joined(separator: " -> ")
                + " (deeper than \(Self.maximumDepth))"
        }
        return nil
    }

    @usableFromInline func push(registration: ObjectIdentifier, type: Any.Type) {
        frames.append(Frame(key: registration, type: type))
    }

    @usableFromInline func pop() {
        frames.removeLast()
        if holdsGraph && frames.isEmpty {
            endGraph()
        }
    }

    /// The outermost factory returned: its graph's instances go.
    @usableFromInline @inline(never)
    func endGraph() {
        graphInstances = [:]
        holdsGraph = false
    }

    /// The instance of the `.graph` registration `registration` this build
    /// already made, if any.
    @usableFromInline func graphInstance(of registration: AnyObject) -> Any? {
        guard let kept = graphInstances[ObjectIdentifier(registration)], kept.registration === registration else {
            return nil
        }
        return kept.value
    }

    /// Keeps `instance` for the rest of this build; nothing is kept outside
    /// one (a `.graph` registration resolved alone is a transient).
    @usableFromInline func keepGraphInstance(_ instance: Any, of registration: AnyObject) {
        if !frames.isEmpty {
            graphInstances[ObjectIdentifier(registration)] = (registration, instance)
            holdsGraph = true
        }
    }

    /// This chain (one per thread) as a holder's claim word (`InstanceHolder`): the object's
    /// address, whose low bit is free for `InstanceHolder.waitersFlag`.
    @inlinable @inline(__always)
    static func claimWord(of context: Unmanaged<BuildChain>) -> UInt {
        UInt(bitPattern: context.toOpaque())
    }

    /// This thread's chain. Read from a C thread-local; the pthread key
    /// only releases it when the thread exits.
    @usableFromInline static var current: BuildChain {
        currentUnmanaged.takeUnretainedValue()
    }

    /// The same, not retained: the thread keeps its chain alive, so code
    /// running on it may use it through `_withUnsafeGuaranteedRef` and pay
    /// no reference counting (every build reads it twice).
    @inlinable @inline(__always)
    static var currentUnmanaged: Unmanaged<BuildChain> {
        if let raw = weave_thread_context() {
            return Unmanaged.fromOpaque(raw)
        }
        return Unmanaged.passUnretained(makeCurrent())
    }

    @usableFromInline @inline(never)
    static func makeCurrent() -> BuildChain {
        let context = BuildChain()
        let raw = Unmanaged.passRetained(context).toOpaque()
        pthread_setspecific(threadKey, raw)
        weave_set_thread_context(raw)
        return context
    }
}

private let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    pthread_key_create(&key) { raw in
        weave_set_thread_context(nil)
        Unmanaged<BuildChain>.fromOpaque(raw).release()
    }
    #else
    pthread_key_create(&key) { raw in
        weave_set_thread_context(nil)
        if let raw { Unmanaged<BuildChain>.fromOpaque(raw).release() }
    }
    #endif
    return key
}()
