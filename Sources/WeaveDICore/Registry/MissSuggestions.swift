/// What a miss's message suggests: registered types that look close to the
/// one asked. The search reads containers (`NearMiss`,
/// API/Diagnostics/MissingDependencyReport.swift), so it is installed from
/// there when the first root container is made; before that nothing is
/// registered anywhere and a miss suggests nothing.
@usableFromInline
enum MissSuggestions {
    struct Search: Sendable {
        /// Suggestions for a type known by its name only (`DIError`).
        let forName: @Sendable (String) -> [String]
        /// Suggestions for `type` asked of the task's live container.
        let forType: @Sendable (Any.Type) -> [String]
    }

    private static let installed = Locked<Search?>(nil)

    static func install(_ search: Search) {
        installed.withLock { $0 = search }
    }

    static func suggestions(forName name: String) -> [String] {
        installed.withLock { $0 }?.forName(name) ?? []
    }

    static func suggestions(for type: Any.Type) -> [String] {
        installed.withLock { $0 }?.forType(type) ?? []
    }
}
