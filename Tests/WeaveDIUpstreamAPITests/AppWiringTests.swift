#if SwiftDependencies && Macros
import Dependencies
import WeaveDI
import XCTest

// The wiring of three public apps built on upstream WeaveDI 3.1 and 3.3
// (MusicBandscape, CurrencyConverter, MovieBooking; docs/upstream-tests.md,
// "Apps"), written the way those apps write it, with app-like types of our
// own. Each app: a use case keyed by a swift-dependencies `DependencyKey`
// or an `InjectedKey` whose `liveValue` registers its repository through
// `UnifiedDI.register`, `RegisterModule` extensions for the module lists,
// `WeaveDI.Container.registerRepositories()`/`registerUseCases()` declared
// by the app, and an `AppWeaveDI.Container` extension that launches
// `ModuleFactoryManager().registerAll(to:)` through
// `registerDependencies(logLevel:)`.

// MARK: - MusicBandscape's shape (3.3.1)

protocol BandSearchRepository: Sendable {
    func fetch(_ query: String) -> [String]
}

final class BandRemoteSearchRepository: BandSearchRepository {
    nonisolated init() {}
    func fetch(_ query: String) -> [String] { ["remote \(query)"] }
}

final class BandMockSearchRepository: BandSearchRepository {
    func fetch(_ query: String) -> [String] { ["mock \(query)"] }
}

protocol BandSearchUseCaseProtocol: Sendable {
    func search(_ query: String) -> [String]
}

struct BandSearchUseCase: BandSearchUseCaseProtocol {
    let repository: any BandSearchRepository
    nonisolated init(repository: any BandSearchRepository) { self.repository = repository }
    func search(_ query: String) -> [String] { repository.fetch(query) }
}

extension BandSearchUseCase: DependencyKey {
    static var liveValue: any BandSearchUseCaseProtocol {
        let repository = UnifiedDI.register(BandSearchRepository.self) {
            BandRemoteSearchRepository()
        }
        return BandSearchUseCase(repository: repository)
    }
    static var testValue: any BandSearchUseCaseProtocol { BandSearchUseCase(repository: BandMockSearchRepository()) }
}

@AutoSyncExtension
extension DependencyValues {
    var bandSearchUseCase: any BandSearchUseCaseProtocol {
        get { self[BandSearchUseCase.self] }
        set { self[BandSearchUseCase.self] = newValue }
    }
}

extension RegisterModule {
    var bandSearchUseCaseModule: @Sendable () -> Module {
        makeUseCaseWithRepository(
            BandSearchUseCaseProtocol.self,
            repositoryProtocol: BandSearchRepository.self,
            repositoryFallback: BandMockSearchRepository(),
            factory: { repository in BandSearchUseCase(repository: repository) }
        )
    }

    var bandSearchRepositoryModule: @Sendable () -> Module {
        makeDependency(BandSearchRepository.self) { BandRemoteSearchRepository() }
    }
}

/// The app's module lists (its DIRegistry.swift). They shadow WeaveDI's
/// empty hooks in this module only: `registerAll(to:)` never reaches them.
extension WeaveDI.Container {
    private static let helper = RegisterModule()

    static func registerRepositories() async {
        let repositories: [Module] = [helper.bandSearchRepositoryModule()]
        await repositories.asyncForEach { module in await module.register() }
    }

    static func registerUseCases() async {
        let useCases: [Module] = [helper.bandSearchUseCaseModule()]
        await useCases.asyncForEach { module in await module.register() }
    }
}

extension AppWeaveDI.Container {
    @DIContainerActor
    func registerBandscapeDependencies() async {
        await registerDependencies(logLevel: .errors) { container in
            let factory = ModuleFactoryManager()
            await factory.registerAll(to: container)
        }
    }
}

// MARK: - CurrencyConverter's shape (3.1.x): one protocol for the use case and its repository

protocol ExchangeRateInterface: Sendable {
    func rate(_ currency: String) -> Double?
}

final class ExchangeRepositoryImpl: ExchangeRateInterface {
    nonisolated init() {}
    func rate(_ currency: String) -> Double? { 1.5 }
}

final class MockExchangeRepositoryImpl: ExchangeRateInterface {
    nonisolated init() {}
    func rate(_ currency: String) -> Double? { nil }
}

struct ExchangeUseCaseImpl: ExchangeRateInterface {
    let repository: any ExchangeRateInterface
    nonisolated init(repository: any ExchangeRateInterface) { self.repository = repository }
    func rate(_ currency: String) -> Double? { repository.rate(currency) }
}

extension ExchangeUseCaseImpl: InjectedKey {
    static var liveValue: any ExchangeRateInterface {
        let repository: any ExchangeRateInterface = UnifiedDI.register(ExchangeRateInterface.self) {
            ExchangeRepositoryImpl()
        }
        return ExchangeUseCaseImpl(repository: repository)
    }
}

extension InjectedValues {
    var exchangeUseCase: any ExchangeRateInterface {
        get { self[ExchangeUseCaseImpl.self] }
        set { self[ExchangeUseCaseImpl.self] = newValue }
    }
}

extension RegisterModule {
    var exchangeUseCaseModule: @Sendable () -> Module {
        makeUseCaseWithRepository(
            ExchangeRateInterface.self,
            repositoryProtocol: ExchangeRateInterface.self,
            repositoryFallback: MockExchangeRepositoryImpl(),
            factory: { repository in ExchangeUseCaseImpl(repository: repository) }
        )
    }

    var exchangeRepositoryModule: @Sendable () -> Module {
        makeDependency(ExchangeRateInterface.self) { ExchangeRepositoryImpl() }
    }
}

/// What the app's `CurrencyReducer` holds.
struct CurrencyReads {
    @Injected(ExchangeUseCaseImpl.self) var exchangeUseCase
}

// MARK: - MovieBooking's shape (3.3.1): resolve-or-register in a stored liveValue

protocol BookingSessionRepositoryProtocol: Sendable {
    var name: String { get }
}

final class BookingSessionRepository: BookingSessionRepositoryProtocol {
    nonisolated init() {}
    var name: String { "supabase" }
}

final class MockBookingSessionRepository: BookingSessionRepositoryProtocol {
    nonisolated init() {}
    var name: String { "mock" }
}

protocol BookingSessionUseCaseProtocol: Sendable {
    var repositoryName: String { get }
}

struct BookingSessionUseCase: BookingSessionUseCaseProtocol {
    let repository: any BookingSessionRepositoryProtocol
    nonisolated init(repository: any BookingSessionRepositoryProtocol) { self.repository = repository }
    var repositoryName: String { repository.name }
}

extension BookingSessionUseCase: DependencyKey {
    static let liveValue: any BookingSessionUseCaseProtocol = {
        let repository =
            UnifiedDI.resolve(BookingSessionRepositoryProtocol.self)
            ?? UnifiedDI.register(BookingSessionRepositoryProtocol.self) {
                BookingSessionRepository()
            }
        return UnifiedDI.resolve(BookingSessionUseCaseProtocol.self)
            ?? UnifiedDI.register(BookingSessionUseCaseProtocol.self) {
                BookingSessionUseCase(repository: repository)
            }
    }()
    static var testValue: any BookingSessionUseCaseProtocol { liveValue }
}

@AutoSyncExtension
extension DependencyValues {
    var bookingSessionUseCase: any BookingSessionUseCaseProtocol {
        get { self[BookingSessionUseCase.self] }
        set { self[BookingSessionUseCase.self] = newValue }
    }
}

extension RegisterModule {
    var bookingSessionUseCaseModule: @Sendable () -> Module {
        makeUseCaseWithRepository(
            BookingSessionUseCaseProtocol.self,
            repositoryProtocol: BookingSessionRepositoryProtocol.self,
            repositoryFallback: MockBookingSessionRepository(),
            factory: { repository in BookingSessionUseCase(repository: repository) }
        )
    }

    var bookingSessionRepositoryModule: @Sendable () -> Module {
        makeDependency(BookingSessionRepositoryProtocol.self) { BookingSessionRepository() }
    }
}

/// What the app's `SplashFeature` reducer holds.
struct SplashReads {
    @Injected(BookingSessionUseCase.self) var sessionUseCase
}

// MARK: - Tests

final class AppWiringTests: XCTestCase {
    override func setUp() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
        UnifiedDI.resetLogConfiguration()
    }

    func testBandscapeLaunchSetsTheLevelAndReachesNoneOfTheAppsHooks() async {
        await AppWeaveDI.Container.shared.registerBandscapeDependencies()

        XCTAssertEqual(UnifiedDI.logLevel, .errors)
        XCTAssertFalse(
            WeaveDI.Container.live.isRegistered(BandSearchUseCaseProtocol.self),
            "registerAll(to:) calls WeaveDI's empty hooks, not the app's static methods of the same names (as upstream)"
        )
        XCTAssertFalse(WeaveDI.Container.isBootstrapped)
    }

    func testBandscapeModuleListsRegisterTheUseCaseOverTheRemoteRepository() async {
        await WeaveDI.Container.registerRepositories()
        await WeaveDI.Container.registerUseCases()

        XCTAssertEqual(UnifiedDI.resolve(BandSearchRepository.self)?.fetch("q"), ["remote q"])
        let useCase = UnifiedDI.resolve(BandSearchUseCaseProtocol.self)
        XCTAssertTrue(useCase is BandSearchUseCase)
        XCTAssertEqual(useCase?.search("q"), ["remote q"], "the use case got the registered repository")
    }

    func testBandscapeLiveValueRegistersItsRepository() {
        let useCase = withDependencies {
            $0.context = .live
        } operation: {
            DependencyValues._current[BandSearchUseCase.self]
        }
        XCTAssertEqual(useCase.search("q"), ["remote q"])
        XCTAssertTrue(UnifiedDI.resolve(BandSearchRepository.self) is BandRemoteSearchRepository)
    }

    func testBandscapeSyncTwinReadsTheModuleRegistrationAndKeepsOverridesScoped() async {
        await WeaveDI.Container.registerRepositories()
        await WeaveDI.Container.registerUseCases()

        let read = DependencyValues._current.bandSearchUseCaseSync
        XCTAssertEqual(read.search("q"), ["remote q"], "the twin reads WeaveDI's registration of the value type")

        let mock = BandSearchUseCase(repository: BandMockSearchRepository())
        let inScope = withDependencies {
            $0.bandSearchUseCaseSync = mock
        } operation: {
            UnifiedDI.resolve(BandSearchUseCaseProtocol.self)?.search("q")
        }
        XCTAssertEqual(inScope, ["mock q"], "a write through the twin is what WeaveDI resolves in the scope")
        XCTAssertEqual(UnifiedDI.resolve(BandSearchUseCaseProtocol.self)?.search("q"), ["remote q"], "and only there")
    }

    func testCurrencyReducerReadsTheUseCaseThenTheRepositoryItsLiveValueRegistered() {
        let reads = CurrencyReads()
        let first = reads.exchangeUseCase
        XCTAssertTrue(first is ExchangeUseCaseImpl, "nothing registered yet: the key's value")
        XCTAssertTrue(UnifiedDI.resolve(ExchangeRateInterface.self) is ExchangeRepositoryImpl)
        XCTAssertTrue(
            reads.exchangeUseCase is ExchangeRepositoryImpl,
            "a registration of the value type comes first (as upstream 3.3): here the repository the liveValue registered"
        )
        XCTAssertEqual(InjectedValues.current.exchangeUseCase.rate("USD"), 1.5)
    }

    func testAUseCaseOverItsRepositorysOwnProtocolIsACycle() async {
        await RegisterModule().exchangeRepositoryModule().register()
        await RegisterModule().exchangeUseCaseModule().register()

        XCTAssertNil(UnifiedDI.resolve(ExchangeRateInterface.self), "its factory would resolve itself")
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(ExchangeRateInterface.self)) { error in
            guard case .circularDependency = error as? DIError else {
                return XCTFail("expected a cycle, got \(error)")
            }
        }
    }

    func testMovieBookingResolveOrRegisterLiveValueAndTheFeaturesRead() async {
        await RegisterModule().bookingSessionRepositoryModule().register()
        let reads = SplashReads()
        XCTAssertTrue(reads.sessionUseCase is BookingSessionUseCase)
        XCTAssertEqual(reads.sessionUseCase.repositoryName, "supabase")
        XCTAssertTrue(
            UnifiedDI.resolve(BookingSessionUseCaseProtocol.self) is BookingSessionUseCase,
            "the liveValue registered the use case it built"
        )

        await RegisterModule().bookingSessionUseCaseModule().register()
        XCTAssertEqual(UnifiedDI.resolve(BookingSessionUseCaseProtocol.self)?.repositoryName, "supabase")

        let mock = BookingSessionUseCase(repository: MockBookingSessionRepository())
        let overridden = withDependencies {
            $0.bookingSessionUseCase = mock
        } operation: {
            SplashReads().sessionUseCase.repositoryName
        }
        XCTAssertEqual(overridden, "mock", "a test's withDependencies override reaches @Injected(Key.self)")
    }
}
#endif
