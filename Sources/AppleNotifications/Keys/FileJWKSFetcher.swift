import FoundationEssentials

/// Reads a JWKS from a local file (development, `lifecycle inspect --jwks FILE`).
public struct FileJWKSFetcher: JWKSFetcher {
    public let path: String
    public let limits: JWKSFetchLimits

    public init(path: String, limits: JWKSFetchLimits = JWKSFetchLimits()) {
        self.path = path
        self.limits = limits
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JWKSError(.fetchFailed, "cannot read key set file \(path)")
        }
        guard data.count <= limits.maximumBytes else {
            throw JWKSError(.fetchFailed, "key set file is larger than \(limits.maximumBytes) bytes")
        }
        return Array(data)
    }
}
