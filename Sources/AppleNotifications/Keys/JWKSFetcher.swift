import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches the raw bytes of a JWKS document. Injected into ``JWKSCache`` so tests use a fake.
public protocol JWKSFetcher: Sendable {
    func fetch() async throws(JWKSError) -> [UInt8]
}

/// Where the key set comes from: Apple's HTTPS endpoint in production, a file for development and offline
/// inspection (`--jwks FILE`).
public enum JWKSSource: Hashable, Sendable, CustomStringConvertible {
    case file(path: String)
    case https(url: String)

    /// Apple's published keys (Sign in with Apple REST API, "Fetch Apple's public key for verifying token
    /// signature").
    public static let apple = JWKSSource.https(url: AppleIdentity.keysURL)

    /// Reads `https://…`, `file:///path`, `file:path` or a plain path. Plain `http://` is refused: a key set
    /// fetched without TLS lets anyone on the path forge notifications.
    public init?(_ text: String) {
        if text.hasPrefix("https://") {
            self = .https(url: text)
        } else if text.hasPrefix("file://") {
            let path = String(text.dropFirst("file://".count))
            guard path.hasPrefix("/") else { return nil }
            self = .file(path: path.removingPercentEncoding ?? path)
        } else if text.hasPrefix("file:") {
            self = .file(path: String(text.dropFirst("file:".count)))
        } else if text.contains("://") || text.isEmpty {
            return nil
        } else {
            self = .file(path: text)
        }
    }

    public var description: String {
        switch self {
        case .file(let path): "file:\(path)"
        case .https(let url): url
        }
    }

    /// The fetcher for this source.
    public func makeFetcher(limits: JWKSFetchLimits = JWKSFetchLimits()) -> any JWKSFetcher {
        switch self {
        case .file(let path): FileJWKSFetcher(path: path, limits: limits)
        case .https(let url): HTTPSJWKSFetcher(url: url, limits: limits)
        }
    }
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

/// Fetches a JWKS over HTTPS with URLSession. Used only on a cache miss or refresh, never per request, so
/// FoundationNetworking stays off the hot path (STYLE.md).
public struct HTTPSJWKSFetcher: JWKSFetcher {
    public let url: String
    public let limits: JWKSFetchLimits

    public init(url: String = AppleIdentity.keysURL, limits: JWKSFetchLimits = JWKSFetchLimits()) {
        self.url = url
        self.limits = limits
    }

    public func fetch() async throws(JWKSError) -> [UInt8] {
        guard let endpoint = URL(string: url), endpoint.scheme == "https" else {
            throw JWKSError(.fetchFailed, "key set URL must be https: \(url)")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.timeoutSeconds
        configuration.timeoutIntervalForResource = limits.timeoutSeconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: endpoint)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw JWKSError(.fetchFailed, "GET \(url) failed: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw JWKSError(.fetchFailed, "GET \(url) answered \(status)")
        }
        guard data.count <= limits.maximumBytes else {
            throw JWKSError(.fetchFailed, "key set is larger than \(limits.maximumBytes) bytes")
        }
        return Array(data)
    }
}
