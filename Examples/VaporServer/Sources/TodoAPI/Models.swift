import Foundation
import TodoServices
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

// The bodies are TodoServices' plain Codable types, shared with the
// Hummingbird example; JSONResponseBody adds Vapor's AsyncResponseEncodable.
extension TodoResponse: JSONResponseBody, @retroactive AsyncResponseEncodable {}
extension TodoListResponse: JSONResponseBody, @retroactive AsyncResponseEncodable {}
extension HealthResponse: JSONResponseBody, @retroactive AsyncResponseEncodable {}
extension StatsResponse: JSONResponseBody, @retroactive AsyncResponseEncodable {}
