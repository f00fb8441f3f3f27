import LifecycleCore

/// What the HTML page takes from the requests' rows, gathered in one pass over them: the rows may be read back
/// from a ``ReportRowSpool`` one at a time, and a page whose sections each passed over them would read and
/// decode a large month's rows about eight times. What is kept is bounded by the page's request limit, except
/// the chart's dots (a number and a flag per completed request).
struct ReportPageRows {
    /// Every row, when the page lists every request (at most ``ReportDataset/pageRequestLimit``); else empty.
    var all: [ReportSubjectRow] = []
    /// The first exceptions by event time, at most the limit, and how many there are in all.
    var exceptions: [ReportSubjectRow] = []
    var exceptionCount = 0
    /// The first failed or unverified targets by event time, at most the limit, and how many there are.
    var failed: [(pseudonym: String, eventType: String, target: ReportTargetOutcome)] = []
    var failedCount = 0
    /// Days to complete of every completed request, by event type in event-time order, and whether it was late.
    var dots: [String: [(days: Double, late: Bool)]] = [:]
    /// The largest days to complete of any request.
    var longest: Double?
    /// Retained items by category, legal basis and status (when the page sums them up), in first-seen order.
    var retained: [RetainedGroup: (count: Int, first: Instant, last: Instant)] = [:]
    var retainedOrder: [RetainedGroup] = []
    /// Remaining copies summed up (when the page sums them up): requests with a bound, those whose bound is not
    /// known yet, the latest bound, and the master keys of destroyed data keys (each as the last request saw it).
    var bounded = 0
    var unknownBounds = 0
    var latestBound: Instant?
    var masterKeys: [String: (count: Int, key: ReportMasterKeyBound)] = [:]

    /// Equal and hashed by UTF-8 bytes, not by `String`'s Unicode equivalence: a legal basis quoted from a policy
    /// is often not ASCII ("§"), and hashing such a string normalizes it first, once per request of a large
    /// month. Texts copied from one policy are byte-identical; two spellings of one text that differ only in
    /// Unicode normalization would be two groups.
    struct RetainedGroup: Hashable {
        var category: String
        var basis: String
        var status: String

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.category.utf8.elementsEqual(rhs.category.utf8) && lhs.basis.utf8.elementsEqual(rhs.basis.utf8)
                && lhs.status.utf8.elementsEqual(rhs.status.utf8)
        }

        func hash(into hasher: inout Hasher) {
            Self.combine(category, into: &hasher)
            Self.combine(basis, into: &hasher)
            Self.combine(status, into: &hasher)
        }

        /// The text's bytes, then 0xFF, a byte UTF-8 never holds, so two texts cannot run into each other.
        private static func combine(_ text: String, into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(0xFF as UInt8)
        }
    }

    init(_ dataset: ReportDataset) {
        let limit = dataset.pageRequestLimit
        let listsEvery = dataset.pageListsEveryRequest
        for row in dataset.subjects {
            if listsEvery { all.append(row) }
            if row.isException {
                exceptionCount += 1
                if exceptions.count < limit { exceptions.append(row) }
            }
            for target in row.targets where target.status == "failed" || target.status == "unverified" {
                failedCount += 1
                if failed.count < limit { failed.append((row.pseudonym, row.eventType, target)) }
            }
            if let days = row.daysToComplete {
                dots[row.eventType, default: []].append((days, row.onTime == false))
                longest = max(longest ?? days, days)
            }
            guard !listsEvery else { continue }
            for item in row.retained {
                let group = RetainedGroup(category: item.category, basis: item.basis, status: item.status)
                if let seen = retained[group] {
                    retained[group] = (seen.count + 1, min(seen.first, item.purgeAt), max(seen.last, item.purgeAt))
                } else {
                    retained[group] = (1, item.purgeAt, item.purgeAt)
                    retainedOrder.append(group)
                }
            }
            if let copies = row.remainingCopies {
                bounded += 1
                if let end = copies.backupsBeyondUseBy {
                    latestBound = max(latestBound ?? end, end)
                } else {
                    unknownBounds += 1
                }
                if let key = copies.masterKey { masterKeys[key.id] = ((masterKeys[key.id]?.count ?? 0) + 1, key) }
            }
        }
    }
}
