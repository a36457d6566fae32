import Foundation
import Vapor

/// Response bodies encode themselves as JSON with sorted keys instead of going
/// through `ContentConfiguration.global`: the example then changes no
/// process-wide setting, and its bodies are byte for byte those of the
/// Hummingbird example (and identical between the two wirings).
public protocol JSONResponseBody: Codable, AsyncResponseEncodable, Sendable {}

enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func response(_ value: some Encodable, status: HTTPResponseStatus) throws -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .json
        return Response(status: status, headers: headers, body: .init(data: try encoder.encode(value)))
    }
}

extension JSONResponseBody {
    public func encodeResponse(for request: Request) async throws -> Response {
        try JSONBody.response(self, status: .ok)
    }
}

/// A body answered with a status other than 200 (201 for a created todo).
public struct WithStatus<Body: JSONResponseBody>: AsyncResponseEncodable {
    public var status: HTTPResponseStatus
    public var body: Body

    public func encodeResponse(for request: Request) async throws -> Response {
        try JSONBody.response(body, status: status)
    }
}

public struct TodoDTO: JSONResponseBody, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool

    public init(id: Int, title: String, done: Bool) {
        self.id = id
        self.title = title
        self.done = done
    }
}

/// What every todo response carries besides its data: the id of the
/// request's unit of work as the handler saw it and as the presenter saw it.
public struct ResponseMeta: JSONResponseBody, Equatable {
    public var unitOfWork: UInt64
    public var presenterUnitOfWork: UInt64
    public var reads: Int
    public var writes: Int
}

public struct TodoResponse: JSONResponseBody, Equatable {
    public var todo: TodoDTO
    public var meta: ResponseMeta
}

public struct TodoListResponse: JSONResponseBody, Equatable {
    public var todos: [TodoDTO]
    public var meta: ResponseMeta
}

public struct CreateTodoRequest: Content {
    public var title: String
    public init(title: String) { self.title = title }
}

public struct HealthResponse: JSONResponseBody, Equatable {
    public var status: String
    public init(status: String) { self.status = status }
}

public struct StatsResponse: JSONResponseBody, Equatable {
    public var todos: Int
    public var unitsOfWorkAlive: Int
    public init(todos: Int, unitsOfWorkAlive: Int) {
        self.todos = todos
        self.unitsOfWorkAlive = unitsOfWorkAlive
    }
}
