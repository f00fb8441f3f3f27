import Glibc

/// The `Date` field value in IMF-fixdate form, e.g. `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7). An origin
/// server with a clock MUST send Date (§6.6.1); callers keep one and it caches the value for the current second.
package struct HTTPDate {
    private var cachedSecond: time_t = -1
    private var cachedValue: [UInt8] = []

    package init() {}

    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The field value for `secondsSinceEpoch` (wall time from the caller's clock), formatted once per second.
    package mutating func current(secondsSinceEpoch: Int64) -> [UInt8] {
        let now = time_t(secondsSinceEpoch)
        if now != cachedSecond {
            cachedSecond = now
            cachedValue = Array(Self.format(now).utf8)
        }
        return cachedValue
    }

    package static func format(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = dayNames[Int(parts.tm_wday)]
        let month = monthNames[Int(parts.tm_mon)]
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
