import Hummingbird
import TodoServices

// The bodies are TodoServices' plain Codable types, shared with the Vapor
// example; Hummingbird encodes them through the request context's encoder.
extension TodoResponse: @retroactive ResponseEncodable {}
extension TodoListResponse: @retroactive ResponseEncodable {}
extension HealthResponse: @retroactive ResponseEncodable {}
extension StatsResponse: @retroactive ResponseEncodable {}

// The shared handlers' refusals, answered as Hummingbird's `HTTPError`
// answers (`{"error": {"message": ...}}` with the status).
extension TodoRequestError: @retroactive HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: code) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try HTTPError(status, message: reason).response(from: request, context: context)
    }
}
