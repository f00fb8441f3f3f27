/// One line of the erasure journal: the append-only record, kept next to the store but never inside it or its
/// backups, from which `lifecycle restore` re-applies every erasure a restored copy predates (CCPA
/// regulations §7022(d): a backup's erased subjects are deleted when it is restored). Lines are JSON objects,
/// one per line, each fsynced before the change it announces is committed.
///
/// No line names a person: subjects appear only as their keyed pseudonym (HMAC-SHA256 under the pseudonym key, which
/// is outside the journal), and the account values are states, instants and input kinds.
public enum ErasureJournalLine: Sendable, Hashable {
    /// The first line: the store's identity (written into every backup's manifest) and when the journal began.
    /// A journal that begins after a backup was taken cannot prove what happened since.
    case opened(store: String, at: Instant)
    /// A backup started at `at`: restore requires this line, so a journal truncated or replaced since is
    /// refused rather than trusted.
    case backup(id: String, at: Instant)
    /// A `self` erasure step about to commit: the data keys of `scopes` created at or before `at` are
    /// destroyed, their columns cleared, and the account left as `account` (nil when it had no row).
    case erasure(ErasureJournalEntry)

    /// Longest line accepted; longer ones are refused before they are parsed.
    public static let maximumBytes = 8 * 1024

    public var json: JSONValue {
        switch self {
        case .opened(let store, let at):
            ["kind": "opened", "store": .string(store), "at": .string(at.iso8601)]
        case .backup(let id, let at):
            ["kind": "backup", "backup": .string(id), "at": .string(at.iso8601)]
        case .erasure(let entry):
            [
                "kind": "erasure", "at": .string(entry.at.iso8601), "app": .string(entry.app),
                "subject": .string(entry.subject), "job": .integer(entry.job),
                "scopes": .array(entry.scopes.sorted().map { .string($0.canonicalName) }),
                "account": entry.account.map(Self.json(account:)) ?? .null,
            ]
        }
    }

    /// The line as written, without its newline.
    public var text: String { json.serialized(sortedKeys: true) }

    /// Parses one line (without its newline). Never traps; the error says which field is wrong.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<ErasureJournalLine, BackupFileError> {
        guard bytes.count <= maximumBytes else {
            return .failure(BackupFileError("is longer than \(maximumBytes) bytes"))
        }
        guard let object = JSONValue.parseIfValid(bytes)?.objectValue else {
            return .failure(BackupFileError("is not a JSON object"))
        }
        guard let at = object["at"]?.stringValue.flatMap(ISO8601Format.parse) else {
            return .failure(BackupFileError("field at is missing or not an RFC 3339 instant"))
        }
        switch object["kind"]?.stringValue {
        case "opened":
            guard let store = object["store"]?.stringValue, BackupIdentifier.isValid(store) else {
                return .failure(BackupFileError("field store is missing or not a store id"))
            }
            return .success(.opened(store: store, at: at))
        case "backup":
            guard let id = object["backup"]?.stringValue, BackupIdentifier.isValid(id) else {
                return .failure(BackupFileError("field backup is missing or not a backup id"))
            }
            return .success(.backup(id: id, at: at))
        case "erasure":
            guard let app = object["app"]?.stringValue, !app.isEmpty else {
                return .failure(BackupFileError("field app is missing"))
            }
            guard let subject = object["subject"]?.stringValue, subject.hasPrefix("ps_") else {
                return .failure(BackupFileError("field subject is missing or not a pseudonym"))
            }
            guard let job = object["job"]?.integerValue else {
                return .failure(BackupFileError("field job is missing"))
            }
            guard let names = object["scopes"]?.arrayValue else {
                return .failure(BackupFileError("field scopes is missing"))
            }
            var scopes: Set<SubjectKeyScope> = []
            for name in names {
                guard let scope = name.stringValue.flatMap(SubjectKeyScope.init(canonicalName:)) else {
                    return .failure(BackupFileError("field scopes names an unknown scope \(name.serialized())"))
                }
                scopes.insert(scope)
            }
            var account: AccountRecord?
            switch object["account"] {
            case nil, .null?: account = nil
            case .object(let fields)?:
                switch Self.account(fields) {
                case .success(let record): account = record
                case .failure(let error): return .failure(error)
                }
            default: return .failure(BackupFileError("field account is not an object"))
            }
            return .success(
                .erasure(
                    ErasureJournalEntry(at: at, app: app, subject: subject, job: job, scopes: scopes, account: account))
            )
        default:
            return .failure(BackupFileError("field kind is not opened, backup or erasure"))
        }
    }

    static func json(account: AccountRecord) -> JSONValue {
        func instant(_ value: Instant?) -> JSONValue { value.map { .string($0.iso8601) } ?? .null }
        func kind(_ value: AccountInputKind?) -> JSONValue { value.map { .string($0.canonicalName) } ?? .null }
        return [
            "state": .string(account.state.canonicalName),
            "lastAppliedEventTime": instant(account.lastAppliedEventTime),
            "emailForwarding": .bool(account.emailForwarding),
            "emailForwardingEventTime": instant(account.emailForwardingEventTime),
            "emailForwardingInput": kind(account.emailForwardingInput),
            "accessEventTime": instant(account.accessEventTime), "accessInput": kind(account.accessInput),
            "createdAt": instant(account.createdAt), "updatedAt": instant(account.updatedAt),
            "deletedAt": instant(account.deletedAt), "deletedBy": kind(account.deletedBy),
        ]
    }

    static func account(_ fields: JSONObject) -> Result<AccountRecord, BackupFileError> {
        func required(_ name: String) -> Instant? { fields[name]?.stringValue.flatMap(ISO8601Format.parse) }
        /// nil: the field is wrong; .some(nil): null or absent.
        func optionalInstant(_ name: String) -> Instant?? {
            switch fields[name] {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return ISO8601Format.parse(text).map { .some($0) }
            default: return nil
            }
        }
        func optionalKind(_ name: String) -> AccountInputKind?? {
            switch fields[name] {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return AccountInputKind(canonicalName: text).map { .some($0) }
            default: return nil
            }
        }
        guard let state = fields["state"]?.stringValue.flatMap(AccountState.init(canonicalName:)) else {
            return .failure(BackupFileError("field account.state is missing or unknown"))
        }
        guard let last = required("lastAppliedEventTime"), let created = required("createdAt"),
            let updated = required("updatedAt")
        else {
            return .failure(BackupFileError("account.lastAppliedEventTime, createdAt or updatedAt is not an instant"))
        }
        guard let forwarding = fields["emailForwarding"]?.boolValue else {
            return .failure(BackupFileError("field account.emailForwarding is not a boolean"))
        }
        guard let forwardingTime = optionalInstant("emailForwardingEventTime"),
            let accessTime = optionalInstant("accessEventTime"), let deletedAt = optionalInstant("deletedAt"),
            let forwardingInput = optionalKind("emailForwardingInput"), let accessInput = optionalKind("accessInput"),
            let deletedBy = optionalKind("deletedBy")
        else {
            return .failure(BackupFileError("an optional field of account is neither null nor valid"))
        }
        return .success(
            AccountRecord(
                state: state, lastAppliedEventTime: last, emailForwarding: forwarding,
                emailForwardingEventTime: forwardingTime, emailForwardingInput: forwardingInput,
                accessEventTime: accessTime, accessInput: accessInput, createdAt: created, updatedAt: updated,
                deletedAt: deletedAt, deletedBy: deletedBy))
    }
}

/// One completed erasure of the service's own copies, as the journal keeps it.
public struct ErasureJournalEntry: Sendable, Hashable {
    /// When the `self` step ran: keys created later belong to newer data (a re-link) and are left alone.
    public var at: Instant
    public var app: String
    /// The subject's keyed pseudonym, never its `sub`.
    public var subject: String
    /// The erasure job, for the operator's cross-reference.
    public var job: Int64
    public var scopes: Set<SubjectKeyScope>
    /// The account as it stood when erased: its tombstone.
    public var account: AccountRecord?

    public init(
        at: Instant, app: String, subject: String, job: Int64, scopes: Set<SubjectKeyScope>, account: AccountRecord?
    ) {
        self.at = at
        self.app = app
        self.subject = subject
        self.job = job
        self.scopes = scopes
        self.account = account
    }
}
