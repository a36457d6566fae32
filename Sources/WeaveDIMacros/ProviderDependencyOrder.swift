/// Orders providers so that each one is registered after the providers its
/// initializer uses, and finds the cycles that make such an order impossible.
struct ProviderDependencyOrder {
    /// Indices into the providers, dependencies first. Ties keep declaration order,
    /// so the expansion is stable when unrelated properties are moved.
    let order: [Int]
    /// Each cycle as the names along it, its first name repeated at the end.
    let cycles: [[String]]

    /// - Parameter dependencies: for each provider, the indices of the providers
    ///   its initializer refers to, in the order they were first seen.
    init(names: [String], dependencies: [[Int]]) {
        var state = [VisitState](repeating: .unvisited, count: names.count)
        var path: [Int] = []
        var reportedCycles: Set<Set<Int>> = []
        var order: [Int] = []
        var cycles: [[String]] = []

        func visit(_ index: Int) {
            switch state[index] {
            case .done:
                return
            case .inProgress:
                // A back edge: the cycle is the part of the current path from `index` on.
                guard let start = path.firstIndex(of: index) else { return }
                let members = Array(path[start...])
                if reportedCycles.insert(Set(members)).inserted {
                    cycles.append((members + [index]).map { names[$0] })
                }
            case .unvisited:
                state[index] = .inProgress
                path.append(index)
                for dependency in dependencies[index] {
                    visit(dependency)
                }
                path.removeLast()
                state[index] = .done
                order.append(index)
            }
        }

        for index in names.indices {
            visit(index)
        }
        self.order = order
        self.cycles = cycles
    }

    private enum VisitState {
        case unvisited, inProgress, done
    }
}
