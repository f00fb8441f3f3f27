import Foundation

/// How a report writes its numbers, shared by every renderer so the HTML shows exactly the figures the JSON
/// holds (a test compares them by value).
public enum ReportNumbers {
    /// Decimal places kept for days and rates in the JSON and CSV.
    public static let decimals = 3

    /// `value` rounded half away from zero to ``decimals`` places.
    public static func rounded(_ value: Double) -> Double {
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    /// Days for people: one decimal, e.g. `2.5`.
    public static func days(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A rate in `[0, 1]` as a percentage with one decimal, e.g. `87.5%`.
    public static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }
}
