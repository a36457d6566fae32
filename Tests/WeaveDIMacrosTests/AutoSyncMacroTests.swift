// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import WeaveDIMacroExpansions
import XCTest

private let autoSyncMacros: [String: any Macro.Type] = [
    "AutoSyncExtension": AutoSyncExtensionMacro.self,
    "GenerateAutoSync": GenerateAutoSyncMacro.self,
]

final class AutoSyncExtensionExpansionTests: XCTestCase {
    func testDependencyValuesPropertiesGetSyncTwins() {
        assertMacroExpansion(
            """
            @AutoSyncExtension
            extension DependencyValues {
                public var userService: any UserService {
                    get { self[UserServiceKey.self] }
                    set { self[UserServiceKey.self] = newValue }
                }
                var clock: Clock {
                    self[ClockKey.self]
                }
            }
            """,
            expandedSource: """
                extension DependencyValues {
                    public var userService: any UserService {
                        get { self[UserServiceKey.self] }
                        set { self[UserServiceKey.self] = newValue }
                    }
                    var clock: Clock {
                        self[ClockKey.self]
                    }

                    public var userServiceSync: any UserService {
                        get {
                            self[autoSync: UserServiceKey.self]
                        }
                        set {
                            self[autoSync: UserServiceKey.self] = newValue
                        }
                    }

                    var clockSync: Clock {
                        self[autoSync: ClockKey.self]
                    }
                }
                """,
            macros: autoSyncMacros
        )
    }

    func testInjectedValuesWithQualifiedKey() {
        assertMacroExpansion(
            """
            @AutoSyncExtension
            extension WeaveDI.InjectedValues {
                fileprivate var api: APIClient {
                    get { self[Keys.APIClientKey.self] }
                    set { self[Keys.APIClientKey.self] = newValue }
                }
                static var ignored: Int { 0 }
                var stored = 0
            }
            """,
            expandedSource: """
                extension WeaveDI.InjectedValues {
                    fileprivate var api: APIClient {
                        get { self[Keys.APIClientKey.self] }
                        set { self[Keys.APIClientKey.self] = newValue }
                    }
                    static var ignored: Int { 0 }
                    var stored = 0

                    fileprivate var apiSync: APIClient {
                        get {
                            self[autoSync: Keys.APIClientKey.self]
                        }
                        set {
                            self[autoSync: Keys.APIClientKey.self] = newValue
                        }
                    }
                }
                """,
            macros: autoSyncMacros
        )
    }

    func testPropertyWithoutKeyReadIsSkippedWithAWarning() {
        assertMacroExpansion(
            """
            @AutoSyncExtension
            extension DependencyValues {
                var computed: Int {
                    get { 42 }
                    set {}
                }
            }
            """,
            expandedSource: """
                extension DependencyValues {
                    var computed: Int {
                        get { 42 }
                        set {}
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'computed' reads no 'self[SomeKey.self]' in its getter, so @AutoSyncExtension "
                        + "generates no 'computedSync' for it",
                    line: 3,
                    column: 9,
                    severity: .warning
                )
            ],
            macros: autoSyncMacros
        )
    }

    func testOnAStructIsAnError() {
        assertMacroExpansion(
            """
            @AutoSyncExtension
            struct Services {
                var userService: UserService { self[UserServiceKey.self] }
            }
            """,
            expandedSource: """
                struct Services {
                    var userService: UserService { self[UserServiceKey.self] }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@AutoSyncExtension can only be applied to an extension of DependencyValues or "
                        + "InjectedValues, not to a struct",
                    line: 1,
                    column: 1
                )
            ],
            macros: autoSyncMacros
        )
    }

    func testOnAnExtensionOfAnotherTypeIsAnError() {
        assertMacroExpansion(
            """
            @AutoSyncExtension
            extension EnvironmentValues {
                var userService: UserService { self[UserServiceKey.self] }
            }
            """,
            expandedSource: """
                extension EnvironmentValues {
                    var userService: UserService { self[UserServiceKey.self] }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@AutoSyncExtension can only be applied to an extension of DependencyValues or "
                        + "InjectedValues, not of 'EnvironmentValues'",
                    line: 1,
                    column: 1
                )
            ],
            macros: autoSyncMacros
        )
    }
}

final class GenerateAutoSyncExpansionTests: XCTestCase {
    func testGeneratesOnePropertyNamedAfterTheKey() {
        assertMacroExpansion(
            """
            @GenerateAutoSync(key: MyServiceKey.self, type: (any MyService).self)
            extension DependencyValues {
            }
            """,
            expandedSource: """
                extension DependencyValues {

                    var myService: (any MyService) {
                        get {
                            self[autoSync: MyServiceKey.self]
                        }
                        set {
                            self[autoSync: MyServiceKey.self] = newValue
                        }
                    }
                }
                """,
            macros: autoSyncMacros
        )
    }

    func testKeyWithoutSuffixIsLowercased() {
        assertMacroExpansion(
            """
            @GenerateAutoSync(key: Module.UserRepository.self, type: UserRepository.self)
            extension InjectedValues {}
            """,
            expandedSource: """
                extension InjectedValues {

                    var userRepository: UserRepository {
                        get {
                            self[autoSync: Module.UserRepository.self]
                        }
                        set {
                            self[autoSync: Module.UserRepository.self] = newValue
                        }
                    }
                }
                """,
            macros: autoSyncMacros
        )
    }

    func testOnAClassIsAnError() {
        assertMacroExpansion(
            """
            @GenerateAutoSync(key: MyServiceKey.self, type: MyService.self)
            class Holder {}
            """,
            expandedSource: """
                class Holder {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@GenerateAutoSync can only be applied to an extension of DependencyValues or "
                        + "InjectedValues, not to a class",
                    line: 1,
                    column: 1
                )
            ],
            macros: autoSyncMacros
        )
    }

    func testArgumentThatIsNotATypeIsAnError() {
        assertMacroExpansion(
            """
            @GenerateAutoSync(key: keyType, type: MyService.self)
            extension DependencyValues {}
            """,
            expandedSource: """
                extension DependencyValues {}
                """,
            diagnostics: [
                DiagnosticSpec(message: "'key:' takes a type, such as 'UserServiceKey.self'", line: 1, column: 24)
            ],
            macros: autoSyncMacros
        )
    }
}
#endif
