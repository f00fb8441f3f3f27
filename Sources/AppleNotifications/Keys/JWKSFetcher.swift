/// Fetches the raw bytes of a JWKS document. Injected into ``JWKSCache`` so tests use a fake.
public protocol JWKSFetcher: Sendable {
    func fetch() async throws(JWKSError) -> [UInt8]
}

/// Bounds on fetching a key set.
public struct JWKSFetchLimits: Hashable, Sendable {
    /// Whole-request timeout. Apple's endpoint answers in well under a second; ten seconds bounds how long a
    /// notification waits on a refresh when the network is bad.
    public var timeoutSeconds: Double
    /// Largest document accepted. Apple's set is about 1.5 KiB.
    public var maximumBytes: Int

    public init(timeoutSeconds: Double = 10, maximumBytes: Int = 65_536) {
        self.timeoutSeconds = timeoutSeconds
        self.maximumBytes = maximumBytes
    }
}
