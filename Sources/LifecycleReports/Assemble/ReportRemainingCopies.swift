import LifecycleCore

/// Where copies of an erased subject's data may still exist, and by when none of them can be used (GDPR:
/// backups may keep data "beyond use" until they expire; PIPA Art. 21(2): erased data must not be
/// recoverable): the backups of each store erased from, by their retention, and the master key that wrapped
/// the destroyed data key of the service's own copies, by its rotation.
public struct ReportRemainingCopies: Hashable, Sendable {
    /// One per store the erasure touched: `self` (the service's own store) or the target's name.
    public var backups: [ReportBackupCopy]
    /// The latest `beyondUseBy` of `backups`: from then on every backup copy has expired. Nil while a store's
    /// erasure is not finished or its retention is not stated.
    public var backupsBeyondUseBy: Instant?
    /// The master key in force when the service's copies were crypto-shredded; nil when the erasure destroyed
    /// no data key (nothing of the service's own was kept, or the `self` step did not run yet).
    public var masterKey: ReportMasterKeyBound?

    public init(backups: [ReportBackupCopy], masterKey: ReportMasterKeyBound?) {
        self.backups = backups
        self.masterKey = masterKey
        let ends = backups.map(\.beyondUseBy)
        backupsBeyondUseBy = ends.contains(nil) || ends.isEmpty ? nil : ends.compactMap { $0 }.max()
    }

    /// The bound in words, for the HTML and CSV reports.
    public var statement: String {
        var sentences: [String] = []
        if let end = backupsBeyondUseBy {
            let parts = backups.map { "\($0.storeName) \($0.retentionDays ?? 0) days after its erasure" }
            sentences.append(
                "By the backup retention the configuration states, every backup copy is beyond use by "
                    + "\(end.iso8601) (" + parts.joined(separator: "; ") + ").")
        } else {
            for copy in backups {
                if copy.erasedAt == nil {
                    sentences.append("\(copy.storeName): not erased yet.")
                } else if copy.retentionDays == nil {
                    sentences.append(
                        "\(copy.storeName): erased \(copy.erasedAt?.iso8601 ?? ""); backup retention not stated "
                            + "(erasure.backupRetentionDays).")
                }
            }
        }
        if let key = masterKey {
            if let retired = key.retiredAt {
                sentences.append(
                    "The service's copies were sealed under a data key destroyed at erasure; master key \(key.id), "
                        + "in force then, was rotated away on \(retired.iso8601) (no data key is wrapped by it any more, "
                        + "and each instance deletes it from its key file): since then a backup, replica or log copy "
                        + "opens only with a copy of that key kept elsewhere.")
            } else if let due = key.rotationDueBy {
                sentences.append(
                    "The service's copies were sealed under a data key destroyed at erasure; master key \(key.id), "
                        + "in force then, is to be rotated away by \(due.iso8601) (keys.rotateEveryDays): once it "
                        + "is, a backup, replica or log copy opens only with a copy of that key kept elsewhere.")
            } else {
                sentences.append(
                    "The service's copies were sealed under a data key destroyed at erasure; master key \(key.id), "
                        + "in force then, has not been rotated away and no rotation is scheduled: until it is "
                        + "(lifecycle keys rotate), a copy taken before the erasure opens only with that key.")
            }
        }
        return sentences.joined(separator: " ")
    }
}

/// The backups of one store an erasure touched.
public struct ReportBackupCopy: Hashable, Sendable {
    /// `self` for the service's store, else the target's name.
    public var store: String
    /// How long the operator keeps backups of it (`erasure.backupRetentionDays`, or the target's own).
    public var retentionDays: Int?
    /// When the erasure from it finished.
    public var erasedAt: Instant?
    /// `erasedAt` plus the retention: the last backup holding the data has expired.
    public var beyondUseBy: Instant?

    /// How the statement names the store: the service's own, or the target.
    var storeName: String { store == ErasurePlanner.selfTarget ? "the service's store" : store }

    public init(store: String, retentionDays: Int?, erasedAt: Instant?) {
        self.store = store
        self.retentionDays = retentionDays
        self.erasedAt = erasedAt
        if let erasedAt, let retentionDays {
            beyondUseBy = erasedAt.adding(milliseconds: Int64(retentionDays) * ReportPeriod.millisecondsPerDay)
        } else {
            beyondUseBy = nil
        }
    }
}

/// The master key that wrapped a subject's destroyed data key, and when it stops opening anything.
public struct ReportMasterKeyBound: Hashable, Sendable {
    public var id: String
    /// When it was rotated away (retired in the store, then deleted from each instance's key file); nil while it
    /// is in force or retiring.
    public var retiredAt: Instant?
    /// When `keys.rotateEveryDays` rotates it away, if it is still in force; nil without a schedule.
    public var rotationDueBy: Instant?

    public init(id: String, retiredAt: Instant?, rotationDueBy: Instant?) {
        self.id = id
        self.retiredAt = retiredAt
        self.rotationDueBy = rotationDueBy
    }
}

/// The backup retention and rotation schedule the report states its bounds from (configuration).
public struct ReportRetention: Hashable, Sendable {
    /// `erasure.backupRetentionDays`: the service's store, and every target that states none of its own.
    public var storeDays: Int?
    /// `apps[].targets.NAME.backupRetentionDays`, by app and target.
    public var targetDays: [String: [String: Int]]
    /// `keys.rotateEveryDays`.
    public var rotateEveryDays: Int?

    public init(storeDays: Int? = nil, targetDays: [String: [String: Int]] = [:], rotateEveryDays: Int? = nil) {
        self.storeDays = storeDays
        self.targetDays = targetDays
        self.rotateEveryDays = rotateEveryDays
    }

    public static let unstated = ReportRetention()

    func days(app: String, target: String) -> Int? {
        target == ErasurePlanner.selfTarget ? storeDays : targetDays[app]?[target] ?? storeDays
    }
}
