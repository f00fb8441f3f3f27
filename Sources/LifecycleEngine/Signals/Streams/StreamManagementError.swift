/// Why a call to a transmitter's discovery or stream management failed: one line naming the URL or file and
/// what to do. Never carries a token or the answer's body (a transmitter's error text is quoted only as its
/// `err`/`error` code, bounded). The line is bounded too (``maximumDescriptionBytes``): the URLs in it can
/// come from the transmitter's own documents.
public struct StreamManagementError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public static let maximumDescriptionBytes = 1024

    public init(_ description: String) {
        self.description = description.quotedForError(maxBytes: Self.maximumDescriptionBytes)
    }
}
