import LifecycleCore

/// Takes the compact JWS out of what Apple POSTs.
///
/// Apple sends a JSON object `{"payload": "<jws>"}` (DOMAIN.md §1). The Content-Type is not documented, so
/// the body is sniffed rather than trusted: a JSON object, or a form-encoded `payload=<jws>` body
/// (application/x-www-form-urlencoded, WHATWG URL §5). A bare JWS is not a valid HTTP body: it is refused
/// with `missing_payload`, whose description says what was expected, rather than failing later as a
/// malformed token, which would point the reader at the wrong layer.
public enum NotificationBody {
    /// Extracts the JWS from an HTTP request body.
    ///
    /// - not UTF-8, empty, or neither JSON nor form: `malformed_body`;
    /// - a JSON object or form body without a string `payload`, or a bare JWS: `missing_payload`.
    public static func extractJWS(fromHTTPBody body: [UInt8]) -> Result<String, VerificationError> {
        switch classify(body) {
        case .failure(let error): .failure(error)
        case .success(.bareToken):
            .failure(
                VerificationError(
                    .missingPayload, "body is a bare token; expected a JSON object {\"payload\": \"<jws>\"}"))
        case .success(.payload(let jws)): .success(jws)
        }
    }

    /// Extracts the JWS from a body or accepts a bare JWS, for `lifecycle inspect` and `lifecycle ingest`, whose
    /// inputs are archived bodies or tokens copied from logs. Surrounding whitespace is ignored.
    public static func extractJWS(fromBodyOrToken input: [UInt8]) -> Result<String, VerificationError> {
        switch classify(input) {
        case .failure(let error): .failure(error)
        case .success(.bareToken(let jws)): .success(jws)
        case .success(.payload(let jws)): .success(jws)
        }
    }

    /// The body Apple would send for `jws`: `{"payload":"<jws>"}`.
    public static func encode(jws: String) -> [UInt8] {
        JSONValue.object(["payload": .string(jws)]).encoded()
    }

    private enum Shape {
        case payload(String)
        case bareToken(String)
    }

    private static func classify(_ raw: [UInt8]) -> Result<Shape, VerificationError> {
        guard String(validating: raw, as: UTF8.self) != nil else {
            return .failure(VerificationError(.malformedBody, "body is not UTF-8"))
        }
        let bytes = trimmingWhitespace(raw)
        guard let first = bytes.first else {
            return .failure(VerificationError(.malformedBody, "body is empty"))
        }
        if first == UInt8(ascii: "{") {
            guard case .object(let members)? = JSONValue.parseIfValid(Array(bytes)) else {
                return .failure(VerificationError(.malformedBody, "body is not a valid JSON object"))
            }
            guard let payload = members["payload"] else {
                return .failure(VerificationError(.missingPayload, "JSON body has no \"payload\" member"))
            }
            guard case .string(let jws) = payload, !jws.isEmpty else {
                return .failure(VerificationError(.missingPayload, "\"payload\" is not a non-empty string"))
            }
            return .success(.payload(jws))
        }
        if bytes.allSatisfy(isTokenByte) && bytes.contains(UInt8(ascii: ".")) || hasCompactJWSShape(bytes) {
            return .success(.bareToken(String(decoding: bytes, as: UTF8.self)))
        }
        if bytes.contains(UInt8(ascii: "=")), bytes.allSatisfy(isFormByte) {
            return formPayload(bytes)
        }
        return .failure(VerificationError(.malformedBody, "body is neither JSON nor form-encoded"))
    }

    private static func formPayload(_ bytes: ArraySlice<UInt8>) -> Result<Shape, VerificationError> {
        for pair in bytes.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecode(parts[0]) else {
                return .failure(VerificationError(.malformedBody, "form body has an invalid percent-escape"))
            }
            guard name == Array("payload".utf8) else { continue }
            guard let value = percentDecode(parts.count == 2 ? parts[1] : []) else {
                return .failure(VerificationError(.malformedBody, "form field \"payload\" has an invalid escape"))
            }
            guard let jws = String(validating: value, as: UTF8.self) else {
                return .failure(VerificationError(.malformedBody, "form field \"payload\" is not UTF-8"))
            }
            guard !jws.isEmpty else {
                return .failure(VerificationError(.missingPayload, "form field \"payload\" is empty"))
            }
            return .success(.payload(jws))
        }
        return .failure(VerificationError(.missingPayload, "form body has no \"payload\" field"))
    }

    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; nil on a bad escape.
    private static func percentDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// Base64url characters, `.` and `=` padding: everything a compact JWS can contain.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// Three dot-separated parts of visible ASCII with no `=` or `&`: a compact JWS, possibly with bytes
    /// outside base64url in a part (`!!!.<payload>.<sig>`). Such input is handed to the JWS parser, whose
    /// `malformed_jws` names the real problem, rather than refused as a body that is neither JSON nor form.
    private static func hasCompactJWSShape(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count(where: { $0 == UInt8(ascii: ".") }) == 2
            && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "&") }
    }

    /// Printable ASCII without space: what a form-encoded body is made of.
    private static func isFormByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    private static func trimmingWhitespace(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var slice = bytes[...]
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }
}
