/// Callbacks installed from outside the core to hear of registrations,
/// resolves and misses: upstream's `OptimizationHooks.trackRegistration`,
/// `trackResolution` and `handleNilResolution` are these.
///
/// None costs the lock-free read anything: a registration and a miss
/// already load one flag for debug logging, which is also set while a
/// registration or miss callback is installed (`DILog`); a resolve is heard
/// only while a resolve callback is installed, through the counting read
/// (`ResolveStatistics`), which then bypasses the shared cache as `stats()`
/// does.
package enum RegistryObservers {
    package struct Callbacks: Sendable {
        package var registered: (@Sendable (Any.Type) -> Void)?
        package var resolved: (@Sendable (Any.Type) -> Void)?
        package var missed: (@Sendable (Any.Type) -> Void)?
        /// Whether `registered` and `resolved` are called (upstream's
        /// `WeaveDIConfiguration.enableOptimizerTracking`); `missed` always is.
        package var tracking = true

        var hearsRegistrationsOrMisses: Bool { (tracking && registered != nil) || missed != nil }
        var hearsResolves: Bool { tracking && resolved != nil }
    }

    private static let installed = Locked(Callbacks())

    package static var current: Callbacks { installed.withLock { $0 } }

    /// Changes the callbacks, then the flag the registration and miss paths
    /// read (the counting read is its caller's: `ResolveStatistics`).
    package static func update(_ change: (inout Callbacks) -> Void) {
        installed.withLock { change(&$0) }
        DILog.refreshSlowPath()
    }
}
