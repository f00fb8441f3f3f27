/// Formats and parses RFC 3339 timestamps in UTC without Foundation, so the pure domain stays I/O-free
/// and the output is identical on every platform.
public enum ISO8601Format {
    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` (milliseconds always present, `Z` always UTC).
    public static func format(_ instant: Instant) -> String {
        String(unsafeUninitializedCapacity: 32) { fill($0, instant) }
    }

    /// The bytes of ``format(_:)`` appended to `output`, with no `String` made: a report writes millions.
    public static func write(_ instant: Instant, into output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            let count = fill(buffer, instant)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Writes the text into `buffer` (32 bytes at least) and returns its length.
    private static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ instant: Instant) -> Int {
        let ms = instant.millisecondsSinceEpoch
        let days = floorDiv(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000
        let (y, m, d) = civilFromDays(days)
        let h = msOfDay / 3_600_000
        let mi = (msOfDay / 60_000) % 60
        let s = (msOfDay / 1000) % 60
        let frac = msOfDay % 1000
        guard (0...9999).contains(y) else {
            let text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(frac, 3))Z"
            var count = 0
            for byte in text.utf8.prefix(buffer.count) {
                buffer[count] = byte
                count += 1
            }
            return count
        }
        // The 24 bytes written in place: reports and log lines format millions of instants, and the
        // interpolation above built each from eight pieces.
        var at = 0
        func put(_ value: Int64, _ width: Int) {
            var rest = value
            for position in stride(from: at + width - 1, through: at, by: -1) {
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            at += width
        }
        func put(_ byte: Unicode.Scalar) {
            buffer[at] = UInt8(byte.value)
            at += 1
        }
        put(y, 4)
        put("-")
        put(m, 2)
        put("-")
        put(d, 2)
        put("T")
        put(h, 2)
        put(":")
        put(mi, 2)
        put(":")
        put(s, 2)
        put(".")
        put(frac, 3)
        put("Z")
        return at
    }

    /// Most digits accepted after the decimal point of the seconds: nanoseconds, the finest that Go, Java and
    /// `date --rfc-3339=ns` write (Python's `isoformat()` writes 6). RFC 3339 §5.6 puts no bound on
    /// `time-secfrac`; this one keeps the work per timestamp bounded. Digits past the third are truncated:
    /// the domain keeps milliseconds (``Instant``).
    public static let maximumFractionDigits = 9

    /// The last instant RFC 3339 can write, 9999-12-31T23:59:59.999Z: ``parse(_:)`` refuses anything later
    /// (a Unix time can name one), so every accepted instant formats and parses back.
    public static let latest = Instant(millisecondsSinceEpoch: 253_402_300_799_999)

    /// What ``parse(_:)`` accepts, for error messages that say how to fix a refused time.
    public static let expectedForm =
        "an RFC 3339 date or instant (2025-07-15, 2025-07-15T09:36:30.719Z, at most 9 fractional digits, "
        + "offsets under 24:00) or Unix seconds/milliseconds"

    /// Parses `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm[:ss[.f…]]` (1 to ``maximumFractionDigits`` fractional digits)
    /// followed by `Z` or `±HH:MM` (under 24 hours), or a bare integer of Unix seconds (below 10^12) or
    /// milliseconds up to ``latest``. A leap second (`:60`) reads as `:59`. Returns nil for anything else,
    /// never traps.
    public static func parse(_ text: String) -> Instant? {
        let bytes = Array(text.utf8)
        if !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes.count <= 15,
            let value = Int64(text)
        {
            let instant =
                value < 1_000_000_000_000
                ? Instant(secondsSinceEpoch: value) : Instant(millisecondsSinceEpoch: value)
            return instant <= latest ? instant : nil
        }
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        if index == bytes.count { return Instant(millisecondsSinceEpoch: days * 86_400_000) }
        guard expect(0x54) || expect(0x74) || expect(0x20), let hour = number(2), expect(0x3A),
            let minute = number(2), hour < 24, minute < 60
        else { return nil }
        var second: Int64 = 0
        var millis: Int64 = 0
        if expect(0x3A) {
            guard let s = number(2), s < 61 else { return nil }
            second = min(s, 59)
            if expect(0x2E) {
                // Each of the first three digits adds its place value; the rest (down to nanoseconds) only
                // have to be digits. No loop bound depends on the input's length.
                var digits = 0
                var placeValue: Int64 = 100
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    digits += 1
                    guard digits <= maximumFractionDigits else { return nil }
                    millis += Int64(bytes[index] - 0x30) * placeValue
                    placeValue /= 10
                    index += 1
                }
                guard digits > 0 else { return nil }
            }
        }
        var offset: Int64 = 0
        if expect(0x5A) || expect(0x7A) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign: Int64 = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let oh = number(2), expect(0x3A), let om = number(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 60 + om) * 60_000
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let local = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis
        return Instant(millisecondsSinceEpoch: local - offset)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    public static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }

    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
