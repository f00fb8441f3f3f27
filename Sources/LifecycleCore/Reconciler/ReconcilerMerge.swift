/// The reconciler's comparison (DESIGN.md §8) as a pure streaming merge of two inputs sorted by `sub`: the
/// app's records and the service's view of each account. Findings come out lazily, one subject at a time,
/// so memory stays constant however many accounts there are (a sort-merge join, as databases do).
///
/// Both inputs must be sorted by `sub` in ascending UTF-8 byte order: SQLite's default `BINARY` collation,
/// PostgreSQL with `COLLATE "C"`, `LC_ALL=C sort`. A repeated `sub` on one side is read once. A `sub` that
/// sorts before the previous one on its side ends the merge with one ``FindingCode/unsortedInput`` finding,
/// since everything after it would be compared wrongly.
///
/// Per subject, findings come in this order, each at most once:
/// 1. `retained-after-deletion`: deleted, the app's row is not a tombstone, and `asOf` is past the erasure
///    deadline.
/// 2. `session-after-revocation`: the app reports sessions > 0 for a `consent-revoked` or `deleted` account.
/// 3. `erasure-overdue` (erasure pending past its deadline), `erasure-failed`, `unverified-erasure`: the
///    service's own jobs, whether or not the app holds the subject.
/// 4. `unknown-to-service`: only the app holds it (not as a tombstone): the caller registers it as linked.
/// 5. `orphan-notification`: only the service knows it, and it is not deleted (not without a records source:
///    ``ReconcilerOptions/comparesRecords``).
public struct ReconcilerMerge<AppRecords: IteratorProtocol, ObservedAccounts: IteratorProtocol>: Sequence,
    IteratorProtocol
where AppRecords.Element == AppRecord, ObservedAccounts.Element == ObservedAccount {
    private var appRecords: AppRecords
    private var observedAccounts: ObservedAccounts
    private let asOf: Instant
    private let options: ReconcilerOptions

    private var appHead: AppRecord?
    private var observedHead: ObservedAccount?
    private var lastAppSubject: String?
    private var lastObservedSubject: String?
    private var started = false
    private var stopped = false
    /// The findings of the current subject not yet returned (a handful at most).
    private var pending: [Finding] = []
    private var pendingIndex = 0

    /// - Parameter asOf: the instant deadlines are judged against (the run's clock reading, injected).
    public init(
        appRecords: AppRecords, observedAccounts: ObservedAccounts, asOf: Instant,
        options: ReconcilerOptions = ReconcilerOptions()
    ) {
        self.appRecords = appRecords
        self.observedAccounts = observedAccounts
        self.asOf = asOf
        self.options = options
    }

    /// Whether `lhs` sorts before `rhs` in UTF-8 byte order (Swift's `<` on `String` compares by Unicode
    /// canonical equivalence, which a database's byte collation does not).
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        SubjectOrder.precedes(lhs, rhs)
    }

    public mutating func next() -> Finding? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            if stopped { return nil }
            if !started {
                started = true
                advanceApp()
                advanceObserved()
                if stopped { continue }
            }
            switch (appHead, observedHead) {
            case (nil, nil):
                stopped = true
            case (let app?, nil):
                appOnly(app)
                advanceApp()
            case (nil, let observed?):
                observedOnly(observed)
                advanceObserved()
            case (let app?, let observed?):
                if Self.precedes(app.subject, observed.subject) {
                    appOnly(app)
                    advanceApp()
                } else if Self.precedes(observed.subject, app.subject) {
                    observedOnly(observed)
                    advanceObserved()
                } else {
                    both(app, observed)
                    advanceApp()
                    advanceObserved()
                }
            }
        }
    }

    // MARK: Reading the inputs

    private mutating func advanceApp() {
        guard !stopped else { return }
        while let record = appRecords.next() {
            if let last = lastAppSubject {
                if record.subject.utf8.elementsEqual(last.utf8) { continue }
                if Self.precedes(record.subject, last) {
                    stop(side: "app records")
                    return
                }
            }
            lastAppSubject = record.subject
            appHead = record
            return
        }
        appHead = nil
    }

    private mutating func advanceObserved() {
        guard !stopped else { return }
        while let account = observedAccounts.next() {
            if let last = lastObservedSubject {
                if account.subject.utf8.elementsEqual(last.utf8) { continue }
                if Self.precedes(account.subject, last) {
                    stop(side: "service accounts")
                    return
                }
            }
            lastObservedSubject = account.subject
            observedHead = account
            return
        }
        observedHead = nil
    }

    private mutating func stop(side: String) {
        stopped = true
        appHead = nil
        observedHead = nil
        pending.append(
            Finding(
                code: .unsortedInput, subject: nil,
                detail: "the \(side) are not sorted by sub in byte order; the comparison stopped: "
                    + "sort the input (ORDER BY sub with a binary collation) and run again"))
    }

    // MARK: Judging one subject

    private func isTombstone(_ app: AppRecord) -> Bool {
        app.status.map { options.tombstoneStatuses.contains($0) } ?? false
    }

    private mutating func appOnly(_ app: AppRecord) {
        guard !isTombstone(app) else { return }
        pending.append(
            Finding(
                code: .unknownToService, subject: app.subject,
                detail: "the app holds an account the service never saw; registered as linked"))
    }

    private mutating func observedOnly(_ observed: ObservedAccount) {
        appendErasureFindings(observed)
        guard options.comparesRecords, observed.state != .deleted else { return }
        pending.append(
            Finding(
                code: .orphanNotification, subject: observed.subject,
                detail: "the service has notifications for an account (\(observed.state.canonicalName)) "
                    + "the app does not hold"))
    }

    private mutating func both(_ app: AppRecord, _ observed: ObservedAccount) {
        if observed.state == .deleted, !isTombstone(app), let deadline = observed.erasureDeadline, deadline < asOf {
            pending.append(
                Finding(
                    code: .retainedAfterDeletion, subject: observed.subject,
                    detail: "the app still holds an account deleted"
                        + (observed.deletedAt.map { " at \($0.iso8601)" } ?? "")
                        + "; its erasure deadline was \(deadline.iso8601)",
                    window: FindingWindow(from: deadline, to: asOf)))
        }
        if let sessions = app.sessions, sessions > 0 {
            switch observed.state {
            case .consentRevoked, .deleted:
                let since = observed.state == .deleted ? observed.deletedAt : observed.revokedAt
                pending.append(
                    Finding(
                        code: .sessionAfterRevocation, subject: observed.subject,
                        detail: "the app reports \(sessions) live session(s) for an account that is "
                            + observed.state.canonicalName + (since.map { " since \($0.iso8601)" } ?? ""),
                        window: since.map { FindingWindow(from: $0, to: asOf) }))
            case .linked, .emailOff:
                break
            }
        }
        appendErasureFindings(observed)
    }

    private mutating func appendErasureFindings(_ observed: ObservedAccount) {
        if let since = observed.credentialsInvalidAt, observed.state == .consentRevoked {
            pending.append(
                Finding(
                    code: .credentialsInvalid, subject: observed.subject,
                    detail: "Apple refused the account's stored refresh token (invalid_grant) at \(since.iso8601): "
                        + "consent may have been revoked or the Apple Account deleted without a notification "
                        + "reaching the service, or the password changed; sessions were ended, nothing is erased "
                        + "until the app confirms with getCredentialState on the device",
                    window: FindingWindow(from: since, to: asOf)))
        }
        if observed.appleRevocationUnverified {
            pending.append(
                Finding(
                    code: .revocationUnverified, subject: observed.subject,
                    detail: "Apple accepted the revocation of the account's token, but the token still worked "
                        + "afterwards; the user should revoke in Settings (Apple TN3194)"))
        }
        switch observed.erasureStatus {
        case .none, .completed:
            break
        case .pending:
            if let deadline = observed.erasureDeadline, deadline < asOf {
                pending.append(
                    Finding(
                        code: .erasureOverdue, subject: observed.subject,
                        detail: "erasure is not completed; its deadline was \(deadline.iso8601)",
                        window: FindingWindow(from: deadline, to: asOf)))
            }
        case .failed:
            pending.append(
                Finding(
                    code: .erasureFailed, subject: observed.subject,
                    detail: "an erasure job failed after its retries"
                        + (observed.erasureDeadline.map { "; its deadline is \($0.iso8601)" } ?? "")))
        case .unverified:
            pending.append(
                Finding(
                    code: .unverifiedErasure, subject: observed.subject,
                    detail: "an erasure job finished but a target could not verify it"))
        }
    }
}
