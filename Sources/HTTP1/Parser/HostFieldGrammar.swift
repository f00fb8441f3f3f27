/// The grammar of a `Host` field value: `Host = uri-host [ ":" port ]` (RFC 9110 §7.2), with `uri-host` and
/// `port` from RFC 3986 §3.2.2–§3.2.3:
///
///     host        = IP-literal / IPv4address / reg-name
///     IP-literal  = "[" ( IPv6address / IPvFuture ) "]"
///     IPvFuture   = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
///     reg-name    = *( unreserved / pct-encoded / sub-delims )
///     port        = *DIGIT
///
/// RFC 9112 §3.2: a server MUST answer 400 to a request whose Host field value is invalid. An `http` or
/// `https` authority never has an empty host (RFC 9110 §4.2.1–§4.2.2), so an empty value is refused too.
/// Userinfo (`user@h`), a path (`h/p`), a list (`a, b`) and whitespace all fall outside the grammar.
/// IPv4address is a subset of reg-name, so it needs no rule of its own; inside brackets only the octets an
/// IPv6 address can hold are checked, not the full IPv6address rule: nothing here routes on the value.
enum HostFieldGrammar {
    static func isValid(_ value: some Collection<UInt8>) -> Bool {
        let bytes = Array(value)
        guard let first = bytes.first else { return false }
        var index = 0
        if first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
            guard isIPLiteralBody(bytes[1..<close]) else { return false }
            index = close + 1
        } else {
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, HTTPTokens.isHexDigit(bytes[index + 1]),
                        HTTPTokens.isHexDigit(bytes[index + 2])
                    else {
                        return false
                    }
                    index += 3
                    continue
                }
                guard isUnreserved(bytes[index]) || isSubDelimiter(bytes[index]) else { return false }
                index += 1
            }
            guard index > 0 else { return false }
        }
        guard index < bytes.count else { return true }
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        return bytes[(index + 1)...].allSatisfy(isDigit)
    }

    /// IPv6address (hex digits, `:` and the `.` of an embedded IPv4 address) or IPvFuture.
    private static func isIPLiteralBody(_ body: ArraySlice<UInt8>) -> Bool {
        if let first = body.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            let rest = body.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), dot > rest.startIndex,
                rest[rest.startIndex..<dot].allSatisfy(HTTPTokens.isHexDigit), dot + 1 < rest.endIndex
            else { return false }
            return rest[(dot + 1)...].allSatisfy { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") }
        }
        return body.contains(UInt8(ascii: ":"))
            && body.allSatisfy { HTTPTokens.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    /// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
