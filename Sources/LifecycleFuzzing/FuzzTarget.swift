/// One parser of outside input under property checks: `check` runs the parser on arbitrary bytes and throws
/// ``PropertyFailure`` when a property that must hold for every input does not. A trap inside the parser is
/// a failure too: libFuzzer reports it as a crash, the test suite dies on it.
///
/// The bodies live here, in a library that `lifecycle` never links, so that the libFuzzer entry point
/// (`Fuzz/Sources/lifecycle-fuzz`, built by `make fuzz`) and the normal test suite (which replays each
/// target's checked-in corpus and a seeded random run) execute exactly the same checks.
public struct FuzzTarget: Sendable {
    /// The name used by `make fuzz`, `LIFECYCLE_FUZZ_TARGET` and the corpus folder `Fuzz/Corpus/<name>`.
    public let name: String
    /// What is parsed and which properties are checked, for the README and `make fuzz` output.
    public let summary: String
    public let check: @Sendable ([UInt8]) throws(PropertyFailure) -> Void

    public init(
        name: String, summary: String, check: @escaping @Sendable ([UInt8]) throws(PropertyFailure) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.check = check
    }

    /// Every target, in the order `make fuzz` runs them.
    public static let all: [FuzzTarget] = [
        HTTPRequestParserTarget.target, JSONValueTarget.target, CompactJWSTarget.target, JWKSetTarget.target,
        NotificationBodyTarget.target, AppleEventTarget.target, ISO8601InstantTarget.target,
        ISODurationTarget.target, PolicyFileTarget.target, ConfigurationFileTarget.target, CSVRecordsTarget.target,
        JSONLinesRecordsTarget.target, ReportManifestLineTarget.target, AdminRequestTarget.target,
        SQLParametersTarget.target, AppleBaseURLTarget.target, AppleResponseTarget.target,
        TransparencyLogTarget.target, BackupManifestTarget.target, ErasureJournalTarget.target,
        SecurityEventTokenTarget.target, TransmitterAnswerTarget.target, PollAnswerTarget.target,
        HTTPResponseReaderTarget.target,
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A property that did not hold, with what was expected and what was seen.
public struct PropertyFailure: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Throws unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(PropertyFailure) {
    if !condition { throw PropertyFailure(message()) }
}
