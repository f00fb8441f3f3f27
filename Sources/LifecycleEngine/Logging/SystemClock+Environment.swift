import LifecycleCore

extension SystemClock {
    /// The clock a command runs on: its wall time shifted by `LIFECYCLE_CLOCK_OFFSET_SECONDS` when it is set
    /// (for tests only; `serve` logs a warning when it is set).
    /// - Throws: ``ConfigurationError`` naming the variable when it is not a whole number of seconds in
    ///   ``offsetRange``.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> SystemClock {
        guard let text = environment[offsetVariable], !text.isEmpty else { return SystemClock() }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.count <= 10, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Int64(text), offsetRange.contains(seconds)
        else {
            throw ConfigurationError(
                file: "environment", field: offsetVariable, problem: "'\(text)' is not a whole number of seconds",
                fix: "unset it (it is for tests only), or give seconds such as 3600 or -86400")
        }
        return SystemClock(offsetMilliseconds: seconds * 1000)
    }
}
