import Foundation
import Logging
import PostgresNIO
import TodoAPI
import TodoServices
import WeaveDI

/// The PostgreSQL database the tests use: the server `scripts/postgres.sh
/// start` makes (scripts/test-examples.sh starts one and sets
/// WEAVEDI_POSTGRES_URL; without it, the script's default address).
let testSettings: DatabaseSettings = {
    let environment = ProcessInfo.processInfo.environment
    let server = environment["WEAVEDI_POSTGRES_URL"] ?? "postgres://weavedi@127.0.0.1:54329"
    let database = environment["WEAVEDI_POSTGRES_DATABASE"] ?? "todos"
    return DatabaseSettings(url: "\(server)/\(database)", applicationName: "todo-api-tests")
}()

let quietServiceLogger: Logger = {
    var logger = Logger(label: "todo-api-tests")
    logger.logLevel = .error
    return logger
}()

/// Shuts down what the live container built (the previous test's store and
/// pool), registers the services afresh and starts them, as the server
/// does before serving, then resets the table to the seed.
func registerAndStartServices() async throws {
    await UnifiedDI.shutdown()
    DIWiring.registerServices(settings: testSettings, logger: quietServiceLogger)
    do {
        try await UnifiedDI.start(timeout: .seconds(10))
    } catch {
        throw TestDatabaseError(
            "\(error)\nThe tests need PostgreSQL: run scripts/test-examples.sh, or scripts/postgres.sh start and export what it prints."
        )
    }
    try await UnifiedDI.requireResolve(DatabasePool.self).migrate(reset: true)
}

/// A hand-wired store on its own pool (sessions named todo-api-tests-manual),
/// the table reset to the seed. Close it with `closeManualStore`.
func makeManualStore() async throws -> TodoStore {
    let store = try await TodoStore.connectedByHand(settings: testSettings, logger: quietServiceLogger)
    try await store.pool?.migrate(reset: true)
    return store
}

func closeManualStore(_ store: TodoStore) async {
    await store.closeWithPool()
}

/// The sessions in pg_stat_activity whose application_name is `name`, read
/// through a connection of its own.
func sessionCount(applicationName name: String) async throws -> Int {
    var settings = testSettings
    settings.applicationName = "todo-api-tests-observer"
    let observer = try await DatabasePool.connect(settings: settings, logger: quietServiceLogger)
    var count = 0
    for try await value in try await observer.client.query(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = \(name)"
    ).decode(Int.self) {
        count = value
    }
    await observer.close()
    return count
}

struct TestDatabaseError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
