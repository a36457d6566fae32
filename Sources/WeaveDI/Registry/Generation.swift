import Synchronization

/// Bumped by every change that can alter what a lookup returns: any
/// registration, release, clear or container swap. A cached read is valid
/// while the number it was stamped with is still current.
@usableFromInline
enum RegistryGeneration {
    @usableFromInline
    static let counter = Atomic<UInt64>(1)

    @inlinable @inline(__always)
    static var current: UInt64 { counter.load(ordering: .acquiring) }

    static func advance() {
        counter.add(1, ordering: .sequentiallyConsistent)
    }
}
