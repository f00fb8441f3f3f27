import LifecycleCore
import LifecycleEngine

/// The erasure journal (`PATH-erasures.jsonl`), which `lifecycle restore` reads to re-apply erasures.
///
/// Properties: every line the journal parser accepts has a text that parses back to the same line; accepted,
/// damaged and torn lines together never exceed the lines of the input; the opened line, when found, is the
/// first accepted one.
enum ErasureJournalTarget {
    static let target = FuzzTarget(
        name: "erasure-journal",
        summary: "erasure journals: every accepted line round-trips, counts stay within the input's lines",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let contents = ErasureJournal.parse(bytes)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).count
        try require(
            contents.lines.count + contents.damaged.count + contents.torn == lines,
            "\(contents.lines.count) accepted, \(contents.damaged.count) damaged, \(contents.torn) torn of \(lines) lines"
        )
        for (_, line) in contents.lines {
            guard case .success(let again) = ErasureJournalLine.parse(Array(line.text.utf8)) else {
                throw PropertyFailure("the text of an accepted line does not parse")
            }
            try require(again == line, "a line changes through text-parse")
        }
        if let store = contents.store {
            guard case .opened(let first, _)? = contents.lines.first?.line else {
                throw PropertyFailure("a store id without an opened first line")
            }
            try require(first == store, "the store id is not the first line's")
        }
    }
}
