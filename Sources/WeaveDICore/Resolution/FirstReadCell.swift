#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// What a `@LazyInjected` or `@WeakLazyInjected` property keeps: the box
/// holding its first read, published once and never replaced.
///
/// Publication is lock-free: each first reader builds its own box and
/// offers it with one compare-and-exchange; the one that finds the cell
/// empty wins, every other reader (and every later one) uses the winner's
/// box, and a loser's box is released. So all reads of one property answer
/// one value even when two threads read it first at once, and a read never
/// waits for another thread's resolve (a resolve that reads the same
/// property again, through a factory, cannot deadlock on it). Modelled in
/// IntegrationTests/Models/first_read.pml; forced in LazyInjectedTests.
///
/// Orderings (C11 terms): the winning exchange is a release, so a box's
/// initialised contents happen before any acquiring load that finds it;
/// readers load with acquire; a failed exchange acquires the winner's box
/// for the same reason. `deinit` runs when no other reference exists, so
/// its load needs no ordering beyond the acquire kept for uniformity.
@usableFromInline
package final class FirstReadCell<Box: AnyObject>: @unchecked Sendable {
    @usableFromInline let published = PlatformAtomic<UnsafeMutableRawPointer?>(nil)

    @usableFromInline init() {}

    deinit {
        if let raw = published.load(ordering: .acquiring) {
            Unmanaged<Box>.fromOpaque(raw).release()
        }
    }

    /// The published box's address, or nil before the first read finished.
    @inlinable @inline(__always)
    func current() -> UnsafeMutableRawPointer? {
        published.load(ordering: .acquiring)
    }

    /// Offers `candidate`; returns the published box's address: the
    /// candidate's when the cell was empty, else the earlier winner's.
    @usableFromInline
    func publish(_ candidate: Box) -> UnsafeMutableRawPointer {
        let raw = Unmanaged.passRetained(candidate).toOpaque()
        let (exchanged, original) = published.compareExchange(
            expected: nil, desired: raw, ordering: .acquiringAndReleasing)
        if exchanged {
            return raw
        }
        Unmanaged<Box>.fromOpaque(raw).release()
        return original!
    }
}
