/// How long a registered dependency lives.
public enum ProvideScope: Sendable, Hashable, CaseIterable {
    /// A new instance on every resolve.
    case transient
    /// One instance per container, created on first resolve.
    case singleton
    /// Shared while someone holds a strong reference, created again after.
    /// Only class instances can be held weakly; a value type behaves as `.transient`.
    case weak
    /// One instance per `withTaskScope` (a server request), shared by its child tasks.
    case task
}
