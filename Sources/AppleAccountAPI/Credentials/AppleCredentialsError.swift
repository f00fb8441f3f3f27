/// A credential value that cannot work: one line naming the field, what was found and what to change.
public struct AppleCredentialsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault: `teamID`, `keyID`, `privateKey` or `clients`.
    public var field: String
    public var description: String

    public init(field: String, _ description: String) {
        self.field = field
        self.description = description
    }
}
