// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import XCTest

final class RegistrationOrderTests: XCTestCase {
    /// The documented `@Component` sample with its properties swapped: `repository` must still be
    /// registered before `service`, which uses it.
    func testReversedDeclarationOrderRegistersDependencyFirst() {
        let expansion = Expansion(
            """
            @Component
            struct UserComponent {
              @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: repository)
              @Provide var repository: UserRepository = UserRepositoryImpl()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(UserRepository.self, scope: .transient)",
                "container.register(UserService.self, scope: .singleton)",
            ])
    }

    /// A chain declared back to front, with an unrelated provider in between:
    /// dependencies come first, and independent providers keep declaration order.
    func testChainDeclaredBackwardsIsRegisteredForwards() {
        let expansion = Expansion(
            """
            @Component
            struct Chain {
                @Provide var c: C = C(b: b)
                @Provide var standalone: Standalone = Standalone()
                @Provide var b: B = B(a: a)
                @Provide var a: A = A()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(A.self, scope: .transient)",
                "container.register(B.self, scope: .transient)",
                "container.register(C.self, scope: .transient)",
                "container.register(Standalone.self, scope: .transient)",
            ])
    }

    /// A provider with two dependencies, one of which also needs the other.
    func testDiamondRegistersSharedDependencyOnce() {
        let expansion = Expansion(
            """
            @Component
            struct Diamond {
                @Provide var top: Top = Top(left: left, right: right)
                @Provide var right: Right = Right(base: base)
                @Provide var left: Left = Left(base: base)
                @Provide var base: Base = Base()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(Base.self, scope: .transient)",
                "container.register(Left.self, scope: .transient)",
                "container.register(Right.self, scope: .transient)",
                "container.register(Top.self, scope: .transient)",
            ])
    }

    /// Qualified mentions (`Self.x`, `TypeName.x`) are dependencies as well.
    func testQualifiedMentionsAreDependencies() {
        let expansion = Expansion(
            """
            @Component
            struct Qualified {
                @Provide var first: First = First(second: Self.second, third: Qualified.third)
                @Provide var second: Second = Second()
                @Provide var third: Third = Third()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(Second.self, scope: .transient)",
                "container.register(Third.self, scope: .transient)",
                "container.register(First.self, scope: .transient)",
            ])
    }

    /// `other.name` is a member of another value, not the provider `name`.
    func testMemberOfAnotherValueIsNotADependency() {
        let expansion = Expansion(
            """
            @Component
            struct Members {
                @Provide var label: String = settings.name
                @Provide var name: String = "n"
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(expansion.factoryBody(of: "label"), "settings.name")
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(String.self, scope: .transient)",
                "container.register(String.self, scope: .transient)",
            ])
        XCTAssertLessThan(
            try XCTUnwrap(expansion.source.range(of: "_weaveDIMake_label(in: container)\n")).lowerBound,
            try XCTUnwrap(expansion.source.range(of: "_weaveDIMake_name(in: container)\n")).lowerBound,
            "without a dependency, declaration order is kept"
        )
    }
}
#endif
