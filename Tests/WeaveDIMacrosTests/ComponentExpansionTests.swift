// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ComponentExpansionTests: XCTestCase {
    /// The guide's sample: `service` names `repository` in its initializer.
    func testSeedSampleExpansion() {
        assertMacroExpansion(
            """
            @Component
            struct UserComponent {
              @Provide var repository: UserRepository = UserRepositoryImpl()
              @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: repository)
            }
            """,
            expandedSource: """
                struct UserComponent {
                  var repository: UserRepository = UserRepositoryImpl()
                  var service: UserService = UserServiceImpl(repository: repository)

                    static var repository: UserRepository {
                        _weaveDIResolve_repository(from: WeaveDI.Container.live)
                    }

                    static var service: UserService {
                        _weaveDIResolve_service(from: WeaveDI.Container.live)
                    }

                    private static func _weaveDIResolve_repository(from container: WeaveDI.Container) -> UserRepository {
                        container.resolve(UserRepository.self) ?? _weaveDIMake_repository(in: container)
                    }

                    private static func _weaveDIMake_repository(in container: WeaveDI.Container) -> UserRepository {
                        UserRepositoryImpl()
                    }

                    private static func _weaveDIResolve_service(from container: WeaveDI.Container) -> UserService {
                        container.resolve(UserService.self) ?? _weaveDIMake_service(in: container)
                    }

                    private static func _weaveDIMake_service(in container: WeaveDI.Container) -> UserService {
                        UserServiceImpl(repository: _weaveDIResolve_repository(from: container))
                    }

                    static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    static func registerAll(into container: WeaveDI.Container) {
                        container.register(UserRepository.self, scope: .transient) {
                            _weaveDIMake_repository(in: container)
                        }
                        container.register(UserService.self, scope: .singleton) {
                            _weaveDIMake_service(in: container)
                        }
                    }
                }
                """,
            macros: weaveDIMacros
        )
    }

    /// A public component on a class: `registerAll` and the public provider's
    /// accessor must be public too, or callers outside the module cannot use them.
    func testPublicClassComponentKeepsAccessLevels() {
        assertMacroExpansion(
            """
            @Component
            public final class AppComponent {
                @Provide public var clock: any Clock = SystemClock()
                @Provide private var seed: Int = 7
            }
            """,
            expandedSource: """
                public final class AppComponent {
                    public var clock: any Clock = SystemClock()
                    private var seed: Int = 7

                    public static var clock: any Clock {
                        _weaveDIResolve_clock(from: WeaveDI.Container.live)
                    }

                    private static var seed: Int {
                        _weaveDIResolve_seed(from: WeaveDI.Container.live)
                    }

                    private static func _weaveDIResolve_clock(from container: WeaveDI.Container) -> any Clock {
                        container.resolve((any Clock).self) ?? _weaveDIMake_clock(in: container)
                    }

                    private static func _weaveDIMake_clock(in container: WeaveDI.Container) -> any Clock {
                        SystemClock()
                    }

                    private static func _weaveDIResolve_seed(from container: WeaveDI.Container) -> Int {
                        container.resolve(Int.self) ?? _weaveDIMake_seed(in: container)
                    }

                    private static func _weaveDIMake_seed(in container: WeaveDI.Container) -> Int {
                        7
                    }

                    public static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    public static func registerAll(into container: WeaveDI.Container) {
                        container.register((any Clock).self, scope: .transient) {
                            _weaveDIMake_clock(in: container)
                        }
                        container.register(Int.self, scope: .transient) {
                            _weaveDIMake_seed(in: container)
                        }
                    }
                }
                """,
            macros: weaveDIMacros
        )
    }

    /// A component without providers still gets both entry points, so calling
    /// `registerAll()` on it compiles.
    func testComponentWithoutProviders() {
        assertMacroExpansion(
            """
            @Component
            struct Empty {
                var notAProvider = 1
            }
            """,
            expandedSource: """
                struct Empty {
                    var notAProvider = 1

                    static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    static func registerAll(into container: WeaveDI.Container) {
                    }
                }
                """,
            macros: weaveDIMacros
        )
    }

    /// Mentions of other providers are rewritten to read the container being
    /// registered into; other uses of the same names are left alone.
    func testOnlyProviderMentionsAreRewritten() {
        let expansion = Expansion(
            """
            @Component
            struct Services {
                @Provide var repository: Repository = RepositoryImpl()
                @Provide var cache: Cache = Cache(repository: repository, config: config.repository, other: Self.repository, again: Services.repository, label: Other.repository, path: \\Settings.repository)
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.factoryBody(of: "cache"),
            "Cache(repository: _weaveDIResolve_repository(from: container), config: config.repository, "
                + "other: _weaveDIResolve_repository(from: container), again: _weaveDIResolve_repository(from: container), "
                + "label: Other.repository, path: \\Settings.repository)"
        )
    }

    /// A provider used inside a closure in another initializer is still resolved
    /// from the container, and still counts as a dependency.
    func testMentionInsideClosureIsRewritten() {
        let expansion = Expansion(
            """
            @Component
            struct Services {
                @Provide var names: [String] = ids.map { "user-\\($0)" }
                @Provide var ids: [Int] = [1, 2]
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.factoryBody(of: "names"),
            #"""
            _weaveDIResolve_ids(from: container).map {
            "user-\($0)"
            }
            """#
        )
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register([Int].self, scope: .transient)",
                "container.register([String].self, scope: .transient)",
            ])
    }
}
#endif
