/// The inner loop both base64 decoders share (RFC 4648 §4 and §5 differ only in their alphabets and padding):
/// each character's 6-bit value, looked up in the alphabet's table, is packed into bytes.
package enum Base64Sextets {
    /// The bytes the characters spell; nil when one is not in `table` (its entry is 0xFF) or the bits left
    /// over at the end are not zero, which would let two different strings decode to the same bytes.
    ///
    /// Not generic: called from another module, a generic version ran unspecialised, through protocol witnesses
    /// and an allocation per character slice (`report verify` took twice as long over its receipts' hashes).
    package static func decode(_ characters: UnsafeBufferPointer<UInt8>, table: [UInt8]) -> [UInt8]? {
        precondition(table.count == 256, "a decoding table has an entry for every byte")
        var out: [UInt8] = []
        out.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        // The table once per call, not once per character: a receipt holds a few dozen hashes.
        let valid = table.withUnsafeBufferPointer { table in
            for character in characters {
                let value = table[Int(character)]
                guard value != 0xFF else { return false }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            return true
        }
        guard valid, accumulator == 0 else { return nil }
        return out
    }
}
