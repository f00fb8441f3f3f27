/// An account of a non-Apple identity provider as the store keys it: one string that names the provider
/// and the subject, so that every table keyed by (app, `sub`) keeps the accounts of different providers
/// apart without a second key column.
///
/// The key is `<provider id>:<format>:<value>[:<value>…]`, each part with `%` and `:` percent-encoded, so
/// distinct (provider, subject) pairs never share a key (the encoding is injective). Apple's `sub` values
/// (`000123.<hex>.0456`) contain no `:`, so no provider key is ever an Apple subject. The format and values
/// are those of RFC 9493 §3 (`iss_sub` → issuer and subject, `email` → the address lowercased, `opaque` →
/// the id, …).
public struct ProviderSubject: Hashable, Sendable {
    /// The provider's `id` in the app's `signals` configuration.
    public var provider: String
    /// The RFC 9493 format (`iss_sub`, `email`, `opaque`, `account`, `phone_number`, `did`, `uri`).
    public var format: String
    /// The identifier's members in the format's order (`iss_sub`: iss, sub).
    public var values: [String]
    /// Which holder of the identifier this is: 1 for the first, one more after each RISC `identifier-recycled`
    /// (RISC 1.0 §2.6: the identifier now names another person), so a new holder's account is never the old
    /// holder's. Written into the key as `<format>#<generation>` from 2 on; the formats (RFC 9493 §3) never
    /// contain `#`.
    public var generation: Int

    public init(provider: String, format: String, values: [String], generation: Int = 1) {
        self.provider = provider
        self.format = format
        self.values = values
        self.generation = max(1, generation)
    }

    /// The store's `sub` for this account.
    public var accountKey: String {
        let format = generation > 1 ? "\(format)#\(generation)" : format
        return ([provider, format] + values).map(Self.escaped).joined(separator: ":")
    }

    /// The same identifier as its first holder's: what the transmitter names, whichever holder it is now.
    public var firstHolder: ProviderSubject {
        ProviderSubject(provider: provider, format: format, values: values)
    }

    /// Reads a key back; nil for an Apple `sub` or anything not written by ``accountKey``.
    public init?(accountKey: String) {
        // Split by scalar, not by Character: a part that begins with a combining mark would otherwise join
        // the `:` before it into one Character and hide the separator.
        let parts = accountKey.unicodeScalars.split(separator: ":", omittingEmptySubsequences: false).map {
            Self.unescaped(Substring($0))
        }
        guard parts.count >= 2, let provider = parts[0], var format = parts[1], !provider.isEmpty else { return nil }
        var generation = 1
        if let mark = format.firstIndex(of: "#") {
            guard let number = Int(format[format.index(after: mark)...]), number >= 2,
                String(number) == format[format.index(after: mark)...]
            else { return nil }
            generation = number
            format = String(format[..<mark])
        }
        var values: [String] = []
        for part in parts.dropFirst(2) {
            guard let part else { return nil }
            values.append(part)
        }
        self.init(provider: provider, format: format, values: values, generation: generation)
    }

    /// The provider a stored `sub` belongs to: `apple` for a bare Apple subject.
    public static func providerName(ofAccountKey key: String) -> String {
        ProviderSubject(accountKey: key)?.provider ?? "apple"
    }

    /// One part of a key with `%` and `:` percent-encoded.
    public static func escaped(_ part: String) -> String {
        var result = ""
        for scalar in part.unicodeScalars {
            switch scalar {
            case "%": result += "%25"
            case ":": result += "%3A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func unescaped(_ part: Substring) -> String? {
        var result = ""
        var scalars = part.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "%" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            guard let high = scalars.next(), let low = scalars.next() else { return nil }
            switch (String(high) + String(low)).uppercased() {
            case "25": result += "%"
            case "3A": result += ":"
            default: return nil
            }
        }
        return result
    }
}
