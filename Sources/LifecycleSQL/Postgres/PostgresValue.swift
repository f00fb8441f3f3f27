/// A value bound to a statement parameter, sent in libpq's text format
/// (https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQEXECPARAMS): every parameter is a string the
/// server parses as the type it infers from the statement, so one prepared statement serves every call.
package enum PostgresValue: Sendable, Hashable {
    case text(String)
    case null

    /// `bytea` in its hex input format (https://www.postgresql.org/docs/15/datatype-binary.html §8.4.1).
    package static func bytea(_ bytes: [UInt8]) -> PostgresValue {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        hex.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return .text(String(decoding: hex, as: UTF8.self))
    }
}

/// A Swift value that binds to a statement parameter.
package protocol PostgresBindable {
    var postgresValue: PostgresValue { get }
}

extension Int64: PostgresBindable {
    package var postgresValue: PostgresValue { .text(String(self)) }
}

extension Int: PostgresBindable {
    package var postgresValue: PostgresValue { .text(String(self)) }
}

extension Bool: PostgresBindable {
    /// `boolean` accepts `true`/`false` (https://www.postgresql.org/docs/15/datatype-boolean.html).
    package var postgresValue: PostgresValue { .text(self ? "true" : "false") }
}

extension String: PostgresBindable {
    package var postgresValue: PostgresValue { .text(self) }
}

extension [UInt8]: PostgresBindable {
    package var postgresValue: PostgresValue { .bytea(self) }
}

extension PostgresValue: PostgresBindable {
    package var postgresValue: PostgresValue { self }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    package var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}
