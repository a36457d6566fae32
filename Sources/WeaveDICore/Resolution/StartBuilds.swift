extension AnyRegistryEntry {
    /// Builds a singleton's instance for `start(timeout:)`, in a build no
    /// waiter owns, so that a wait that times out can stop waiting. An
    /// instance registered built has nothing to build.
    func buildForStart() async throws {
        guard case .lazy = kind else { return }
        try await _openExistential(type, do: startBuild)(lazy)
    }
}

extension LazyEntry {
    func buildForStart<T>(as type: T.Type) async throws {
        if makeAsync != nil {
            _ = try await Resolver.buildAsync(self, as: T.self)
            return
        }
        // Inside an override scope or overlay the scope keeps what is built
        // (`OverrideScopes`), so it must not reach the registration's holder.
        if !OverrideScopes.noneActive, OverrideScopes.keeper(of: self) != nil {
            _ = try Resolver.build(self, as: T.self)
            return
        }
        // A synchronous factory, run in a flight: its build goes through the
        // holder's claim as any resolve's does, so it still runs once. The
        // flight's own link leaves the chain first: the synchronous build
        // names this registration itself.
        _ = try await valueOfAsyncBuild(registration: ObjectIdentifier(self)) {
            try AsyncChain.$links.withValue(AsyncChain.links.dropLast()) { try Resolver.build(self, as: T.self) }
        }
    }
}

private func startBuild<V>(_ type: V.Type) -> (LazyEntry) async throws -> Void {
    { entry in try await entry.buildForStart(as: V.self) }
}
