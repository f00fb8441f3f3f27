/// Octet classes from RFC 9110 §5.6.2 (token) and §5.5 (field-value), used by the parser and by response
/// validation so both sides agree on what is legal.
package enum HTTPTokens {
    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// field-vchar = VCHAR / obs-text, plus SP and HTAB inside a value (RFC 9110 §5.5). Everything else — NUL,
    /// CR, LF and the other CTLs, DEL — is refused.
    package static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte == space || byte == horizontalTab || (byte >= 0x21 && byte != 0x7F)
    }

    package static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    package static func isFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy(isFieldValueCharacter)
    }

    /// HEXDIG (RFC 5234 §B.1), either case: chunk sizes, percent-escapes.
    package static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    /// The value of one HEXDIG, either case, or nil.
    package static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// A non-negative number of DIGITs only (no sign, no space) in `radix` 10, or of HEXDIGs in radix 16; nil
    /// when empty, for any other byte, or past Int's range.
    package static func number(_ digits: some Collection<UInt8>, radix: Int = 10) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard let digit = hexValue(byte), digit < radix else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: radix)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    package static let space = UInt8(ascii: " ")
    package static let horizontalTab = UInt8(ascii: "\t")
    package static let carriageReturn = UInt8(ascii: "\r")
    package static let lineFeed = UInt8(ascii: "\n")
    package static let colon = UInt8(ascii: ":")

    /// ASCII case-insensitive comparison, the rule for field names and most tokens (RFC 9110 §5.1).
    package static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ literal: String) -> Bool {
        let other = Array(literal.utf8)
        guard bytes.count == other.count else { return false }
        return zip(bytes, other).allSatisfy { lowercased($0) == lowercased($1) }
    }

    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
