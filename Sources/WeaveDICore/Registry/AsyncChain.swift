#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The async factories that led to the current task, outermost first (and,
/// in `AsyncFlight.current`, the build this task runs for). Task-locals: an async factory hops threads,
/// so the thread's `BuildChain` cannot carry its chain. Child tasks
/// (and the build task a waiter starts) inherit them.
///
/// A task a factory starts inherits them too, unstructured (`Task {}`) or
/// not: nothing tells the two apart. What is provable, and what the checks
/// below keep to:
/// - Once a factory has returned (or thrown), nothing it started can be
///   what it waits for, so its link and its flight no longer count: a task
///   it left running that resolves its registration later builds or waits
///   as any other task does, with no cycle.
/// - While it runs, a task it started that resolves its registration is
///   reported as a cycle. The factory may await that task (`await
///   task.value`): a singleton's would then wait for a build that waits
///   for it, and a transient's would recurse without end, and no wait the
///   library sees would show it. A task the factory does not await gets the
///   same error; it may resolve again once the factory has returned.
/// Tested by AsyncServiceTests and the two sanitize.sh mutants
/// (returned-link-counts, returned-at-start).
/// IntegrationTests/Models/async_returned.pml models a factory run that has returned,
/// with late loads of its flag (its mutants MUTANT_RETURNED_LINK_COUNTS and
/// MUTANT_MARK_AT_START are these two), and that a cycle a wait reports
/// runs only through builds still running (`AsyncFlight.path(to:)`).
@usableFromInline
enum AsyncChain {
    struct Link: Sendable {
        let registration: ObjectIdentifier
        let name: String
        /// The factory run this link stands for.
        let run: FactoryRun
    }

    @TaskLocal static var links: [Link] = []

    /// The chain's type names, for messages.
    static var names: [String] { links.map(\.name) }

    /// The cycle's chain when `registration` is already being built on this
    /// chain: it starts and ends with the repeated type.
    static func cycle(at registration: ObjectIdentifier, name: String) -> DIError? {
        let links = links
        guard let start = links.firstIndex(where: { $0.registration == registration && !$0.run.hasReturned })
        else { return nil }
        return .circularDependency(chain: (links[start...].map(\.name) + [name]).joined(separator: " -> "))
    }
}

/// One run of an async factory, for `AsyncChain`: whether it has returned.
/// The flag is written by the factory's task once and read by any task that
/// inherited the chain, with no other data published through it: a reader
/// that sees it late (still running) takes the conservative answer, a cycle.
@usableFromInline
class FactoryRun: @unchecked Sendable {
    private let returned = PlatformAtomic<Bool>(false)

    var hasReturned: Bool { returned.load(ordering: .acquiring) }

    func markReturned() { returned.store(true, ordering: .releasing) }
}
