/// A dev key pair could not be written or read back.
public struct DevKeyPairError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
