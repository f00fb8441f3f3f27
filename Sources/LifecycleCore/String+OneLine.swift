extension String {
    /// The text with every control character (C0, DEL, C1, and the Unicode line and paragraph separators)
    /// written as a `\u{…}` escape, so an error that quotes outside input — a configuration key, a CSV
    /// header, a command-line argument — stays one line on a terminal or in a log and cannot forge another.
    public var escapingControlCharacters: String { quotedForError(maxBytes: .max) }

    /// Outside input as an error quotes it: ``escapingControlCharacters``, kept to `maxBytes` UTF-8 bytes and
    /// then `… (N bytes)` naming the whole length, so a hostile value cannot make the line unbounded. The cut
    /// falls between scalars and never inside an escape, and only what is kept is escaped: a value of
    /// megabytes costs what its first `maxBytes` do.
    public func quotedForError(maxBytes: Int = 200) -> String {
        // Most values (every field of most log lines) fit and hold no control character.
        if utf8.count <= maxBytes, !unicodeScalars.contains(where: Self.isControl) { return self }
        var result = ""
        var bytes = 0
        for scalar in unicodeScalars {
            if Self.isControl(scalar) {
                let escaped = Self.escape(scalar)
                bytes += escaped.utf8.count
                if bytes > maxBytes { break }
                result += escaped
            } else {
                bytes += UTF8.width(scalar)
                if bytes > maxBytes { break }
                result.unicodeScalars.append(scalar)
            }
        }
        return bytes > maxBytes ? result + "… (\(utf8.count) bytes)" : result
    }

    /// An error as one line (``escapingControlCharacters``): as a command prints it and a log field holds it.
    public init(oneLine error: any Error) {
        self = String(describing: error).escapingControlCharacters
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }
}
