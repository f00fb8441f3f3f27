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
                    "recordsCompared": dataset.findings.recordsCompared.map(JSONValue.bool) ?? .null,
                    "recordsRead": dataset.findings.recordsRead.map { .integer(Int64($0)) } ?? .null,
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
            w.member("subject", value.pseudonym)
            w.member("provider", value.provider)
            w.member("eventType", value.eventType)
            w.member("source", value.source.rawValue)
            w.member("eventTime", value.eventTime)
            w.member("receivedAt", value.receivedAt)
            w.member("acknowledgedAt", value.acknowledgedAt)
            w.member("policy", value.policy)
            w.member("deadline", value.deadline)
            w.key("extension")
            w.value(ReportLedgerRenderer.extensionValue(value.extension))
            w.key("holds")
            w.value(ReportLedgerRenderer.holdsValue(value.holds))
            w.key("denial")
            w.value(ReportLedgerRenderer.denialValue(value.denial))
            w.member("outcome", value.outcome.rawValue)
            w.member("response", value.response.rawValue)
            w.member("respondedAt", value.respondedAt)
            w.key("cancellation")
            w.optional(value.cancellation) { w, cancellation in
                w.object { w in
                    w.member("cancelledAt", cancellation.cancelledAt)
                    w.member("reason", cancellation.reason)
                    w.key("steps")
                    w.array(cancellation.steps) { $0.string($1) }
                }
            }
            w.member("onTime", value.onTime)
            w.member("completedAt", value.completedAt)
            w.member("daysToComplete", value.daysToComplete)
            w.member("verification", value.verification.rawValue)
            w.key("targets")
            w.array(value.targets) { target($1, into: &$0) }
            w.key("retained")
            w.array(value.retained) { w, item in
                w.object { w in
                    w.member("category", item.category)
                    w.member("basis", item.basis)
                    w.member("purgeAt", item.purgeAt)
                    w.member("status", item.status)
                }
            }
            w.key("remainingCopies")
            w.optional(value.remainingCopies) { remainingCopies($1, into: &$0) }
            w.key("appleRevocation")
            w.optional(value.appleRevocation) { w, revocation in
                w.object { w in
                    w.member("status", revocation.status)
                    w.member("revokedAt", revocation.revokedAt)
                    w.member("verifiedAt", revocation.verifiedAt)
                    w.member("advice", revocation.advice)
                }
            }
        }
    }

    private static func remainingCopies(_ value: ReportRemainingCopies, into w: inout JSONWriter) {
        w.object { w in
            w.key("backups")
            w.array(value.backups) { w, copy in
                w.object { w in
                    w.member("store", copy.store)
                    w.member("retentionDays", copy.retentionDays)
                    w.member("erasedAt", copy.erasedAt)
                    w.member("beyondUseBy", copy.beyondUseBy)
                }
            }
            w.member("backupsBeyondUseBy", value.backupsBeyondUseBy)
            w.key("masterKey")
            w.optional(value.masterKey) { w, key in
                w.object { w in
                    w.member("id", key.id)
                    w.member("retiredAt", key.retiredAt)
                    w.member("rotationDueBy", key.rotationDueBy)
                }
            }
            w.member("statement", value.statement)
        }
    }

    private static func target(_ value: ReportTargetOutcome, into w: inout JSONWriter) {
        w.object { w in
            w.member("target", value.target)
            w.member("rule", value.rule)
            w.key("categories")
            w.array(value.categories) { $0.string($1) }
            w.member("status", value.status)
            w.member("attempts", value.attempts)
            w.member("firstAttemptAt", value.firstAttemptAt)
            w.member("lastAttemptAt", value.lastAttemptAt)
            w.member("finishedAt", value.finishedAt)
            w.member("deadline", value.deadline)
            w.key("evidence")
            w.object { w in
                w.member("rowsAffected", value.rowsAffected)
                w.member("verificationCount", value.verificationCount)
                w.member("responseStatus", value.responseStatus)
                w.member("errorCode", value.errorCode)
                w.member("keysDestroyed", value.keysDestroyed)
                w.member("hygiene", value.hygiene)
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
