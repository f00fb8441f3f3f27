import Foundation
import LifecycleCore
import Synchronization

/// Maps (app, sub) to a stable keyed pseudonym, so logs can correlate events for one account without
/// containing the Apple `sub`.
public protocol SubjectPseudonymizer: Sendable {
    func pseudonym(app: String, subject: String) -> String
}

/// Structured logs: one JSON object per line on stderr with `time`, `level`, `event` and typed fields.
///
/// There is deliberately no way to log a raw subject: callers pass `subject:` and the log writes its keyed
/// pseudonym. E-mail addresses and tokens have no field at all.
public final class EventLog: Sendable {
    public typealias Sink = @Sendable (String) -> Void

    /// The rank of the lowest level written; a reload may change it (``setLevel(_:)``).
    private let minimumRank: Atomic<Int>
    private let pseudonymizer: any SubjectPseudonymizer
    private let clock: any LifecycleClock
    private let sink: Sink
    private let lock = Mutex(())

    public init(
        level: LogLevel, pseudonymizer: any SubjectPseudonymizer, clock: any LifecycleClock = SystemClock(),
        sink: @escaping Sink = EventLog.standardError
    ) {
        self.minimumRank = Atomic(level.rank)
        self.pseudonymizer = pseudonymizer
        self.clock = clock
        self.sink = sink
    }

    /// The keyed pseudonym this log writes for `subject` of `app`.
    package func pseudonym(app: String, subject: String) -> String {
        pseudonymizer.pseudonym(app: app, subject: subject)
    }

    public static let standardError: Sink = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public func log(
        _ level: LogLevel, _ event: String, app: String? = nil, subject: String? = nil, reason: ReasonCode? = nil,
        _ fields: [(String, JSONValue)] = []
    ) {
        guard level.rank >= minimumRank.load(ordering: .relaxed) else { return }
        var members: JSONObject = [
            "time": .string(clock.now().iso8601), "level": .string(level.rawValue), "event": .string(event),
        ]
        if let app { members["app"] = .string(app) }
        if let subject { members["subject"] = .string(pseudonymizer.pseudonym(app: app ?? "", subject: subject)) }
        if let reason { members["reason"] = .string(reason.rawValue) }
        for (key, value) in fields { members[key] = Self.bounded(value) }
        let line = JSONValue.object(members).serialized()
        lock.withLock { _ in sink(line) }
    }

    /// The most a string field keeps of its value, in UTF-8 bytes (then `… (N bytes)`).
    public static let maximumFieldBytes = 2048

    /// A field as the line holds it: every string one line (``Swift/String/escapingControlCharacters``, which
    /// also covers DEL, C1 and U+2028/2029 that JSON leaves raw) and kept to ``maximumFieldBytes``, since some
    /// quote what a transmitter, a key server or a request said.
    static func bounded(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text.quotedForError(maxBytes: maximumFieldBytes))
        case .array(let items): .array(items.map(bounded))
        case .object(let object): .object(JSONObject(members: object.members.map { ($0.key, bounded($0.value)) }))
        default: value
        }
    }

    /// Writes lines of `level` and above from now on.
    public func setLevel(_ level: LogLevel) {
        minimumRank.store(level.rank, ordering: .relaxed)
    }

    public func debug(_ event: String, _ fields: [(String, JSONValue)] = []) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: [(String, JSONValue)] = []) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: [(String, JSONValue)] = []) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: [(String, JSONValue)] = []) { log(.error, event, fields) }
}
