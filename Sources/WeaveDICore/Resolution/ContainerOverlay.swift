import CWeaveRegistry

/// The overlays. Those alive anywhere are counted in the read-mode word
/// (`weave_read_mode`, its high half): while it says none, a read of the
/// live container skips the task-local lookup entirely.
@usableFromInline
enum ContainerOverlays {
    /// The innermost overlay of the current task.
    @TaskLocal static var current: ContainerOverlayBinding?

    @inlinable @inline(__always)
    static var noneActive: Bool { weave_read_mode() & ~WEAVE_READ_MODE_COUNTING < WEAVE_READ_MODE_ONE_OVERLAY }

    /// The registry a live read of the current task goes to: its overlay's,
    /// or nil for the live container itself.
    @usableFromInline @inline(never)
    static func currentRegistry() -> Registry? {
        current?.ownRegistry
    }
}

/// What the task-local holds: the overlay's registry, the instances built
/// inside it, and the count of overlays alive, which stays up while any
/// task that inherited the binding can still read through it (not just
/// until the operation returns). Counting it as an override scope too keeps
/// `@Injected`'s shared cache out of the way of reads made inside it. Made
/// as a `ContainerOverlay` (API/Container), which adds the container.
class ContainerOverlayBinding: ScopedInstances, @unchecked Sendable {
    init(registry: Registry) {
        super.init(owning: registry, enclosingOverride: InjectedValues.task.innermostScope)
        weave_read_mode_overlay_began()
    }

    deinit {
        weave_read_mode_overlay_ended()
    }
}
