import LifecycleCore

/// Renders a ``ReportDataset`` as the versioned JSON document `accountlifecycle.deletion-report/5`,
/// documented field by field in `reports/README.md`. Members keep a fixed order and instants are RFC 3339
/// UTC with milliseconds, so the same dataset always gives the same bytes.
public enum ReportJSONRenderer {
    public static func document(_ dataset: ReportDataset) -> JSONValue {
        document(dataset, subjects: .array(dataset.subjects.map(row)))
    }

    private static func document(_ dataset: ReportDataset, subjects: JSONValue) -> JSONValue {
        .object([
            "schema": .string(ReportDataset.schema),
            "app": .string(dataset.app),
            "period": [
                "from": instant(dataset.period.from), "to": instant(dataset.period.to),
                "coveredUntil": instant(dataset.coveredUntil),
            ],
            "generatedAt": instant(dataset.generatedAt),
            "pseudonymKeyId": .string(dataset.pseudonymKeyID),
            "operationsPseudonymKeyId": .string(dataset.operationsPseudonymKeyID),
            "summary": summary(dataset.summary),
            "inputs": inputs(dataset.inputs),
            "eventsPerDay": .array(
                dataset.eventsPerDay.map { day in
                    [
                        "day": .string(day.day),
                        "counts": .object(JSONObject(members: day.counts.map { ($0.type, .integer(Int64($0.count))) })),
                    ]
                }),
            "findings": [
                "lastRunAt": dataset.findings.lastRunAt.map(instant) ?? .null,
                "items": .array(dataset.findings.items.map(finding)),
            ],
            "subjects": subjects,
            "integrity": dataset.integrity.map(integrity) ?? .null,
        ])
    }

    /// UTF-8 with a final newline: the document pretty-printed, each `subjects[]` row compact on a line of its
    /// own (see ``render(_:into:)``).
    public static func render(_ dataset: ReportDataset) -> [UInt8] {
        var bytes: [UInt8] = []
        render(dataset) { bytes += $0 }
        return bytes
    }

    /// Stands for the subjects array in the serialized document, which ``render(_:into:)`` cuts there; a
    /// control character, escaped by the serializer, so no dataset value spells it.
    private static let subjectsMark = "\u{1}subjects\u{1}"

    /// The same bytes in pieces: the document around the subjects, and each subject serialized as it comes, so
    /// neither the document's tree nor its text of a large month is ever whole in memory. Each piece is handed
    /// over as bytes, in one buffer reused from row to row, never as a `String`. A row is compact, one line per
    /// request: a third fewer bytes than indented (a month of a million requests is gigabytes), and a request
    /// is one `grep` away.
    public static func render(_ dataset: ReportDataset, into emit: ([UInt8]) -> Void) {
        let text = document(dataset, subjects: .string(subjectsMark)).serializedBytes(pretty: true)
        let mark = JSONValue.string(subjectsMark).serializedBytes()
        guard let range = text.firstRange(of: mark) else {
            emit(document(dataset).serializedBytes(pretty: true) + Array("\n".utf8))
            return
        }
        emit(Array(text[..<range.lowerBound]))
        if dataset.subjects.isEmpty {
            emit(Array("[]".utf8))
        } else {
            emit(Array("[".utf8))
            var piece: [UInt8] = []
            for (offset, subject) in dataset.subjects.enumerated() {
                piece.removeAll(keepingCapacity: true)
                piece += (offset > 0 ? ",\n    " : "\n    ").utf8
                row(subject).serialize(into: &piece)
                emit(piece)
            }
            emit(Array("\n  ]".utf8))
        }
        emit(Array(text[range.upperBound...]) + Array("\n".utf8))
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

    /// The members of a row that its `deletion-outcome` leaf copies (``ReportLogEntries/outcomeMembers``), with
    /// the values ``row(_:)`` renders, without rendering the rest of the row.
    static func outcomeMembers(_ value: ReportSubjectRow) -> [String: JSONValue] {
        [
            "subject": .string(value.pseudonym), "eventType": .string(value.eventType),
            "eventTime": instant(value.eventTime), "policy": optional(value.policy),
            "deadline": optional(value.deadline), "outcome": .string(value.outcome.rawValue),
            "onTime": value.onTime.map { .bool($0) } ?? .null, "completedAt": optional(value.completedAt),
            "verification": .string(value.verification.rawValue),
        ]
    }

    static func row(_ value: ReportSubjectRow) -> JSONValue {
        [
            "subject": .string(value.pseudonym),
            "provider": .string(value.provider),
            "eventType": .string(value.eventType),
            "source": .string(value.source.rawValue),
            "eventTime": instant(value.eventTime),
            "receivedAt": instant(value.receivedAt),
            "acknowledgedAt": optional(value.acknowledgedAt),
            "policy": optional(value.policy),
            "deadline": optional(value.deadline),
            "extension": ReportLedgerRenderer.extensionValue(value.extension),
            "holds": ReportLedgerRenderer.holdsValue(value.holds),
            "denial": ReportLedgerRenderer.denialValue(value.denial),
            "outcome": .string(value.outcome.rawValue),
            "response": .string(value.response.rawValue),
            "respondedAt": optional(value.respondedAt),
            "cancellation": value.cancellation.map(cancellation) ?? .null,
            "onTime": value.onTime.map { .bool($0) } ?? .null,
            "completedAt": optional(value.completedAt),
            "daysToComplete": optional(value.daysToComplete),
            "verification": .string(value.verification.rawValue),
            "targets": .array(value.targets.map(target)),
            "retained": .array(value.retained.map(retained)),
            "remainingCopies": value.remainingCopies.map(remainingCopies) ?? .null,
            "appleRevocation": value.appleRevocation.map(appleRevocation) ?? .null,
        ]
    }

    private static func cancellation(_ value: ReportCancellation) -> JSONValue {
        [
            "cancelledAt": optional(value.cancelledAt), "reason": .string(value.reason),
            "steps": .array(value.steps.map { .string($0) }),
        ]
    }

    private static func appleRevocation(_ value: ReportAppleRevocation) -> JSONValue {
        [
            "status": .string(value.status), "revokedAt": optional(value.revokedAt),
            "verifiedAt": optional(value.verifiedAt), "advice": optional(value.advice),
        ]
    }

    private static func remainingCopies(_ value: ReportRemainingCopies) -> JSONValue {
        [
            "backups": .array(
                value.backups.map { copy in
                    [
                        "store": .string(copy.store),
                        "retentionDays": copy.retentionDays.map { .integer(Int64($0)) } ?? .null,
                        "erasedAt": optional(copy.erasedAt),
                        "beyondUseBy": optional(copy.beyondUseBy),
                    ]
                }),
            "backupsBeyondUseBy": optional(value.backupsBeyondUseBy),
            "masterKey": value.masterKey.map { key in
                [
                    "id": .string(key.id), "retiredAt": optional(key.retiredAt),
                    "rotationDueBy": optional(key.rotationDueBy),
                ]
            } ?? .null,
            "statement": .string(value.statement),
        ]
    }

    private static func target(_ value: ReportTargetOutcome) -> JSONValue {
        [
            "target": .string(value.target),
            "rule": .string(value.rule),
            "categories": .array(value.categories.map { .string($0) }),
            "status": .string(value.status),
            "attempts": .integer(Int64(value.attempts)),
            "firstAttemptAt": optional(value.firstAttemptAt),
            "lastAttemptAt": optional(value.lastAttemptAt),
            "finishedAt": optional(value.finishedAt),
            "deadline": instant(value.deadline),
            "evidence": [
                "rowsAffected": optional(value.rowsAffected),
                "verificationCount": optional(value.verificationCount),
                "responseStatus": optional(value.responseStatus),
                "errorCode": optional(value.errorCode),
                "keysDestroyed": optional(value.keysDestroyed),
                "hygiene": optional(value.hygiene),
            ],
        ]
    }

    private static func retained(_ value: ReportRetainedItem) -> JSONValue {
        [
            "category": .string(value.category),
            "basis": .string(value.basis),
            "purgeAt": instant(value.purgeAt),
            "status": .string(value.status),
        ]
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
