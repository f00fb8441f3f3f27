import HTTP1
import HTTPServer

/// The HTTP/1.1 response reader of the client (``HTTPResponseReader``): what Apple, a transmitter, a key
/// server or a webhook receiver answers.
///
/// Properties: the same bytes give the same response (or the same error) whether they arrive in one piece or
/// in random splits; a response's status is three digits from 200 to 999 (interim 1xx are skipped); its body
/// is within the limit and no longer than the input.
enum HTTPResponseReaderTarget {
    static let target = FuzzTarget(
        name: "http-response",
        summary: "HTTP/1.1 response reader of the client: one piece = random splits, status 200–999, limits hold",
        check: check)

    /// Small limits, so the fuzzer reaches every limit with short inputs.
    static let limits: HTTPClientLimits = {
        var limits = HTTPClientLimits()
        limits.maxHeaderSectionLength = 256
        limits.maxBodyLength = 128
        limits.maxChunkSizeDigits = 4
        return limits
    }()

    struct Outcome: Equatable {
        var status: Int
        var reason: String
        var fields: [HTTPField]
        var body: [UInt8]
    }

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let whole = read(bytes, splits: [])
        var random = FuzzRandom(bytes: bytes)
        let splits = random.cuts(count: Int(random.next() % 6), length: bytes.count)
        let pieces = read(bytes, splits: splits)
        try require(whole == pieces, "the response differs between one piece and splits at \(splits)")
        if bytes.count <= 96 {
            try require(whole == read(bytes, splits: Array(0...bytes.count)), "the response differs read bytewise")
        }
        guard case .success(let response) = whole else { return }
        try require((200...999).contains(response.status), "status \(response.status) outside 200–999")
        try require(response.body.count <= limits.maxBodyLength, "a body of \(response.body.count) bytes")
        try require(response.body.count <= bytes.count, "a body longer than the input")
    }

    /// Reads one response from `bytes`, handed over in pieces cut at `splits`.
    static func read(_ bytes: [UInt8], splits: [Int]) -> Result<Outcome, HTTPClientError> {
        var reader = HTTPResponseReader(limits: limits)
        var cuts = splits.filter { $0 > 0 && $0 < bytes.count } + [bytes.count]
        var offset = 0
        return Result { () throws(HTTPClientError) -> Outcome in
            let response = try reader.readResponse(isHead: false) {
                (buffer: inout [UInt8]) throws(HTTPClientError) -> Bool in
                while let cut = cuts.first, cut <= offset { cuts.removeFirst() }
                guard let end = cuts.first else { return false }
                buffer.append(contentsOf: bytes[offset..<end])
                offset = end
                return true
            }
            return Outcome(
                status: response.status, reason: response.reasonPhrase, fields: response.headers.fields,
                body: response.body)
        }
    }
}
