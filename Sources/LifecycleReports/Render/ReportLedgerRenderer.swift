import LifecycleCore

/// The request ledger as JSON (CCPA regulations §7101(a): the date and nature of each request, the manner in
/// which it was made, the date and nature of the response and the basis for any denial): one entry per
/// deletion request of the period and the period's totals (§7102). Served by `GET /v1/requests` and printed by
/// `lifecycle report requests`; the report files carry the same members per `subjects[]` row.
public enum ReportLedgerRenderer {
    /// The ledger document. It and ``totals(of:)`` read the rows back, from a spool for a large period: a row the
    /// spool could not read back was a stand-in (``ReportRowSpool/row(at:)``), so both throw rather than answer
    /// without it.
    public static func document(_ dataset: ReportDataset) throws(ReportRowSpool.Failure) -> JSONValue {
        let document: JSONValue = [
            "app": .string(dataset.app),
            "period": [
                "from": .string(dataset.period.from.iso8601), "to": .string(dataset.period.to.iso8601),
                "coveredUntil": .string(dataset.coveredUntil.iso8601),
            ],
            "generatedAt": .string(dataset.generatedAt.iso8601),
            "pseudonymKeyId": .string(dataset.pseudonymKeyID),
            "totals": totals(ReportLedgerTotals(rows: dataset.subjects)),
            "requests": .array(dataset.subjects.map(entry)),
        ]
        try dataset.subjects.checkRead()
        return document
    }

    /// The period's totals (§7102), as `lifecycle report requests` prints them.
    public static func totals(of dataset: ReportDataset) throws(ReportRowSpool.Failure) -> ReportLedgerTotals {
        let totals = ReportLedgerTotals(rows: dataset.subjects)
        try dataset.subjects.checkRead()
        return totals
    }

    public static func totals(_ value: ReportLedgerTotals) -> JSONValue {
        [
            "received": .integer(Int64(value.received)),
            "compliedInWhole": .integer(Int64(value.compliedInWhole)),
            "compliedInPart": .integer(Int64(value.compliedInPart)),
            "denied": .integer(Int64(value.denied)),
            "withdrawn": .integer(Int64(value.withdrawn)),
            "open": .integer(Int64(value.open)),
            "medianDaysToRespond": value.medianDaysToRespond.map { .number($0) } ?? .null,
            "respondedSample": .integer(Int64(value.respondedSample)),
        ]
    }

    private static func optional(_ value: Instant?) -> JSONValue { value.map { .string($0.iso8601) } ?? .null }

    public static func entry(_ row: ReportSubjectRow) -> JSONValue {
        [
            "subject": .string(row.pseudonym),
            "provider": .string(row.provider),
            "eventType": .string(row.eventType),
            "source": .string(row.source.rawValue),
            "eventTime": .string(row.eventTime.iso8601),
            "receivedAt": .string(row.receivedAt.iso8601),
            "acknowledgedAt": optional(row.acknowledgedAt),
            "policy": row.policy.map { .string($0) } ?? .null,
            "deadline": optional(row.deadline),
            "extension": extensionValue(row.extension),
            "holds": holdsValue(row.holds),
            "denial": denialValue(row.denial),
            "retained": .array(
                row.retained.map { item in
                    [
                        "category": .string(item.category), "basis": .string(item.basis),
                        "purgeAt": .string(item.purgeAt.iso8601), "status": .string(item.status),
                    ]
                }),
            "outcome": .string(row.outcome.rawValue),
            "response": .string(row.response.rawValue),
            "respondedAt": optional(row.respondedAt),
            "cancellation": row.cancellation.map { cancellation in
                [
                    "cancelledAt": optional(cancellation.cancelledAt), "reason": .string(cancellation.reason),
                    "steps": .array(cancellation.steps.map { .string($0) }),
                ]
            } ?? .null,
        ]
    }

    /// `extension`: `{reason, noticeAt, previousDeadline, newDeadline, recordedAt, recordedAfterDeadline}` or null.
    package static func extensionValue(_ value: ReportExtension?) -> JSONValue {
        guard let value else { return .null }
        return [
            "reason": .string(value.reason), "noticeAt": .string(value.noticeAt.iso8601),
            "previousDeadline": .string(value.previousDeadline.iso8601),
            "newDeadline": .string(value.newDeadline.iso8601), "recordedAt": .string(value.recordedAt.iso8601),
            "recordedAfterDeadline": .bool(value.recordedAfterDeadline),
        ]
    }

    /// `holds[]`: `{grounds, heldAt, releasedAt, releaseReason}`, oldest first.
    package static func holdsValue(_ holds: [ReportHold]) -> JSONValue {
        .array(
            holds.map { hold in
                [
                    "grounds": .string(hold.grounds), "heldAt": .string(hold.heldAt.iso8601),
                    "releasedAt": optional(hold.releasedAt),
                    "releaseReason": hold.releaseReason.map { .string($0) } ?? .null,
                ]
            })
    }

    /// `denial`: `{basis, deniedAt}` or null.
    package static func denialValue(_ value: ReportDenial?) -> JSONValue {
        guard let value else { return .null }
        return ["basis": .string(value.basis), "deniedAt": .string(value.deniedAt.iso8601)]
    }
}
