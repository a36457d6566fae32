import FoundationEssentials
import Hummingbird

/// The request context of both wirings. Its encoder sorts keys, so the two
/// wirings' bodies are byte for byte comparable.
public struct TodoRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public var responseEncoder: JSONEncoder { Self.encoder }
}
