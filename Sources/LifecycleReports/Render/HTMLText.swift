/// HTML escaping for text and attribute values (HTML Living Standard §13.1.2.6 / §13.3: `&`, `<`, `>`, `"`
/// and `'` replaced by character references), so nothing a report shows can become markup.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
