import LifecycleCore
import LifecycleStore

/// `lifecycle account export`: every personal value the service keeps about one subject, opened (a
/// data-subject access request, GDPR Art. 15; PIPA Art. 35), with its data keys' state. A value whose key was
/// destroyed by erasure, or is wrapped by a master key this process does not hold (a backup from before a
/// rotation), is listed as unreadable with the reason: that is the proof that erasure and rotation did their
/// part. An Apple refresh token is a bearer credential, not something the subject reads: it is shown as
/// opening or not, never as its value.
package struct PersonalDataExport {
    /// What the export shows instead of a credential that opened.
    package static let redactedCredential = "<opens; a credential, not shown>"

    var store: any Store
    var vault: SubjectKeyVault

    package init(store: any Store, vault: SubjectKeyVault) {
        self.store = store
        self.vault = vault
    }

    package func document(app: String, subject: String) async throws -> JSONValue {
        let (keys, values) = try await store.read { reader in
            (try reader.subjectKeys(app: app, subject: subject), try reader.sealedValues(app: app, subject: subject))
        }
        var opened: [SubjectKeyScope: Result<[UInt8], any Error>] = [:]
        for key in keys {
            opened[key.scope] = Result { try vault.unwrap(key) }
        }
        let keyDocuments: [JSONValue] = keys.map { key in
            var document: JSONObject = [
                "scope": .string(key.scope.canonicalName), "state": key.isDestroyed ? "destroyed" : "live",
                "masterKeyId": .string(key.masterKeyID), "createdAt": .string(key.createdAt.iso8601),
                "destroyedAt": key.destroyedAt.map { .string($0.iso8601) } ?? .null,
            ]
            if case .failure(let error) = opened[key.scope], !key.isDestroyed {
                document["unreadable"] = .string(String(describing: error))
            }
            return .object(document)
        }
        let valueDocuments: [JSONValue] = values.map { value in
            var document: JSONObject = [
                "column": .string(value.column.qualifiedName),
                "notification": value.notificationID.map { .integer($0) } ?? .null,
            ]
            switch opened[value.column.scope] {
            case .success(let dataKey):
                do {
                    let plaintext = try vault.open(value, dataKey: dataKey)
                    document["value"] = .string(
                        value.column == .appleRefreshToken
                            ? Self.redactedCredential : String(decoding: plaintext, as: UTF8.self))
                } catch {
                    document["unreadable"] = .string("the value does not open under its data key")
                }
            case .failure(let error):
                document["unreadable"] = .string(String(describing: error))
            case nil:
                document["unreadable"] = "no data key for its scope"
            }
            return .object(document)
        }
        return [
            "app": .string(app), "sub": .string(subject), "keys": .array(keyDocuments),
            "values": .array(valueDocuments),
        ]
    }

    /// The document in lines for a terminal.
    package static func text(_ document: JSONValue) -> String {
        var lines = ["\(document["app"]?.stringValue ?? "") \(document["sub"]?.stringValue ?? "")"]
        for key in document["keys"]?.arrayValue ?? [] {
            var line = "key \(key["scope"]?.stringValue ?? ""): \(key["state"]?.stringValue ?? "")"
            line += ", master key \(key["masterKeyId"]?.stringValue ?? "")"
            if let destroyed = key["destroyedAt"]?.stringValue { line += ", destroyed \(destroyed)" }
            if let reason = key["unreadable"]?.stringValue { line += ", unreadable: \(reason)" }
            lines.append(line)
        }
        for value in document["values"]?.arrayValue ?? [] {
            let place =
                (value["column"]?.stringValue ?? "")
                + (value["notification"]?.integerValue.map { " #\($0)" } ?? "")
            if let text = value["value"]?.stringValue {
                lines.append("\(place): \(text)")
            } else {
                lines.append("\(place): unreadable (\(value["unreadable"]?.stringValue ?? ""))")
            }
        }
        if document["values"]?.arrayValue?.isEmpty ?? true { lines.append("no personal value is kept") }
        return lines.joined(separator: "\n")
    }
}
