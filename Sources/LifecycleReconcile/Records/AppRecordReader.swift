import LifecycleCore

/// A stream of the app's own records. Readers may fail part-way (a malformed line, a vanished file), so
/// `next()` throws; ``AppRecordIterator`` adapts a reader to the merge's `IteratorProtocol`.
package protocol AppRecordReader {
    mutating func next() throws -> AppRecord?
}

/// The app side of an app without a records source: nothing.
struct NoAppRecords: AppRecordReader {
    mutating func next() -> AppRecord? { nil }
}

/// Feeds a throwing reader to ``ReconcilerMerge``: the first error ends the stream and is kept for the caller
/// to report after the merge stops, so a broken source is never mistaken for "the app holds nothing more".
struct AppRecordIterator<Reader: AppRecordReader>: IteratorProtocol {
    private var reader: Reader
    private let failure: MergeFailure

    init(_ reader: Reader, failure: MergeFailure) {
        self.reader = reader
        self.failure = failure
    }

    mutating func next() -> AppRecord? {
        guard failure.error == nil else { return nil }
        do {
            return try reader.next()
        } catch {
            failure.error = error
            return nil
        }
    }
}

/// The first error either side of a merge hit; the merge thread owns it.
final class MergeFailure {
    var error: (any Error)?
}
