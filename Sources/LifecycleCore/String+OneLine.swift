extension String {
    /// The text with every control character (C0, DEL, C1, and the Unicode line and paragraph separators)
    /// written as a `\u{…}` escape, so an error that quotes outside input — a configuration key, a CSV
    /// header, a command-line argument — stays one line on a terminal or in a log and cannot forge another.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.isControl) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if Self.isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Outside input as an error quotes it: ``escapingControlCharacters``, cut at a scalar boundary to at most
    /// `maxBytes` UTF-8 bytes with `…` and the whole length, so a hostile value cannot make the line unbounded.
    public func quotedForError(maxBytes: Int = 200) -> String {
        escapingControlCharacters.cut(maxBytes: maxBytes, counting: utf8.count)
    }

    /// The text cut at a scalar boundary to at most `maxBytes` UTF-8 bytes, with `…` and the whole length
    /// (`counting`, this text's own by default) when it was longer; unchanged otherwise.
    public func cut(maxBytes: Int, counting total: Int? = nil) -> String {
        guard utf8.count > maxBytes else { return self }
        var result = ""
        var bytes = 0
        for scalar in unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > maxBytes { break }
            result.unicodeScalars.append(scalar)
        }
        return result + "… (\(total ?? utf8.count) bytes)"
    }

    /// An error as one line (``escapingControlCharacters``): as a command prints it and a log field holds it.
    public init(oneLine error: any Error) {
        self = String(describing: error).escapingControlCharacters
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }
}
