import AppleNotifications

extension JWKSSource {
    /// The fetcher for this source: the file read on each refresh, or a GET over the service's own TLS client.
    /// The error is one line naming what is wrong with an `https://` URL (a query, a port out of range …).
    public func makeFetcher(
        limits: JWKSFetchLimits = JWKSFetchLimits(), trustedCAFile: String? = nil
    ) -> Result<any JWKSFetcher, AppleCredentialsError> {
        switch self {
        case .file(let path): .success(FileJWKSFetcher(path: path, limits: limits))
        case .https(let url):
            AppleKeysFetcher.keySet(url: url, limits: limits, trustedCAFile: trustedCAFile).map {
                $0 as any JWKSFetcher
            }
        }
    }
}
