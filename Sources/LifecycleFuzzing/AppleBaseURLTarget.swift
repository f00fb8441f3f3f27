import AppleAccountAPI

/// The https URLs of Apple's REST API and key set (`apple.restBaseURL`, `apple.jwks`, `inspect --jwks`):
/// where bearer credentials are sent, so a typo must be refused, never reinterpreted.
///
/// Properties: an accepted URL has a host and a port in 1–65535, a path prefix empty or starting with `/`
/// without a trailing one, and every part printable ASCII without space (nothing can split the request
/// line or the `Host` field); its description parses back to the same value; a refusal is one line.
enum AppleBaseURLTarget {
    static let target = FuzzTarget(
        name: "https-url",
        summary:
            "Apple REST / key set https URLs: accepted parts printable and in range, description round-trips, refusals one line",
        check: check)

    static func printable(_ text: String) -> Bool { text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch AppleBaseURL.parse(text) {
        case .failure(let error):
            let line = error.description
            try require(!line.contains("\n") && !line.contains("\r"), "the refusal is not one line")
            try require(line.utf8.count <= 400, "the refusal is \(line.utf8.count) bytes long")
        case .success(let url):
            try require(!url.host.isEmpty && printable(url.host), "host \(url.host) is empty or not printable")
            try require((1...65_535).contains(url.port), "port \(url.port) out of range")
            try require(
                url.pathPrefix.isEmpty || (url.pathPrefix.hasPrefix("/") && !url.pathPrefix.hasSuffix("/")),
                "path prefix \(url.pathPrefix) is not empty or /segment")
            let target = url.target("/auth/token")
            try require(printable(target), "the request target is not printable ASCII without space")
            try require(printable(url.hostField), "the Host field is not printable ASCII without space")
            guard case .success(let again) = AppleBaseURL.parse(url.description) else {
                throw PropertyFailure("the description \(url.description) does not parse")
            }
            try require(again == url, "\(url.description) parses to another URL")
        }
    }
}
