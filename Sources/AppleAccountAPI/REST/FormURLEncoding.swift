/// `application/x-www-form-urlencoded` bodies, the format of every request to Apple's REST API (Apple,
/// "Generate and validate tokens"; RFC 6749 Appendix B). Serialised as the WHATWG URL Standard §5.2 urlencoded
/// serializer does: `*-._`, digits and ASCII letters stay, space becomes `+`, every other UTF-8 octet `%XX`.
public enum FormURLEncoding {
    public static let contentType = "application/x-www-form-urlencoded"

    public static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(field.name, to: &out)
            out.append(UInt8(ascii: "="))
            append(field.value, to: &out)
        }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func append(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }
}
