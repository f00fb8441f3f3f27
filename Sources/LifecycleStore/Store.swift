import LifecycleCore

/// Durable state of the service. One protocol, several implementations (SQLite now, PostgreSQL later):
/// callers never see SQL, and the same store test-suite runs against every implementation.
///
/// Writes go through ``write(_:)``: the body runs inside a transaction and the call returns only after that
/// transaction is durably committed. Implementations may let concurrent writers share one commit (group
/// commit); each body then runs inside its own savepoint, so a body that throws rolls back only its own work
/// and its caller gets that error, while the other bodies of the batch commit. A body must not keep the
/// reader or writer it is given beyond its own execution.
public protocol Store: Sendable {
    /// Runs `body` inside a write transaction; returns after the commit is durable. Cancelling the calling
    /// task does not withdraw a write already accepted: it still runs and commits.
    ///
    /// - Throws: the body's own error (its changes rolled back); ``StoreError/unavailable(_:)`` when the
    ///   transaction could not commit (then nothing of the body is stored); ``StoreError/closed``.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriter) throws -> T) async throws -> T
    /// Runs `body` against a consistent snapshot (one read transaction).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReader) throws -> T) async throws -> T
    /// Finishes the writes already accepted, then releases resources; later calls fail with
    /// ``StoreError/closed``. Calling it again is harmless.
    func close() async
    /// Counters about writes and commits, for metrics and benchmarks.
    var statistics: StoreStatistics { get }
    /// Runs `body` while holding the lock called `name`, shared by every process using this store (several
    /// `serve` instances on one PostgreSQL database; `serve` and a command next to it on one SQLite file):
    /// one reconciler run or one daily report at a time. Does not wait for a holder: when another holder has
    /// the lock, returns nil without running `body` (SQLite first looks again for about a second, for a lock
    /// held only by a starting child process's copy of a descriptor). The lock is released when `body` returns or throws, and
    /// also when the holding process dies, so a crash never leaves it taken.
    ///
    /// The lock is not tied to the store's transactions: `body` reads and writes through the store as usual.
    func withExclusiveLock<T: Sendable>(named name: String, _ body: @Sendable () async throws -> T) async throws -> T?
    /// Leaves no byte of erased data in the store's own files: SQLite checkpoints its write-ahead log into the
    /// database file and truncates it (deleted content is zeroed: `secure_delete`); PostgreSQL vacuums the data
    /// key table, so destroyed keys' old row versions are removed from its heap. Runs outside any transaction,
    /// off the request path; a reader that keeps the log busy makes it return `complete: false` after a
    /// bounded wait, to be tried again later.
    func removeRemnants() async throws -> RemnantRemoval
    /// After the one-time sealing of an older release's clear-text values: rewrites the whole database so
    /// that no clear-text byte remains in free space (SQLite `VACUUM`; PostgreSQL `VACUUM FULL` of the
    /// inbox), then ``removeRemnants()``.
    func compactAfterConversion() async throws -> RemnantRemoval
    /// After a retention purge (``StoreWriter/purgeExpired(_:before:limit:)``): what ``removeRemnants()`` does,
    /// and on PostgreSQL a `VACUUM` of the purged tables, so the cleared payloads' old row versions leave the
    /// heap instead of waiting for autovacuum.
    func removeRemnantsOfPurge() async throws -> RemnantRemoval
}

/// Queries available inside ``Store/read(_:)`` and ``Store/write(_:)``.
public protocol StoreReader {
    func notification(jti: String) throws -> StoredNotification?
    func notification(id: Int64) throws -> StoredNotification?
    func notificationCount() throws -> Int
    /// The oldest heartbeat kept, of any instance: where the store's record of instances receiving begins (a
    /// fresh store's first `serve`); nil when none ever ran.
    func firstHeartbeat() throws -> Instant?
    /// When the newest stored notification was received; nil for an empty inbox.
    func latestNotificationReceivedAt() throws -> Instant?
    /// Stored notifications of `app` with event time in `[from, to)`, by their type as Apple sent it (a type
    /// the service does not know included): what the deletion report counts as notifications received.
    func notificationTypeCounts(app: String, from: Instant, to: Instant) throws -> [String: Int]
    func rejectionCount() throws -> Int
    /// The most recent rejections, newest first.
    func rejections(limit: Int) throws -> [StoredRejection]
    /// Heartbeats with `start <= at < end`, oldest first.
    func heartbeats(from start: Instant, to end: Instant) throws -> [Heartbeat]

    // MARK: Accounts

    /// The saved record of one account, or nil while the `sub` is unknown to this app.
    func account(app: String, subject: String) throws -> AccountRecord?
    /// Accounts of one app, or of every app when `app` is nil.
    func accountCount(app: String?) throws -> Int
    /// Up to `limit` accounts of `app` whose `sub` sorts after `afterSubject` (from the start when nil),
    /// ordered by `sub` (byte order): keyset paging, so a long walk neither skips nor repeats an account
    /// while others are inserted.
    func accounts(app: String, afterSubject: String?, limit: Int) throws -> [(subject: String, record: AccountRecord)]
    /// The token vault's row of an account (its sealed refresh token, when kept, and the token's
    /// bookkeeping), nil when the account never had one.
    func appleToken(app: String, subject: String) throws -> StoredAppleToken?
    /// The revocation a deletion queued for the account, nil when none did.
    func appleRevocation(app: String, subject: String) throws -> StoredAppleRevocation?
    /// Revocations per status; every status is present, zero when none.
    func appleRevocationCounts() throws -> [AppleRevocationStatus: Int]

    // MARK: History

    /// Every history line of one account, oldest first.
    func history(app: String, subject: String) throws -> [StoredHistoryEntry]
    /// The history lines of every account of `app` whose `sub` lies in `[fromSubject, throughSubject]` (byte
    /// order, as ``accounts(app:afterSubject:limit:)`` pages them), by `sub` then oldest first: one range
    /// statement for a page of accounts. The same range reads exist for the jobs, decisions, revocations and
    /// data keys below.
    func history(app: String, fromSubject: String, throughSubject: String) throws -> [(
        subject: String, entry: StoredHistoryEntry
    )]
    /// The Apple token revocations of the accounts in `[fromSubject, throughSubject]`, by `sub`.
    func appleRevocations(app: String, fromSubject: String, throughSubject: String) throws -> [StoredAppleRevocation]
    /// How many applied inputs moved an account from one state to another (including refreshes that stay),
    /// over every app, for metrics. `from` is `none` for the input that created the record.
    func transitionCounts() throws -> [(from: String, to: String, count: Int)]

    // MARK: Outbox

    /// Messages in id order after `afterID` (from the start when nil), of one status or all.
    func outbox(status: OutboxStatus?, limit: Int, afterID: Int64?) throws -> [OutboxMessage]
    func outboxMessage(id: Int64) throws -> OutboxMessage?
    /// Messages per status; every status is present, zero when none.
    func outboxCounts() throws -> [OutboxStatus: Int]
    /// The earliest instant at which ``StoreWriter/claimOutbox(now:owner:leaseUntil:limit:)`` can return
    /// something, given what is stored now (a dispatcher sleeps until then or until a new enqueue): over the
    /// pending messages first in line for their account, the later of `available_at` and the end of a live
    /// lease. Nil when nothing is pending. It may be in the past: then a claim finds work now.
    func nextOutboxDue() throws -> Instant?

    // MARK: Erasure jobs

    func erasureJob(id: Int64) throws -> StoredErasureJob?
    /// Jobs in id order after `afterID` (from the start when nil), of one status or all.
    func erasureJobs(status: ErasureJobStatus?, limit: Int, afterID: Int64?) throws -> [StoredErasureJob]
    /// Every job of one account, oldest first.
    func erasureJobs(app: String, subject: String) throws -> [StoredErasureJob]
    /// Every extension, hold and refusal recorded for the account's deletion requests, oldest first.
    func requestDecisions(app: String, subject: String) throws -> [StoredRequestDecision]
    /// The alias in force for the identifier `alias` (its latest row), nil when it names only itself.
    func accountAliasInForce(app: String, alias: String) throws -> StoredAccountAlias?
    /// Every row of each identifier that names the account or ever did, or that is the account's own key,
    /// oldest first.
    func accountAliases(app: String, subject: String) throws -> [StoredAccountAlias]
    /// How many rows of `kind` were recorded for the identifier `alias` (the recycles so far, which number the
    /// next holder).
    func accountAliasCount(app: String, alias: String, kind: AccountAliasKind) throws -> Int
    /// The jobs of the accounts in `[fromSubject, throughSubject]`, by `sub` then id, with their steps.
    func erasureJobs(app: String, fromSubject: String, throughSubject: String) throws -> [StoredErasureJob]
    /// The decisions of the accounts in `[fromSubject, throughSubject]`, by `sub` then id.
    func requestDecisions(app: String, fromSubject: String, throughSubject: String) throws -> [StoredRequestDecision]
    /// Jobs per status; every status is present, zero when none.
    func erasureJobCounts() throws -> [ErasureJobStatus: Int]
    /// Steps per (target, status), only the pairs that occur.
    func erasureStepCounts() throws -> [ErasureStepCount]
    /// Jobs not completed nor cancelled whose deadline is before `now`.
    func overdueErasureJobCount(now: Instant) throws -> Int
    /// Up to `limit` uncancelled jobs with a step in `waiting-callback` whose last attempt was at or before
    /// `cutoff`: callbacks that never came, oldest job first.
    func erasureJobsAwaitingCallback(since cutoff: Instant, limit: Int) throws -> [StoredErasureJob]
    /// How much of one subject's personal data in `scopes` the service could still read: live data keys of
    /// those scopes, plus rows still holding a value of their columns (sealed, or in the clear from an older
    /// release). 0 proves an erasure.
    func remainingSubjectValues(app: String, subject: String, scopes: Set<SubjectKeyScope>) throws -> Int

    // MARK: Sealed personal values

    /// The data key of one subject and scope (live or destroyed), nil when none was ever made.
    func subjectKey(app: String, subject: String, scope: SubjectKeyScope) throws -> StoredSubjectKey?
    /// Every data key of one subject, by scope.
    func subjectKeys(app: String, subject: String) throws -> [StoredSubjectKey]
    /// The data keys of the accounts in `[fromSubject, throughSubject]`, by `sub` then scope.
    func subjectKeys(app: String, fromSubject: String, throughSubject: String) throws -> [StoredSubjectKey]
    /// Up to `limit` live data keys wrapped by `masterKeyID` after `after` in primary-key order (app, sub,
    /// scope; from the start when nil): a rotation walks the key table once, batch after batch.
    func subjectKeys(wrappedBy masterKeyID: String, after: StoredSubjectKey?, limit: Int) throws -> [StoredSubjectKey]
    /// Live data keys wrapped by each master key, by id.
    func liveSubjectKeyCounts() throws -> [String: Int]
    /// Every master key the store has known, oldest first.
    func masterKeys() throws -> [StoredMasterKey]
    /// Every sealed value of one subject, in every ``SealedColumn``.
    func sealedValues(app: String, subject: String) throws -> [StoredSealedValue]
    /// Up to `limit` inbox rows after id `afterID`, in id order, written by an older release with an e-mail or
    /// raw JWS in the clear.
    func plaintextNotificationValues(afterID: Int64, limit: Int) throws -> [PlaintextNotificationValues]
    /// Whether the one-time conversion `name` has completed (``StoreWriter/recordConversion(_:at:)``).
    func conversionDone(_ name: String) throws -> Bool
    /// What the running instances said they hold, seen at or after `since`.
    func instanceMasterKeys(since: Instant) throws -> [InstanceMasterKeys]

    // MARK: Reconciler

    /// Recent reconcile runs, newest first.
    func reconcileRuns(limit: Int) throws -> [StoredReconcileRun]
    /// Findings in id order, open ones only unless `includeResolved`.
    func findings(app: String?, includeResolved: Bool, limit: Int, afterID: Int64?) throws -> [StoredFinding]
    /// One page of the service's view of an app's accounts, ordered by `sub` in byte order (``SubjectOrder``),
    /// with the state of their erasure jobs.
    func observedAccounts(app: String, afterSubject: String?, limit: Int) throws -> [ObservedAccount]
    /// Accounts of the app that are not deleted.
    func liveAccountCount(app: String) throws -> Int

    /// The subjects and receipt times of the app's security events of the event-type URI `typeURI` received in
    /// [from, to), oldest first, at most `limit` (the reconciler's `identifier-recycled` findings).
    func securityEvents(
        app: String, typeURI: String, from: Instant, to: Instant, limit: Int
    ) throws -> [(subject: String, receivedAt: Instant)]

    /// The subjects and receipt times of the app's security events of type `typeURI` whose stored subject
    /// starts with `subjectPrefix`, newest first, at most `limit` (a provider's stream events).
    func latestSecurityEvents(
        app: String, typeURI: String, subjectPrefix: String, limit: Int
    ) throws -> [(subject: String, receivedAt: Instant)]

    // MARK: Daily reports

    /// The record that the app's reports for `day` were written, nil while they are not.
    func dailyReport(day: String, app: String) throws -> DailyReportRecord?

    /// The latest day (`yyyy-MM-dd`) the app's reports are recorded as written for, nil when none ever was: how
    /// `serve` tells a scheduled day it missed (down at `reconcile.dailyAt`) from a first start.
    func lastDailyReportDay(app: String) throws -> String?
}

/// Changes available inside ``Store/write(_:)``.
public protocol StoreWriter: StoreReader {
    /// Inserts a verified notification into the inbox unless it is a duplicate: same `jti`, or the same
    /// semantic key (app, sub, type, event_time), since Apple may resend an event under a new `jti`.
    /// Decided by the store's unique keys, so two concurrent inserts of one event cannot both succeed.
    func insertNotification(_ notification: NewNotification) throws -> InboxInsertion
    /// Inserts a verified Security Event Token into the same inbox, under the same two unique keys (its `jti`
    /// qualified by app and provider, ``NewSecurityEvent/inboxKey``).
    func insertSecurityEvent(_ event: NewSecurityEvent) throws -> InboxInsertion
    /// Records an attempt that failed verification: reason code, time, size and body hash, never the body.
    func insertRejection(_ rejection: NewRejection) throws
    /// Records that `instance` was alive at `instant`; recording the same pair twice is a no-op.
    func recordHeartbeat(instance: String, at instant: Instant) throws

    // MARK: Accounts

    /// Creates or replaces the record of one account. Leaves its Apple token as it is.
    func saveAccount(app: String, subject: String, record: AccountRecord) throws
    /// Keeps the sealed Apple refresh token of an existing account, replacing any earlier one and clearing
    /// its dropped, revoked and probed times.
    /// - Returns: false when there is no such account (nothing stored).
    @discardableResult
    func saveAppleToken(_ token: NewAppleToken) throws -> Bool
    /// Forgets the account's Apple refresh token at `instant` (a transition dropped it); the row stays, with
    /// the time. False when no token was kept.
    @discardableResult
    func dropAppleToken(app: String, subject: String, at instant: Instant) throws -> Bool
    /// Queues the revocation of the account's Apple tokens (a deletion's effect, in its transaction): `pending`
    /// when the vault holds a token, else recorded at once as ``AppleRevocationStatus/noToken``. The token stays
    /// sealed in the vault until the revocation is final.
    /// - Returns: the status recorded, nil when the account already had a revocation (nothing changed).
    @discardableResult
    func enqueueAppleRevocation(app: String, subject: String, at instant: Instant) throws -> AppleRevocationStatus?
    /// Claims up to `limit` due `pending` revocations for `owner` until `leaseUntil`, counting the attempt; the
    /// outbox's lease rule (``claimOutbox(now:owner:leaseUntil:limit:)``) without its per-account order, an
    /// account having one revocation.
    func claimAppleRevocations(now: Instant, owner: String, leaseUntil: Instant, limit: Int) throws
        -> [StoredAppleRevocation]
    /// Sends a claimed revocation back to `pending`, not claimable before `nextAttemptAt`, if `owner` still holds
    /// its lease; `revokedAt` records that Apple accepted `/auth/revoke` in this attempt. `error` is a code,
    /// never a token.
    @discardableResult
    func retryAppleRevocation(id: Int64, owner: String, revokedAt: Instant?, error: String, nextAttemptAt: Instant)
        throws -> Bool
    /// Records a claimed revocation's final status, if `owner` still holds its lease, and clears the sealed token
    /// in the vault in the same transaction (marked revoked when Apple was told to revoke, dropped otherwise).
    @discardableResult
    func finishAppleRevocation(
        id: Int64, owner: String, status: AppleRevocationStatus, revokedAt: Instant?, verifiedAt: Instant?,
        error: String?, at instant: Instant
    ) throws -> Bool

    /// Claims up to `limit` of `app`'s held, unrevoked tokens due for their daily probe, oldest probe first
    /// (a token never probed counts from when it was linked), and records `now` as their last probe in the same
    /// statement that tests the rule: none is claimed within ``AppleTokenProbeClaim/interval`` of its last
    /// probe, by this or any other instance, nor before a release's `retryAt`.
    func claimAppleTokenProbes(app: String, now: Instant, limit: Int) throws -> [AppleTokenProbeClaim]
    /// Gives a claimed probe back when it got no answer from Apple (5xx, 429, timeout, refused client): the last
    /// probe time is restored, so the day's probe is not lost, and the token is not claimed again before
    /// `retryAt`. False when another claim or a new link has replaced this one (nothing changed).
    @discardableResult
    func releaseAppleTokenProbe(_ claim: AppleTokenProbeClaim, retryAt: Instant?) throws -> Bool

    // MARK: History

    /// Appends one history line and returns its id. `source` is one of `notification`, `replay`, `admin`,
    /// `reconciler`; `notificationID`, when given, must be an inbox row (else the write fails).
    @discardableResult
    func appendHistory(app: String, subject: String, entry: AccountHistoryEntry, source: String, notificationID: Int64?)
        throws -> Int64

    // MARK: Outbox

    /// Enqueues a message as `pending` with no attempts; returns its id (increasing in enqueue order).
    @discardableResult
    func enqueueOutbox(_ message: NewOutboxMessage) throws -> Int64
    /// Claims up to `limit` due messages for `owner` until `leaseUntil`, incrementing their attempts.
    ///
    /// A message is due when it is `pending`, `available_at <= now` and not under a live lease
    /// (`leased_until > now`). Delivery is in order per account: a message is claimable only when no older
    /// message (smaller id) of the same (app, sub) is still `pending`, leased or not; delivered and dead ones
    /// do not block. So one claim returns at most one message per account. Two runners, in two processes on
    /// one database, never both hold a live lease on one message. Returned oldest `available_at` first.
    /// `leaseUntil` should be later than `now` by more than a delivery takes: once it passes, another runner
    /// may claim the message again (at-least-once delivery).
    func claimOutbox(now: Instant, owner: String, leaseUntil: Instant, limit: Int) throws -> [OutboxMessage]
    /// Marks a claimed message delivered, if `owner` is still its lease owner (a runner whose lease expired
    /// and was taken over by another is refused; one whose lease expired untaken is not, the work being done).
    /// - Returns: whether the message was marked.
    @discardableResult
    func completeOutbox(id: Int64, owner: String, at instant: Instant, statusCode: Int?) throws -> Bool
    /// Records a failed attempt by the lease `owner` (same rule as ``completeOutbox(id:owner:at:statusCode:)``):
    /// back to `pending`, lease cleared, not claimable before `nextAttemptAt`; or, when `nextAttemptAt` is
    /// nil, `dead`. `error` must not contain a `sub`, e-mail or token.
    /// - Returns: whether the message was updated.
    @discardableResult
    func failOutbox(
        id: Int64, owner: String, error: String, statusCode: Int?, nextAttemptAt: Instant?, at instant: Instant
    )
        throws -> Bool
    /// Sends a `dead` message back to `pending`, available at `now`, with its attempts reset to 0 so it gets
    /// the full retry schedule again (its last error stays for the record). Messages of the same account
    /// enqueued after it wait for it again.
    /// - Returns: false when the message does not exist or is not dead.
    @discardableResult
    func retryOutbox(id: Int64, now: Instant) throws -> Bool

    // MARK: Erasure jobs

    /// Inserts a job and one pending step per target of `plan`, each due at `plan.notBefore`; returns its id.
    @discardableResult
    func insertErasureJob(app: String, subject: String, plan: ErasureJobPlan, createdAt: Instant) throws -> Int64
    /// Claims up to `limit` due steps for `owner` until `leaseUntil`: marks each `running`, counts the attempt
    /// and returns it with its job. Due: `pending` with `next_attempt_at <= now`, or `running` under a lease
    /// that has passed (its runner died); the job not cancelled; and a ``ErasurePlanner/selfTarget`` step
    /// only once every other step of its job is final and the account has no `pending` Apple revocation (the
    /// step destroys the data key that opens the token the revocation sends); and no legal hold in force on the
    /// job's request (``recordRequestDecision(_:)``). One `UPDATE` inside the writer's transaction decides,
    /// so two runners (threads or processes on one database) never hold a live lease on one step.
    func claimErasureSteps(now: Instant, owner: String, leaseUntil: Instant, limit: Int) throws
        -> [ClaimedErasureStep]
    /// Stores `step` (the value after ``ErasureStep/record(stepResult:at:retry:random:)``) as step `index` of
    /// job `jobID`, clears the lease and re-derives the job's status. With an `owner`, only while that owner
    /// still holds the step (a runner whose lease was taken over is refused); with nil (a callback), only when
    /// the step is `waiting-callback`.
    /// - Returns: the job as stored afterwards, or nil when refused.
    @discardableResult
    func recordErasureStep(jobID: Int64, index: Int, step: ErasureStep, owner: String?, at instant: Instant) throws
        -> StoredErasureJob?
    /// Sends every `failed` or `unverified` step of a finished job back to `pending`, due at `now` with its
    /// attempts reset, and re-derives the job's status. Cancelled jobs are never retried.
    /// - Returns: how many steps were reset (0 when the job does not exist or has none to retry).
    @discardableResult
    func retryErasureJob(id: Int64, now: Instant) throws -> Int
    /// Erases the service's own copies of one subject's personal data in `scopes` (the erasure job's `self`
    /// step): destroys the data keys (so every copy of the sealed values, in logs, free pages and backups, is
    /// unreadable) and clears the columns that held them. The account row and its history stay as the
    /// tombstone (state, dates, which policy erased it), so the account stays deleted and a report can still
    /// prove when and under which rule; the destroyed key's row stays too, naming the master key in force.
    func eraseSubjectValues(app: String, subject: String, scopes: Set<SubjectKeyScope>, at instant: Instant) throws
        -> SubjectValueErasure
    /// Re-applies one erasure recorded in the erasure journal to a restored copy of the store (`lifecycle
    /// restore`): destroys the data keys of `scopes` that existed when it ran (created at or before
    /// `erasedAt`; a newer key holds data of a later re-link and stays), clears their columns unless such a
    /// newer live key holds them, and puts back `account` as the tombstone unless the copy's record has applied
    /// a newer input. Running it twice changes nothing the second time.
    func reapplyErasure(
        app: String, subject: String, scopes: Set<SubjectKeyScope>, erasedAt: Instant, account: AccountRecord?
    ) throws -> ErasureReapplication
    /// Gives every `self` step whose hygiene is ``ErasureStepEvidence/hygienePending`` and that finished at or
    /// before `finishedBy` the hygiene `description` (what ``Store/removeRemnants()`` did); returns how many.
    @discardableResult
    func completePendingHygiene(description: String, finishedBy: Instant) throws -> Int

    // MARK: Sealed personal values

    /// Stores a new data key unless one exists for the subject and scope, and only while `masterKeyID` is the
    /// master key in force: the store decides, so two writers never store two keys for one subject, and a
    /// writer that missed a rotation learns of it instead of wrapping under a key being retired.
    func insertSubjectKey(_ key: NewSubjectKey) throws -> SubjectKeyInsertion
    /// Replaces a destroyed data key with a new one (the subject's new data after an erasure of one scope,
    /// e.g. a re-link after Apple tokens were erased), under the same rule on the master key.
    /// - Returns: false when the key is not destroyed or the master key is not in force.
    @discardableResult
    func replaceDestroyedSubjectKey(_ key: NewSubjectKey) throws -> Bool
    /// Re-wraps a live data key that `fromMasterKeyID` wraps (a rotation). False when it changed meanwhile.
    @discardableResult
    func rewrapSubjectKey(
        app: String, subject: String, scope: SubjectKeyScope, fromMasterKeyID: String, wrappedKey: [UInt8],
        masterKeyID: String
    ) throws -> Bool
    /// Registers `id` as the master key in force when none is; returns the one in force afterwards.
    func registerMasterKey(id: String, at instant: Instant) throws -> StoredMasterKey
    /// Makes `id` the master key in force and the previous one `retiring`. Waits for writers that are storing
    /// a data key under the previous key to commit first, so none is missed by the re-wrap that follows.
    /// - Returns: false when `id` is already in force.
    @discardableResult
    func switchMasterKey(to id: String, at instant: Instant) throws -> Bool
    /// Marks `retiring` master keys that no live data key uses any more as `retired`; returns their ids.
    func retireUnusedMasterKeys(at instant: Instant) throws -> [String]
    /// Seals the clear-text values of an older release's inbox row: stores the sealed forms and sets the
    /// clear-text columns to NULL.
    func sealPlaintextNotification(id: Int64, sealedEmail: [UInt8]?, sealedRawJWS: [UInt8]?) throws
    /// Records that the one-time conversion `name` has completed.
    func recordConversion(_ name: String, at instant: Instant) throws
    /// Records which master keys `instance` holds (or, with nil, that it stopped).
    func recordInstanceMasterKeys(instance: String, masterKeyIDs: [String]?, at instant: Instant) throws

    /// Records an extension, hold or refusal and, in the same transaction, its effect on the request's open
    /// erasure jobs: an extension moves their deadline (never earlier), a refusal cancels them with the reason
    /// `refused: <basis>`, a hold keeps ``claimErasureSteps(now:owner:leaseUntil:limit:)`` off every step of the
    /// request until ``releaseRequestHold(_:at:reason:)``. Returns the row id.
    func recordRequestDecision(_ decision: NewRequestDecision) throws -> Int64

    /// Appends an alias row (``NewAccountAlias``); returns its id.
    @discardableResult
    func recordAccountAlias(_ alias: NewAccountAlias) throws -> Int64

    /// Releases the request's holds in force; returns how many were.
    func releaseRequestHold(_ request: DeletionRequestKey, at instant: Instant, reason: String) throws -> Int

    /// Cancels every unfinished job of the account whose rule says `cancelIfRelinked` (``ErasureJob``'s own
    /// rule), recording `reason`; returns the ids cancelled.
    @discardableResult
    func cancelErasureJobsForRelink(app: String, subject: String, at instant: Instant, reason: String) throws
        -> [Int64]

    // MARK: Reconciler

    /// Takes the reconcile lock (one run at a time across every process on this store) and records the run.
    /// A `running` run whose lease expired is marked `abandoned` first, so a crashed run never blocks.
    func beginReconcileRun(app: String?, owner: String, at instant: Instant, leaseUntil: Instant) throws
        -> ReconcileRunClaim
    /// Marks the `running` run `id` abandoned with `reason`, releasing the lock before its lease ends: for a
    /// caller that knows the holder's process is gone.
    /// - Returns: false when `id` is not running (finished, or already taken over).
    @discardableResult
    func abandonReconcileRun(id: Int64, at instant: Instant, reason: String) throws -> Bool
    func renewReconcileRun(id: Int64, leaseUntil: Instant) throws
    func finishReconcileRun(
        id: Int64, status: ReconcileRunStatus, at instant: Instant, summary: String?, error: String?)
        throws
    /// Inserts new findings and refreshes ones seen before (same app, code and subject or window): a second
    /// run never duplicates a finding.
    func recordFindings(app: String, runID: Int64, findings: [Finding], at instant: Instant) throws
    /// Marks the app's open findings that run `runID` did not see again as resolved; returns how many.
    @discardableResult
    func resolveFindings(app: String, notSeenInRun runID: Int64, at instant: Instant) throws -> Int

    // MARK: Daily reports

    /// Records that the reports of `record.app` for `record.day` were written, unless that is recorded
    /// already (decided by the primary key, so two instances cannot both record one day).
    /// - Returns: false when the day was already recorded (nothing changed).
    @discardableResult
    func recordDailyReport(_ record: DailyReportRecord) throws -> Bool

    // MARK: Retention

    /// Purges up to `limit` records of `kind` that expired before `cutoff`, oldest first (what a purge does to
    /// each kind: ``RetentionKind``); returns how many. Call again until it returns fewer than `limit`.
    @discardableResult
    func purgeExpired(_ kind: RetentionKind, before cutoff: Instant, limit: Int) throws -> Int
}

extension StoreReader {
    /// The first page of messages, of one status or all.
    public func outbox(status: OutboxStatus? = nil, limit: Int) throws -> [OutboxMessage] {
        try outbox(status: status, limit: limit, afterID: nil)
    }
}
