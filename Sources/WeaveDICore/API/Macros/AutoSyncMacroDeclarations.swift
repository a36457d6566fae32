#if Macros && SwiftDependencies
/// Adds, for each computed property of an extension of `DependencyValues`
/// or `InjectedValues` whose getter reads `self[SomeKey.self]`, a property
/// named with a `Sync` suffix that reads and writes the key in sync with
/// the other library (`self[autoSync: SomeKey.self]`).
///
/// ```swift
/// @AutoSyncExtension
/// extension DependencyValues {
///     var userService: any UserService {
///         get { self[UserServiceKey.self] }
///         set { self[UserServiceKey.self] = newValue }
///     }
/// }
///
/// @Dependency(\.userServiceSync) var service   // WeaveDI's registration, if any
/// withDependencies { $0.userServiceSync = MockUserService() } operation: {
///     UnifiedDI.resolve((any UserService).self)  // the mock, in this scope only
/// }
/// ```
///
/// The original properties are left as they are. A property whose getter
/// reads no key gets no `Sync` twin, with a warning. Needs the `Macros` and
/// `SwiftDependencies` traits (both on by default).
@attached(member, names: arbitrary)
public macro AutoSyncExtension() = #externalMacro(module: "WeaveDIMacroExpansions", type: "AutoSyncExtensionMacro")

/// Adds to an extension of `DependencyValues` or `InjectedValues` one
/// property that reads and writes `key` in sync with the other library,
/// named after the key without its `Key` suffix.
///
/// ```swift
/// @GenerateAutoSync(key: UserServiceKey.self, type: (any UserService).self)
/// extension DependencyValues {}
///
/// @Dependency(\.userService) var service
/// ```
///
/// - Parameters:
///   - key: The key type, written `SomeKey.self`.
///   - type: The property's type, the key's value type, written `Service.self`.
@attached(member, names: arbitrary)
public macro GenerateAutoSync(key: Any.Type, type: Any.Type) =
    #externalMacro(module: "WeaveDIMacroExpansions", type: "GenerateAutoSyncMacro")
#endif
