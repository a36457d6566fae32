import Hummingbird
import TodoServices

// The bodies are TodoServices' plain Codable types, shared with the Vapor
// example; Hummingbird encodes them through the request context's encoder.
extension TodoResponse: @retroactive ResponseEncodable {}
extension TodoListResponse: @retroactive ResponseEncodable {}
extension HealthResponse: @retroactive ResponseEncodable {}
extension StatsResponse: @retroactive ResponseEncodable {}
