import TodoServices
import Vapor

extension TodoHandlers {
    /// The `:id` of `/todos/:id`. A 400 when it is not an integer, as in the
    /// Hummingbird example (Vapor's `parameters.require` would answer 422).
    static func todoID(_ request: Request) throws -> Int {
        guard let id = request.parameters.get("id", as: Int.self) else {
            throw Abort(.badRequest, reason: "the todo id is not an integer")
        }
        return id
    }
}

// The shared handlers' refusals, answered as Vapor's `Abort` answers
// (`{"error": true, "reason": ...}` with the status).
extension TodoRequestError: @retroactive AbortError {
    public var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: code) }
}
