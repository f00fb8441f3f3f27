import LifecycleCore
import LifecycleReports

/// Lines of a report manifest (`manifest.jsonl`), which `report verify` reads from disk.
///
/// Properties: an accepted line's text parses back to the same line; its period and generation time are
/// instants that format and parse back; the canonical form it signs is valid JSON.
enum ReportManifestLineTarget {
    static let target = FuzzTarget(
        name: "report-manifest-line",
        summary: "report manifest lines: parse-text-parse same line, times round-trip, canonical form is JSON",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard let line = ReportManifestLine(parsing: bytes) else { return }
        guard let again = ReportManifestLine(parsing: Array(line.text.utf8)) else {
            throw PropertyFailure("the text of an accepted line does not parse")
        }
        try require(again == line, "a line changes through text-parse")
        for instant in [line.period.from, line.period.to, line.generatedAt] {
            if let parsed = ISO8601Format.parse(instant.iso8601) {
                try require(parsed == instant, "\(instant.iso8601) does not parse back")
            }
        }
        try require(JSONValue.parseIfValid(line.canonicalForm) != nil, "the canonical form is not JSON")
    }
}
