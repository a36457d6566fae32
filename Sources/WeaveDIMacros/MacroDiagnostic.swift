import SwiftDiagnostics

/// Every error the WeaveDI macros report. The messages name the fix, because the
/// generated code is invisible to most users and the diagnostic is all they see.
enum MacroDiagnostic: DiagnosticMessage {
    case componentNotStructOrClass(introducer: String)
    case provideNotOnVariable
    case provideOnStaticProperty
    case provideMultipleBindings
    case provideMissingName
    case provideMissingTypeAnnotation(name: String)
    case provideMissingInitializer(name: String)
    case provideUnknownArgument(label: String)
    case provideInvalidScope(expression: String)
    case provideInvalidName(expression: String)
    case providerCycle(chain: [String])
    case dependencyGraphNotALiteral
    case dependencyGraphNotAType(expression: String)
    case dependencyGraphCycle(chain: [String])

    var message: String {
        switch self {
        case .componentNotStructOrClass(let introducer):
            let article = introducer.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            return "@Component can only be applied to a struct or a class, not to \(article) \(introducer)"
        case .provideNotOnVariable:
            return "@Provide can only be applied to a stored property"
        case .provideOnStaticProperty:
            return "@Provide cannot be applied to a static property; @Component generates the static accessor itself"
        case .provideMultipleBindings:
            return "@Provide must declare exactly one property; split this declaration into one property per line"
        case .provideMissingName:
            return "@Provide needs a simple property name, not a tuple or wildcard pattern"
        case .provideMissingTypeAnnotation(let name):
            return
                "@Provide property '\(name)' needs an explicit type annotation, such as 'var \(name): MyService = MyServiceImpl()'; the type is the key it is registered under"
        case .provideMissingInitializer(let name):
            return "@Provide property '\(name)' needs an initializer expression; it becomes the registration's factory"
        case .provideUnknownArgument(let label):
            return
                "@Provide does not take an argument labelled '\(label)'; the arguments are the scope, as '.singleton' or 'scope: .singleton', and 'name:'"
        case .provideInvalidScope(let expression):
            return "'\(expression)' is not a scope; use .transient, .singleton, .weak, .task or .graph"
        case .provideInvalidName(let expression):
            return "'\(expression)' is not a registration name; write it as a string literal, such as name: \"replica\""
        case .providerCycle(let chain):
            return "@Provide properties depend on each other in a cycle: \(chain.joined(separator: " -> "))"
        case .dependencyGraphNotALiteral:
            return
                "@DependencyGraph needs a dictionary literal of types to arrays of types, such as [UserService.self: [Database.self], Database.self: []], so the graph can be checked at compile time"
        case .dependencyGraphNotAType(let expression):
            return "'\(expression)' is not a type in @DependencyGraph; name each type as 'SomeType.self'"
        case .dependencyGraphCycle(let chain):
            return "@DependencyGraph has a circular dependency: \(chain.joined(separator: " -> "))"
        }
    }

    var diagnosticID: MessageID {
        MessageID(domain: "WeaveDIMacros", id: caseName)
    }

    var severity: DiagnosticSeverity { .error }

    private var caseName: String {
        switch self {
        case .componentNotStructOrClass: return "componentNotStructOrClass"
        case .provideNotOnVariable: return "provideNotOnVariable"
        case .provideOnStaticProperty: return "provideOnStaticProperty"
        case .provideMultipleBindings: return "provideMultipleBindings"
        case .provideMissingName: return "provideMissingName"
        case .provideMissingTypeAnnotation: return "provideMissingTypeAnnotation"
        case .provideMissingInitializer: return "provideMissingInitializer"
        case .provideUnknownArgument: return "provideUnknownArgument"
        case .provideInvalidScope: return "provideInvalidScope"
        case .provideInvalidName: return "provideInvalidName"
        case .providerCycle: return "providerCycle"
        case .dependencyGraphNotALiteral: return "dependencyGraphNotALiteral"
        case .dependencyGraphNotAType: return "dependencyGraphNotAType"
        case .dependencyGraphCycle: return "dependencyGraphCycle"
        }
    }
}
