extension Result where Failure == DIError {
    /// The value, or nil on failure (upstream 3.4's spelling).
    ///
    /// ```swift
    /// let service = resolution.resolved
    /// ```
    public var resolved: Success? {
        try? get()
    }

    /// The value, or nil on failure after logging the error and its
    /// recovery suggestion at debug level with the call site.
    ///
    /// - Parameters:
    ///   - file: The call site's file.
    ///   - function: The call site's function.
    ///   - line: The call site's line.
    /// - Returns: The value, or nil.
    public func resolvedWithLogging(file: String = #fileID, function: String = #function, line: Int = #line) -> Success? {
        switch self {
        case .success(let value):
            return value
        case .failure(let error):
            DILog.logger.debug("\(error.description) at \(function) in \(file):\(line)")
            if let suggestion = error.recoverySuggestion {
                DILog.logger.debug("Suggestion: \(suggestion)")
            }
            return nil
        }
    }
}
