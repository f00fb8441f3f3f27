extension JSONValue {
    /// The value as an Int64 when it is an integer in JSON Schema's sense — a number whose fractional part
    /// is zero, however it is written (`158`, `158.0`, `1.58e2`; JSON Schema 2020-12 validation §6.3) — and
    /// lies in the Int64 range; nil for anything else. `Int64(exactly:)` refuses 2^63 and beyond, where a
    /// plain `Int64(_:)` conversion would trap.
    public var wholeNumberValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let double): Int64(exactly: double)
        case .null, .bool, .string, .array, .object: nil
        }
    }
}
