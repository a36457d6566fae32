/// The instance a `@WeakLazyInjected` property read first, held weakly.
/// Written in `init` only, so concurrent readers load a weak reference that
/// nothing writes.
@usableFromInline
package final class WeakFirstRead: @unchecked Sendable {
    @usableFromInline weak var object: AnyObject?

    @usableFromInline init(_ object: AnyObject) {
        self.object = object
    }
}
