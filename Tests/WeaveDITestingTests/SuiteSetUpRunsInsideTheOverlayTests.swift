import Testing
import WeaveDI
import WeaveDITesting

private protocol SuiteSetUpService: Sendable { var name: String { get } }
private struct NamedSuiteSetUpService: SuiteSetUpService { let name: String }

/// The guide's `setUp { releaseAll(); register(mock) }` as a suite `init`:
/// with the trait it lands in the test's overlay, not the live container.
@Suite(.isolatedContainer)
struct SuiteSetUpRunsInsideTheOverlayTests {
    init() {
        UnifiedDI.releaseAll()
        UnifiedDI.register((any SuiteSetUpService).self) { NamedSuiteSetUpService(name: "mock") }
    }

    @Test func theTestSeesTheSetUpRegistrationAndTheLiveContainerDoesNot() async {
        #expect(UnifiedDI.resolve((any SuiteSetUpService).self)?.name == "mock")
        let seenOutside = await Task.detached { UnifiedDI.resolve((any SuiteSetUpService).self) }.value
        #expect(seenOutside == nil)
    }
}

private protocol ListedService: Sendable { var name: String { get } }
private struct NamedListedService: ListedService { let name: String }

@Test(.isolatedContainer { $0.register((any ListedService).self) { NamedListedService(name: "listed") } })
func theTraitRegistersWhatItLists() {
    #expect(UnifiedDI.resolve((any ListedService).self)?.name == "listed")
}
