/// The grammar of the chunk extensions after a chunk size (RFC 9112 §7.1.1):
///
///     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
///     chunk-ext-name = token
///     chunk-ext-val  = token / quoted-string
///
/// with `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4) and BWS any run of SP
/// and HTAB. The extensions are ignored, but a line outside the grammar (`2;`, `2;=x`, `2;a="open`, a
/// trailing space) is a framing error: two parsers that disagree on where a chunk line ends are how
/// requests are smuggled.
enum ChunkExtensionGrammar {
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        let end = bytes.endIndex
        func skipWhitespace() {
            while index < end, bytes[index] == HTTPTokens.space || bytes[index] == HTTPTokens.horizontalTab {
                index += 1
            }
        }
        func token() -> Bool {
            let start = index
            while index < end, HTTPTokens.isTokenCharacter(bytes[index]) { index += 1 }
            return index > start
        }
        /// quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ); qdtext excludes DQUOTE, backslash and controls.
        func quotedString() -> Bool {
            index += 1
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return true
                }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < end, HTTPTokens.isFieldValueCharacter(bytes[index]) else { return false }
                } else if !HTTPTokens.isFieldValueCharacter(byte) {
                    return false
                }
                index += 1
            }
            return false
        }
        while index < end {
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: ";") else { return false }
            index += 1
            skipWhitespace()
            guard token() else { return false }
            // What follows the name is either the next ";", the end, or "=" and a value; whitespace is only
            // allowed before one of those.
            let afterName = index
            skipWhitespace()
            guard index < end else { return index == afterName }
            guard bytes[index] == UInt8(ascii: "=") else {
                guard bytes[index] == UInt8(ascii: ";") else { return false }
                continue
            }
            index += 1
            skipWhitespace()
            guard index < end else { return false }
            if bytes[index] == UInt8(ascii: "\"") {
                guard quotedString() else { return false }
            } else {
                guard token() else { return false }
            }
        }
        return true
    }
}
