/// Why a call to a transmitter's discovery or stream management failed: one line naming the URL or file and
/// what to do. Never carries a token or the answer's body (a transmitter's error text is quoted only as its
/// `err`/`error` code, bounded).
public struct StreamManagementError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
