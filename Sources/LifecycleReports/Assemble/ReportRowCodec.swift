import LifecycleCore

/// A request's row as bytes and back, for the ``ReportRowSpool``: a large month's rows wait on disk between
/// assembly and rendering instead of in memory. The bytes never leave the process that wrote them (the spool
/// is an unlinked temporary file), so the format has no version: fields in declaration order, integers as
/// 8 bytes little-endian, strings as a length and their UTF-8, optionals behind a presence byte.
///
/// The record begins with the pseudonym and the event type, so the spool can order requests of the same
/// event time by reading those two alone (``leadingKey(_:)``).
enum ReportRowCodec {
    static func encode(_ row: ReportSubjectRow, into out: inout [UInt8]) {
        var writer = Writer(out: consume out)
        writer.string(row.pseudonym)
        writer.string(row.eventType)
        writer.string(row.provider)
        writer.string(row.source.rawValue)
        writer.byte(row.replayed ? 1 : 0)
        writer.instant(row.eventTime)
        writer.instant(row.receivedAt)
        writer.optional(row.policy) { $0.string($1) }
        writer.optional(row.deadline) { $0.instant($1) }
        writer.array(row.targets) { writer, target in
            writer.string(target.target)
            writer.string(target.rule)
            writer.array(target.categories) { $0.string($1) }
            writer.string(target.status)
            writer.integer(target.attempts)
            writer.optional(target.firstAttemptAt) { $0.instant($1) }
            writer.optional(target.lastAttemptAt) { $0.instant($1) }
            writer.optional(target.finishedAt) { $0.instant($1) }
            writer.instant(target.deadline)
            writer.optional(target.rowsAffected) { $0.integer($1) }
            writer.optional(target.verificationCount) { $0.integer($1) }
            writer.optional(target.responseStatus) { $0.integer($1) }
            writer.optional(target.errorCode) { $0.string($1) }
            writer.optional(target.keysDestroyed) { $0.integer($1) }
            writer.optional(target.hygiene) { $0.string($1) }
        }
        writer.string(row.verification.rawValue)
        writer.array(row.retained) { writer, item in
            writer.string(item.category)
            writer.string(item.basis)
            writer.instant(item.purgeAt)
            writer.string(item.status)
        }
        writer.string(row.outcome.rawValue)
        writer.optional(row.onTime) { $0.byte($1 ? 1 : 0) }
        writer.optional(row.completedAt) { $0.instant($1) }
        writer.optional(row.daysToComplete) { $0.word($1.bitPattern) }
        writer.optional(row.remainingCopies) { writer, copies in
            writer.array(copies.backups) { writer, backup in
                writer.string(backup.store)
                writer.optional(backup.retentionDays) { $0.integer($1) }
                writer.optional(backup.erasedAt) { $0.instant($1) }
                writer.optional(backup.beyondUseBy) { $0.instant($1) }
            }
            writer.optional(copies.backupsBeyondUseBy) { $0.instant($1) }
            writer.optional(copies.masterKey) { writer, key in
                writer.string(key.id)
                writer.optional(key.retiredAt) { $0.instant($1) }
                writer.optional(key.rotationDueBy) { $0.instant($1) }
            }
        }
        writer.optional(row.appleRevocation) { writer, revocation in
            writer.string(revocation.status)
            writer.optional(revocation.revokedAt) { $0.instant($1) }
            writer.optional(revocation.verifiedAt) { $0.instant($1) }
            writer.optional(revocation.advice) { $0.string($1) }
        }
        writer.optional(row.cancellation) { writer, cancellation in
            writer.optional(cancellation.cancelledAt) { $0.instant($1) }
            writer.string(cancellation.reason)
            writer.array(cancellation.steps) { $0.string($1) }
        }
        writer.optional(row.extension) { writer, grant in
            writer.string(grant.reason)
            writer.instant(grant.noticeAt)
            writer.instant(grant.previousDeadline)
            writer.instant(grant.newDeadline)
            writer.instant(grant.recordedAt)
        }
        writer.array(row.holds) { writer, hold in
            writer.string(hold.grounds)
            writer.instant(hold.heldAt)
            writer.optional(hold.releasedAt) { $0.instant($1) }
            writer.optional(hold.releaseReason) { $0.string($1) }
        }
        writer.optional(row.denial) { writer, denial in
            writer.string(denial.basis)
            writer.instant(denial.deniedAt)
        }
        out = writer.out
    }

    struct Malformed: Error {}

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> ReportSubjectRow {
        var reader = Reader(bytes: bytes)
        let pseudonym = try reader.string()
        let eventType = try reader.string()
        let provider = try reader.string()
        guard let source = ReportEventSource(rawValue: try reader.string()) else { throw Malformed() }
        let replayed = try reader.byte() != 0
        let eventTime = try reader.instant()
        let receivedAt = try reader.instant()
        let policy = try reader.optional { reader throws(Malformed) in try reader.string() }
        let deadline = try reader.optional { reader throws(Malformed) in try reader.instant() }
        let targets = try reader.array { reader throws(Malformed) in
            ReportTargetOutcome(
                target: try reader.string(), rule: try reader.string(),
                categories: try reader.array { reader throws(Malformed) in try reader.string() },
                status: try reader.string(), attempts: try reader.integer(),
                firstAttemptAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                lastAttemptAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                finishedAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                deadline: try reader.instant(),
                rowsAffected: try reader.optional { reader throws(Malformed) in try reader.integer() },
                verificationCount: try reader.optional { reader throws(Malformed) in try reader.integer() },
                responseStatus: try reader.optional { reader throws(Malformed) in try reader.integer() },
                errorCode: try reader.optional { reader throws(Malformed) in try reader.string() },
                keysDestroyed: try reader.optional { reader throws(Malformed) in try reader.integer() },
                hygiene: try reader.optional { reader throws(Malformed) in try reader.string() })
        }
        guard let verification = ReportVerification(rawValue: try reader.string()) else { throw Malformed() }
        let retained = try reader.array { reader throws(Malformed) in
            ReportRetainedItem(
                category: try reader.string(), basis: try reader.string(), purgeAt: try reader.instant(),
                status: try reader.string())
        }
        guard let outcome = ReportOutcome(rawValue: try reader.string()) else { throw Malformed() }
        let onTime = try reader.optional { reader throws(Malformed) in try reader.byte() != 0 }
        let completedAt = try reader.optional { reader throws(Malformed) in try reader.instant() }
        let daysToComplete = try reader.optional { reader throws(Malformed) in Double(bitPattern: try reader.word()) }
        var row = ReportSubjectRow(
            pseudonym: pseudonym, eventType: eventType, source: source, eventTime: eventTime, receivedAt: receivedAt,
            policy: policy, deadline: deadline, targets: targets, verification: verification, retained: retained,
            outcome: outcome, onTime: onTime, completedAt: completedAt, daysToComplete: daysToComplete)
        row.provider = provider
        row.replayed = replayed
        row.remainingCopies = try reader.optional { reader throws(Malformed) in
            let backups = try reader.array { reader throws(Malformed) in
                var backup = ReportBackupCopy(
                    store: try reader.string(),
                    retentionDays: try reader.optional { reader throws(Malformed) in try reader.integer() },
                    erasedAt: try reader.optional { reader throws(Malformed) in try reader.instant() })
                backup.beyondUseBy = try reader.optional { reader throws(Malformed) in try reader.instant() }
                return backup
            }
            let beyondUseBy = try reader.optional { reader throws(Malformed) in try reader.instant() }
            let masterKey = try reader.optional { reader throws(Malformed) in
                ReportMasterKeyBound(
                    id: try reader.string(),
                    retiredAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                    rotationDueBy: try reader.optional { reader throws(Malformed) in try reader.instant() })
            }
            var copies = ReportRemainingCopies(backups: backups, masterKey: masterKey)
            copies.backupsBeyondUseBy = beyondUseBy
            return copies
        }
        row.appleRevocation = try reader.optional { reader throws(Malformed) in
            ReportAppleRevocation(
                status: try reader.string(),
                revokedAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                verifiedAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                advice: try reader.optional { reader throws(Malformed) in try reader.string() })
        }
        row.cancellation = try reader.optional { reader throws(Malformed) in
            ReportCancellation(
                cancelledAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                reason: try reader.string(), steps: try reader.array { reader throws(Malformed) in try reader.string() }
            )
        }
        row.extension = try reader.optional { reader throws(Malformed) in
            ReportExtension(
                reason: try reader.string(), noticeAt: try reader.instant(), previousDeadline: try reader.instant(),
                newDeadline: try reader.instant(), recordedAt: try reader.instant())
        }
        row.holds = try reader.array { reader throws(Malformed) in
            ReportHold(
                grounds: try reader.string(), heldAt: try reader.instant(),
                releasedAt: try reader.optional { reader throws(Malformed) in try reader.instant() },
                releaseReason: try reader.optional { reader throws(Malformed) in try reader.string() })
        }
        row.denial = try reader.optional { reader throws(Malformed) in
            ReportDenial(basis: try reader.string(), deniedAt: try reader.instant())
        }
        guard reader.atEnd else { throw Malformed() }
        return row
    }

    /// The pseudonym and event type a record begins with, without decoding the rest.
    static func leadingKey(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> (pseudonym: String, eventType: String)
    {
        var reader = Reader(bytes: bytes)
        return (try reader.string(), try reader.string())
    }

    private struct Writer {
        var out: [UInt8]

        mutating func byte(_ value: UInt8) { out.append(value) }

        mutating func word(_ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }

        mutating func integer(_ value: Int) { word(UInt64(bitPattern: Int64(value))) }

        mutating func instant(_ value: Instant) { word(UInt64(bitPattern: value.millisecondsSinceEpoch)) }

        mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                word(UInt64(utf8.count))
                out.append(contentsOf: utf8)
            }
        }

        mutating func optional<Value>(_ value: Value?, _ body: (inout Writer, Value) -> Void) {
            guard let value else { return byte(0) }
            byte(1)
            body(&self, value)
        }

        mutating func array<Element>(_ values: [Element], _ body: (inout Writer, Element) -> Void) {
            word(UInt64(values.count))
            for value in values { body(&self, value) }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard position < bytes.count else { throw Malformed() }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func word() throws(Malformed) -> UInt64 {
            guard bytes.count - position >= 8 else { throw Malformed() }
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }

        mutating func integer() throws(Malformed) -> Int {
            guard let value = Int(exactly: Int64(bitPattern: try word())) else { throw Malformed() }
            return value
        }

        mutating func instant() throws(Malformed) -> Instant {
            Instant(millisecondsSinceEpoch: Int64(bitPattern: try word()))
        }

        mutating func string() throws(Malformed) -> String {
            let count = try word()
            guard count <= UInt64(bytes.count - position) else { throw Malformed() }
            let start = position
            position += Int(count)
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        mutating func optional<Value>(_ body: (inout Reader) throws(Malformed) -> Value) throws(Malformed) -> Value? {
            switch try byte() {
            case 0: return nil
            case 1: return try body(&self)
            default: throw Malformed()
            }
        }

        mutating func array<Element>(_ body: (inout Reader) throws(Malformed) -> Element) throws(Malformed) -> [Element]
        {
            let count = try word()
            // Every element takes at least a byte: a count beyond the bytes left is not a record of ours.
            guard count <= UInt64(bytes.count - position) else { throw Malformed() }
            var values: [Element] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count { values.append(try body(&self)) }
            return values
        }
    }
}
