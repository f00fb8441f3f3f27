import LifecycleCore

/// Renders a ``ReportDataset`` as the versioned JSON document `accountlifecycle.deletion-report/5`,
/// documented field by field in `reports/README.md`. Members keep a fixed order and instants are RFC 3339
/// UTC with milliseconds, so the same dataset always gives the same bytes.
public enum ReportJSONRenderer {
    /// The document's members before `subjects` (which ``render(_:into:)`` streams) and after it.
    private static func members(_ dataset: ReportDataset) -> (
        before: [(String, JSONValue)], after: [(String, JSONValue)]
    ) {
        let before: [(String, JSONValue)] = [
            ("schema", .string(ReportDataset.schema)),
            ("app", .string(dataset.app)),
            (
                "period",
                [
                    "from": instant(dataset.period.from), "to": instant(dataset.period.to),
                    "coveredUntil": instant(dataset.coveredUntil),
                ]
            ),
            ("generatedAt", instant(dataset.generatedAt)),
            ("pseudonymKeyId", .string(dataset.pseudonymKeyID)),
            ("operationsPseudonymKeyId", .string(dataset.operationsPseudonymKeyID)),
            ("summary", summary(dataset.summary)),
            ("inputs", inputs(dataset.inputs)),
            (
                "eventsPerDay",
                .array(
                    dataset.eventsPerDay.map { day in
                        [
                            "day": .string(day.day),
                            "counts": .object(
                                JSONObject(members: day.counts.map { ($0.type, .integer(Int64($0.count))) })),
                        ]
                    })
            ),
            (
                "findings",
                [
                    "lastRunAt": dataset.findings.lastRunAt.map(instant) ?? .null,
                    "items": .array(dataset.findings.items.map(finding)),
                ]
            ),
        ]
        return (before, [("integrity", dataset.integrity.map(integrity) ?? .null)])
    }

    /// UTF-8 with a final newline: the document pretty-printed, each `subjects[]` row compact on a line of its
    /// own (see ``render(_:into:)``).
    public static func render(_ dataset: ReportDataset) -> [UInt8] {
        var bytes: [UInt8] = []
        render(dataset) { bytes += $0 }
        return bytes
    }

    /// The same bytes in pieces: the document's other members pretty-printed as ``JSONValue`` does, and each
    /// subject written as it comes, so neither the document's tree nor its text of a large month is ever whole in
    /// memory. Each piece is handed over as bytes, in one buffer reused from row to row, never as a `String`. A
    /// row is compact, one line per request: a third fewer bytes than indented (a month of a million requests is
    /// gigabytes), and a request is one `grep` away. Rows are written by a ``JSONWriter``, without a tree: the
    /// tree was most of this file's time.
    public static func render(_ dataset: ReportDataset, into emit: ([UInt8]) -> Void) {
        let (before, after) = members(dataset)
        var piece: [UInt8] = [UInt8(ascii: "{")]
        func member(_ name: String, _ value: JSONValue?, first: Bool = false) {
            piece += (first ? "\n  " : ",\n  ").utf8
            JSONValue.string(name).serialize(into: &piece)
            piece += ": ".utf8
            value?.serialize(into: &piece, pretty: true, indent: 1)
        }
        for (offset, (name, value)) in before.enumerated() { member(name, value, first: offset == 0) }
        member("subjects", nil)
        if dataset.subjects.isEmpty {
            piece += "[]".utf8
        } else {
            piece += "[".utf8
            emit(piece)
            var writer = JSONWriter()
            for (offset, subject) in dataset.subjects.enumerated() {
                writer.reset()
                writer.bytes += (offset > 0 ? ",\n    " : "\n    ").utf8
                row(subject, into: &writer)
                emit(writer.bytes)
            }
            piece = Array("\n  ]".utf8)
        }
        for (name, value) in after { member(name, value) }
        piece += "\n}\n".utf8
        emit(piece)
    }

    static func instant(_ value: Instant) -> JSONValue { .string(value.iso8601) }

    private static func optional(_ value: Instant?) -> JSONValue { value.map(instant) ?? .null }
    private static func optional(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
    private static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
    private static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    private static func counts(_ values: [String: Int]) -> JSONValue {
        .object(JSONObject(members: values.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }))
    }

    private static func summary(_ summary: ReportSummary) -> JSONValue {
        [
            "total": typeSummary(summary.total),
            "byType": .array(summary.byType.map(typeSummary)),
            "byProvider": .array(summary.byProvider.map(providerSummary)),
            "failedJobs": .integer(Int64(summary.failedJobs)),
            "retainedItems": .integer(Int64(summary.retainedItems)),
            "openFindings": [
                "total": .integer(Int64(summary.findingsByCode.values.reduce(0, +))),
                "bySeverity": counts(summary.findingsBySeverity),
                "byCode": counts(summary.findingsByCode),
            ],
            "appleRevocations": counts(summary.appleRevocations),
        ]
    }

    private static func inputs(_ value: ReportInputCounts) -> JSONValue {
        [
            "notifications": .integer(Int64(value.notifications)),
            "applied": .integer(Int64(value.applied)),
            "duplicate": .integer(Int64(value.duplicate)),
            "stale": .integer(Int64(value.stale)),
            "ignored": .integer(Int64(value.ignored)),
            "unknownTypes": counts(value.unknownTypes),
        ]
    }

    private static func typeSummary(_ value: ReportTypeSummary) -> JSONValue {
        [
            "type": .string(value.type),
            "received": .integer(Int64(value.received)),
            "completed": .integer(Int64(value.completed)),
            "completedWithExceptions": .integer(Int64(value.completedWithExceptions)),
            "pending": .integer(Int64(value.pending)),
            "overdue": .integer(Int64(value.overdue)),
            "failed": .integer(Int64(value.failed)),
            "cancelled": .integer(Int64(value.cancelled)),
            "onTimeRate": optional(value.onTimeRate),
            "decided": .integer(Int64(value.decided)),
            "medianDaysToComplete": optional(value.medianDaysToComplete),
            "p95DaysToComplete": optional(value.p95DaysToComplete),
            "daysToCompleteSample": .integer(Int64(value.daysToCompleteSample)),
            "longestDaysToComplete": optional(value.longestDaysToComplete),
            "deadlineDays": optional(value.deadlineDays),
        ]
    }

    /// A provider's counts: the members of a type's, the provider named in place of the type.
    private static func providerSummary(_ value: ReportTypeSummary) -> JSONValue {
        guard case .object(let object) = typeSummary(value) else { return .null }
        return .object(
            JSONObject(members: [("provider", .string(value.type))] + object.members.filter { $0.key != "type" }))
    }

    private static func finding(_ value: ReportFinding) -> JSONValue {
        [
            "code": .string(value.code),
            "severity": .string(value.severity),
            "subject": optional(value.pseudonym),
            "provider": optional(value.provider),
            "detail": .string(value.detail),
            "windowFrom": optional(value.windowFrom),
            "windowTo": optional(value.windowTo),
        ]
    }

    /// One `subjects[]` row, compact. Its members and their order are the schema's (`reports/README.md`).
    static func row(_ value: ReportSubjectRow, into w: inout JSONWriter) {
        w.object { w in
            w.key("subject")
            w.string(value.pseudonym)
            w.key("provider")
            w.string(value.provider)
            w.key("eventType")
            w.string(value.eventType)
            w.key("source")
            w.string(value.source.rawValue)
            w.key("eventTime")
            w.instant(value.eventTime)
            w.key("receivedAt")
            w.instant(value.receivedAt)
            w.key("acknowledgedAt")
            w.optional(value.acknowledgedAt) { $0.instant($1) }
            w.key("policy")
            w.optional(value.policy) { $0.string($1) }
            w.key("deadline")
            w.optional(value.deadline) { $0.instant($1) }
            w.key("extension")
            w.value(ReportLedgerRenderer.extensionValue(value.extension))
            w.key("holds")
            w.value(ReportLedgerRenderer.holdsValue(value.holds))
            w.key("denial")
            w.value(ReportLedgerRenderer.denialValue(value.denial))
            w.key("outcome")
            w.string(value.outcome.rawValue)
            w.key("response")
            w.string(value.response.rawValue)
            w.key("respondedAt")
            w.optional(value.respondedAt) { $0.instant($1) }
            w.key("cancellation")
            w.optional(value.cancellation) { w, cancellation in
                w.object { w in
                    w.key("cancelledAt")
                    w.optional(cancellation.cancelledAt) { $0.instant($1) }
                    w.key("reason")
                    w.string(cancellation.reason)
                    w.key("steps")
                    w.array(cancellation.steps) { $0.string($1) }
                }
            }
            w.key("onTime")
            w.optional(value.onTime) { $0.bool($1) }
            w.key("completedAt")
            w.optional(value.completedAt) { $0.instant($1) }
            w.key("daysToComplete")
            w.optional(value.daysToComplete) { $0.number($1) }
            w.key("verification")
            w.string(value.verification.rawValue)
            w.key("targets")
            w.array(value.targets) { target($1, into: &$0) }
            w.key("retained")
            w.array(value.retained) { w, item in
                w.object { w in
                    w.key("category")
                    w.string(item.category)
                    w.key("basis")
                    w.string(item.basis)
                    w.key("purgeAt")
                    w.instant(item.purgeAt)
                    w.key("status")
                    w.string(item.status)
                }
            }
            w.key("remainingCopies")
            w.optional(value.remainingCopies) { remainingCopies($1, into: &$0) }
            w.key("appleRevocation")
            w.optional(value.appleRevocation) { w, revocation in
                w.object { w in
                    w.key("status")
                    w.string(revocation.status)
                    w.key("revokedAt")
                    w.optional(revocation.revokedAt) { $0.instant($1) }
                    w.key("verifiedAt")
                    w.optional(revocation.verifiedAt) { $0.instant($1) }
                    w.key("advice")
                    w.optional(revocation.advice) { $0.string($1) }
                }
            }
        }
    }

    private static func remainingCopies(_ value: ReportRemainingCopies, into w: inout JSONWriter) {
        w.object { w in
            w.key("backups")
            w.array(value.backups) { w, copy in
                w.object { w in
                    w.key("store")
                    w.string(copy.store)
                    w.key("retentionDays")
                    w.optional(copy.retentionDays) { $0.integer($1) }
                    w.key("erasedAt")
                    w.optional(copy.erasedAt) { $0.instant($1) }
                    w.key("beyondUseBy")
                    w.optional(copy.beyondUseBy) { $0.instant($1) }
                }
            }
            w.key("backupsBeyondUseBy")
            w.optional(value.backupsBeyondUseBy) { $0.instant($1) }
            w.key("masterKey")
            w.optional(value.masterKey) { w, key in
                w.object { w in
                    w.key("id")
                    w.string(key.id)
                    w.key("retiredAt")
                    w.optional(key.retiredAt) { $0.instant($1) }
                    w.key("rotationDueBy")
                    w.optional(key.rotationDueBy) { $0.instant($1) }
                }
            }
            w.key("statement")
            w.string(value.statement)
        }
    }

    private static func target(_ value: ReportTargetOutcome, into w: inout JSONWriter) {
        w.object { w in
            w.key("target")
            w.string(value.target)
            w.key("rule")
            w.string(value.rule)
            w.key("categories")
            w.array(value.categories) { $0.string($1) }
            w.key("status")
            w.string(value.status)
            w.key("attempts")
            w.integer(value.attempts)
            w.key("firstAttemptAt")
            w.optional(value.firstAttemptAt) { $0.instant($1) }
            w.key("lastAttemptAt")
            w.optional(value.lastAttemptAt) { $0.instant($1) }
            w.key("finishedAt")
            w.optional(value.finishedAt) { $0.instant($1) }
            w.key("deadline")
            w.instant(value.deadline)
            w.key("evidence")
            w.object { w in
                w.key("rowsAffected")
                w.optional(value.rowsAffected) { $0.integer($1) }
                w.key("verificationCount")
                w.optional(value.verificationCount) { $0.integer($1) }
                w.key("responseStatus")
                w.optional(value.responseStatus) { $0.integer($1) }
                w.key("errorCode")
                w.optional(value.errorCode) { $0.string($1) }
                w.key("keysDestroyed")
                w.optional(value.keysDestroyed) { $0.integer($1) }
                w.key("hygiene")
                w.optional(value.hygiene) { $0.string($1) }
            }
        }
    }

    private static func integrity(_ value: ReportIntegrity) -> JSONValue {
        [
            "sequence": .integer(Int64(value.sequence)),
            "previousManifestLineSha256": .string(value.previousManifestLineSHA256),
            "signingKeyId": .string(value.signingKeyID),
            "manifest": .string(value.manifest),
        ]
    }
}
