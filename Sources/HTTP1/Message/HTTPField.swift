/// One validated header field. Construction refuses anything that could split or smuggle a message: the name
/// must be a token and the value may not contain CR, LF, NUL or other controls (RFC 9110 §5.1, §5.5).
public struct HTTPField: Sendable, Hashable {
    public let name: String
    public let value: String

    /// Why a field was refused.
    public enum ValidationError: Error, Sendable, Hashable {
        case invalidName(String)
        /// The value held a control character; the value itself is not kept (it may be attacker-supplied).
        case invalidValue(fieldName: String)
    }

    public init(name: String, value: String) throws(ValidationError) {
        guard HTTPTokens.isToken(name.utf8) else { throw .invalidName(name) }
        guard HTTPTokens.isFieldValue(value.utf8) else { throw .invalidValue(fieldName: name) }
        self.name = name
        self.value = value
    }

    /// For the parser, which has already checked the octets.
    package init(validatedName: String, value: String) {
        self.name = validatedName
        self.value = value
    }
}
