/// A result builder collecting ``Element``s into an array: each statement
/// gives an array (the conforming builder's `buildExpression`), and a
/// block, a loop, an `if`, an `if`-`else`, a `switch` and an
/// `if #available` join those arrays in order. The extension writes these
/// once for ``ModuleBuilder``, ``DependencyBuilder`` and
/// ``EasyScopeBuilder``; each names its ``Element`` and declares its
/// `buildExpression`.
///
/// ```swift
/// @resultBuilder
/// enum NameBuilder: ArrayResultBuilder {
///     typealias Element = String
///     static func buildExpression(_ expression: String) -> [String] { [expression] }
/// }
/// ```
public protocol ArrayResultBuilder {
    /// What the builder collects.
    associatedtype Element
}

extension ArrayResultBuilder {
    /// The elements of a block, in order.
    public static func buildBlock(_ components: [Element]...) -> [Element] {
        components.flatMap { $0 }
    }

    /// The elements of every pass of a `for` loop.
    public static func buildArray(_ components: [[Element]]) -> [Element] {
        components.flatMap { $0 }
    }

    /// An `if` without `else`: nothing when the condition is false.
    public static func buildOptional(_ component: [Element]?) -> [Element] {
        component ?? []
    }

    /// The first branch of an `if`-`else` or `switch`.
    public static func buildEither(first component: [Element]) -> [Element] {
        component
    }

    /// The second branch of an `if`-`else` or `switch`.
    public static func buildEither(second component: [Element]) -> [Element] {
        component
    }

    /// An `if #available` branch.
    public static func buildLimitedAvailability(_ component: [Element]) -> [Element] {
        component
    }
}
