import LifecycleCore
import LifecycleCrypto

/// The leaves one report adds to its app's transparency log, derived from its manifest line and its JSON
/// file alone, so that the writer and any verifier compute the same bytes.
///
/// A report's leaves are one `deletion-outcome` leaf per row of its `subjects[]`, in the report's order, then
/// one `report` leaf for its manifest line. The report leaf comes last so the log's last leaf always names
/// the last manifest line it holds: that is how an append that a crash cut short is found and repaired. Each
/// leaf is a JSON object serialised compactly with members sorted by name (the manifest's canonical form).
public struct ReportLogEntries: Hashable, Sendable {
    /// What identifies one deletion request across reports (its receipt file is named after it).
    public struct DeletionKey: Hashable, Sendable, Comparable {
        public var subject: String
        public var eventType: String
        public var eventTime: String

        /// `receipts/<subject>-<eventType>-<eventTime without - : .>.tlog-proof`; pseudonyms and event types hold
        /// only `[a-z0-9_-]`, so the name needs no escaping.
        public var receiptPath: String {
            let compactTime = String(
                decoding: eventTime.utf8.filter {
                    $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: ".")
                },
                as: UTF8.self)
            return "\(ReportLogEntries.receiptDirectory)/\(subject)-\(eventType)-\(compactTime).tlog-proof"
        }

        public static func < (lhs: DeletionKey, rhs: DeletionKey) -> Bool { lhs.receiptPath < rhs.receiptPath }
    }

    public static let logDirectory = "log"
    public static let receiptDirectory = "receipts"
    /// The tree size whose receipts are all written and durable: `receipts/.complete`, one decimal number.
    public static let receiptedMarkerPath = receiptDirectory + "/.complete"
    /// The deletion-outcome leaves, with the deletion each one is about.
    public var outcomes: ReportOutcomeLeaves
    /// The report leaf.
    public var report: [UInt8]

    /// Every leaf, in log order, made as it is read: a report's outcome leaves from its rows, which may wait in
    /// a spool, so a large report's leaves need not all be in memory.
    public var leaves: FlattenSequence<[AnySequence<[UInt8]>]> {
        [AnySequence(outcomes.lazy.map(\.entry)), AnySequence(CollectionOfOne(report))].joined()
    }

    /// How many leaves: one per outcome, and the report leaf.
    public var leafCount: Int { outcomes.count + 1 }

    /// Every leaf, in log order, in memory.
    public var all: [[UInt8]] { Array(leaves) }

    public static func == (lhs: ReportLogEntries, rhs: ReportLogEntries) -> Bool {
        lhs.leaves.elementsEqual(rhs.leaves)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(leafCount)
        for leaf in leaves { hasher.combine(leaf) }
    }

    /// The log's origin line and key name (c2sp.org/tlog-checkpoint: the origin names the log; the key name
    /// should match it). App ids hold only `[a-z0-9_-]`, so it is a valid note key name.
    public static func origin(app: String) -> String { "accountlifecycle/deletion-reports/\(app)" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The leaves of the report that `line` (whose bytes, without newline, are `lineText`) lists, read from its
    /// JSON file at `path` (mapped, and let go as it is read). Refuses a file whose SHA-256 is not the line's.
    public init(line: ReportManifestLine, lineText: some Collection<UInt8>, reportFile path: String) throws(Failure) {
        var outcomes: [(key: DeletionKey, entry: [UInt8])] = []
        report = try Self.walk(line: line, lineText: lineText, reportFile: path) { key, entry in
            outcomes.append((key, entry))
            return true
        }
        self.outcomes = ReportOutcomeLeaves(outcomes)
    }

    /// Walks the report that `line` lists from its JSON file at `path` without holding it: checks the file's
    /// SHA-256 against the line, then hands each deletion-outcome leaf, with its deletion, to `outcome` in
    /// order as its row is parsed (`outcome` returns false to hear no more), and returns the report leaf. The
    /// file is mapped and its pages let go as they are read, so a month of a million requests is never in
    /// memory, as bytes or as values.
    public static func walk(
        line: ReportManifestLine, lineText: some Collection<UInt8>, reportFile path: String,
        outcome: (DeletionKey, [UInt8]) -> Bool
    ) throws(Failure) -> [UInt8] {
        let listed = try listedJSON(line)
        guard let file = MappedReportFile(path: path) else {
            throw Failure(description: "\(listed.path): cannot be read")
        }
        let matches = file.sha256Hex() == listed.sha256
        try refuseIfFaulted(file, listed.path)
        guard matches else {
            throw Failure(description: "\(listed.path): SHA-256 differs from manifest line \(line.sequence)")
        }
        do {
            try walk(line: line, path: listed.path, json: file.bytes, release: file.release(before:), outcome: outcome)
        } catch {
            try refuseIfFaulted(file, listed.path)
            throw error
        }
        try refuseIfFaulted(file, listed.path)
        return report(line: line, lineText: lineText)
    }

    /// A read of the mapping that met a truncated file or a disk error read zeros there: named as such,
    /// whatever those zeros made of the hash or the parse.
    private static func refuseIfFaulted(_ file: MappedReportFile, _ path: String) throws(Failure) {
        guard file.faulted else { return }
        throw Failure(description: "\(path): the file shrank or could not be read while it was read")
    }

    private static func listedJSON(_ line: ReportManifestLine) throws(Failure) -> (path: String, sha256: String) {
        guard let listed = line.jsonFile else {
            throw Failure(description: "manifest line \(line.sequence) lists no JSON report")
        }
        return listed
    }

    /// Parses the JSON report row by row: a large month's rows are never all in memory as values.
    private static func walk(
        line: ReportManifestLine, path: String, json: UnsafeBufferPointer<UInt8>, release: (Int) -> Void,
        outcome: (DeletionKey, [UInt8]) -> Bool
    ) throws(Failure) {
        var rows = 0
        var rowFailure: Failure?
        var listening = true
        let document = try? JSONValue.parse(json, streamingArray: "subjects") { row, end in
            release(end)
            guard rowFailure == nil, listening else { return }
            defer { rows += 1 }
            guard let subject = row["subject"]?.stringValue, let eventType = row["eventType"]?.stringValue,
                let eventTime = row["eventTime"]?.stringValue
            else {
                rowFailure = Failure(description: "\(path): subjects[\(rows)] lacks subject, eventType or eventTime")
                return
            }
            listening = outcome(
                DeletionKey(subject: subject, eventType: eventType, eventTime: eventTime),
                outcomeLeaf(row, app: line.app, report: line.sequence))
        }
        guard let document, document["subjects"]?.arrayValue != nil else {
            throw Failure(description: "\(path): not a JSON report with subjects[]")
        }
        if let rowFailure { throw rowFailure }
    }

    /// A parsed row's deletion-outcome leaf: its members copied as the file holds them (null when absent),
    /// nested objects with their names sorted, as ``JSONValue/encoded()`` writes them.
    private static func outcomeLeaf(_ row: JSONValue, app: String, report sequence: Int) -> [UInt8] {
        outcomeLeaf(app: app, report: sequence) { member, w in
            w.value(row[member.rawValue] ?? .null, sortedKeys: true)
        }
    }

    /// The members of a deletion-outcome leaf, in its canonical order (names sorted by their bytes). `app`,
    /// `kind` and `report` come from the report; the others are the row's members of the same name.
    enum OutcomeLeafMember: String, CaseIterable {
        case app, completedAt, deadline, eventTime, eventType, kind, onTime, outcome, policy, report, subject
        case verification

        var name: StaticString {
            switch self {
            case .app: "app"
            case .completedAt: "completedAt"
            case .deadline: "deadline"
            case .eventTime: "eventTime"
            case .eventType: "eventType"
            case .kind: "kind"
            case .onTime: "onTime"
            case .outcome: "outcome"
            case .policy: "policy"
            case .report: "report"
            case .subject: "subject"
            case .verification: "verification"
            }
        }
    }

    /// A deletion-outcome leaf in report `sequence` of `app`, compact, its members in canonical order:
    /// `copy` writes the value of each member that comes from the row. The one place the leaf's form is kept,
    /// for the writer (from the dataset's rows) and the verifier (from the JSON file) alike.
    private static func outcomeLeaf(
        app: String, report sequence: Int, copy: (OutcomeLeafMember, inout JSONWriter) -> Void
    ) -> [UInt8] {
        var w = JSONWriter()
        w.bytes.reserveCapacity(512)
        w.object { w in
            for member in OutcomeLeafMember.allCases {
                w.key(member.name)
                switch member {
                case .app: w.string(app)
                case .kind: w.string("deletion-outcome")
                case .report: w.integer(sequence)
                default: copy(member, &w)
                }
            }
        }
        return w.bytes
    }

    /// The same leaves from the dataset the JSON file was rendered from (``ReportJSONRenderer``), without
    /// reading the file back: each row's members are the values the renderer writes, so the bytes equal those
    /// a verifier derives from the file. Each outcome leaf is made from its row when it is read.
    public init(line: ReportManifestLine, lineText: some Collection<UInt8>, dataset: ReportDataset) {
        outcomes = ReportOutcomeLeaves(rows: dataset.subjects, app: line.app, report: line.sequence)
        report = Self.report(line: line, lineText: lineText)
    }

    /// A row's deletion-outcome leaf in report `sequence` of `app`, its members the values the JSON file holds
    /// for them, so it is what a verifier derives from the file. Written member by member, without a tree:
    /// every row of a report is made into its leaf twice (the log, then its receipt).
    static func outcome(_ row: ReportSubjectRow, app: String, report sequence: Int) -> (
        key: DeletionKey, entry: [UInt8]
    ) {
        let entry = outcomeLeaf(app: app, report: sequence) { member, w in
            switch member {
            case .completedAt: w.optional(row.completedAt) { $0.instant($1) }
            case .deadline: w.optional(row.deadline) { $0.instant($1) }
            case .eventTime: w.instant(row.eventTime)
            case .eventType: w.string(row.eventType)
            case .onTime: w.optional(row.onTime) { $0.bool($1) }
            case .outcome: w.string(row.outcome.rawValue)
            case .policy: w.optional(row.policy) { $0.string($1) }
            case .subject: w.string(row.pseudonym)
            case .verification: w.string(row.verification.rawValue)
            case .app, .kind, .report: break
            }
        }
        return (
            DeletionKey(subject: row.pseudonym, eventType: row.eventType, eventTime: row.eventTime.iso8601), entry
        )
    }

    private static func report(line: ReportManifestLine, lineText: some Collection<UInt8>) -> [UInt8] {
        serialize([
            "kind": "report", "app": .string(line.app), "sequence": .integer(Int64(line.sequence)),
            "generatedAt": .string(line.generatedAt.iso8601),
            "manifestLineSha256": .string(ReportManifestLine.chainHash(lineText)),
        ])
    }

    /// The manifest sequence a report leaf names; nil for any other leaf.
    public static func reportSequence(ofLeaf entry: [UInt8]) -> Int? {
        guard let value = JSONValue.parseIfValid(entry), value["kind"]?.stringValue == "report",
            let sequence = value["sequence"]?.integerValue
        else { return nil }
        return Int(exactly: sequence)
    }

    /// The deletion a deletion-outcome leaf is about; nil for any other leaf.
    public static func deletionKey(ofLeaf entry: [UInt8]) -> DeletionKey? {
        guard let value = JSONValue.parseIfValid(entry), value["kind"]?.stringValue == "deletion-outcome",
            let subject = value["subject"]?.stringValue, let eventType = value["eventType"]?.stringValue,
            let eventTime = value["eventTime"]?.stringValue
        else { return nil }
        return DeletionKey(subject: subject, eventType: eventType, eventTime: eventTime)
    }

    private static func serialize(_ object: [String: JSONValue]) -> [UInt8] {
        JSONValue.object(JSONObject(object)).encoded()
    }
}

/// The deletion-outcome leaves of one report, in its order: held (derived from a JSON report as it was
/// parsed) or made from each row when read (a dataset's rows, which may wait in a ``ReportRowSpool``).
public struct ReportOutcomeLeaves: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case memory([(key: ReportLogEntries.DeletionKey, entry: [UInt8])])
        case rows(ReportRows, app: String, report: Int)
    }

    private let storage: Storage

    init(_ outcomes: [(key: ReportLogEntries.DeletionKey, entry: [UInt8])]) { storage = .memory(outcomes) }

    init(rows: ReportRows, app: String, report: Int) { storage = .rows(rows, app: app, report: report) }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .memory(let outcomes): outcomes.count
        case .rows(let rows, _, _): rows.count
        }
    }

    /// Throws when an outcome was made from a row the spool could not read back (``ReportRows/checkRead()``).
    public func checkRead() throws(ReportRowSpool.Failure) {
        if case .rows(let rows, _, _) = storage { try rows.checkRead() }
    }

    public subscript(position: Int) -> (key: ReportLogEntries.DeletionKey, entry: [UInt8]) {
        switch storage {
        case .memory(let outcomes): outcomes[position]
        case .rows(let rows, let app, let report): ReportLogEntries.outcome(rows[position], app: app, report: report)
        }
    }
}

/// A receipt's file name as 16 bytes of its SHA-256: what the log's catch-up remembers of each receipt it
/// wrote, so an older report's receipt never replaces a later one's, and what the verifier remembers of each
/// deletion, without holding a million names.
struct ReceiptName: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    init(_ path: String) {
        let digest = SHA256.hash(path)
        high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    init(_ key: ReportLogEntries.DeletionKey) { self.init(key.receiptPath) }
}
