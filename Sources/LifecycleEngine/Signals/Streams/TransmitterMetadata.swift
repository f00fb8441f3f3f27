import LifecycleCore

/// A transmitter's configuration metadata (SSF 1.0 §7.1; Google's `risc-configuration` has the same
/// members it needs): where its keys and its stream management live and what delivery it offers.
public struct TransmitterMetadata: Sendable, Hashable {
    public var issuer: String
    public var jwksURI: String?
    public var deliveryMethods: [String]
    public var configurationEndpoint: String?
    public var statusEndpoint: String?
    public var verificationEndpoint: String?

    /// Decodes the document fetched from `url`. SSF 1.0 §7.2.1: its `issuer` must be the configured one, else
    /// the document is not the transmitter's (the keys it names would sign for another issuer).
    package static func decode(_ json: JSONValue?, url: String, expectedIssuer: String) throws(StreamManagementError)
        -> TransmitterMetadata
    {
        guard let json, json.objectValue != nil else {
            throw StreamManagementError("\(url): the discovery document is not a JSON object")
        }
        guard let issuer = json["issuer"]?.stringValue else {
            throw StreamManagementError("\(url): the discovery document has no issuer")
        }
        guard issuer == expectedIssuer else {
            throw StreamManagementError(
                "\(url): the discovery document's issuer \(issuer.quotedForError()) is not the configured "
                    + "issuer \(expectedIssuer); fix signals[].issuer or stream.discovery")
        }
        func endpoint(_ name: String) throws(StreamManagementError) -> String? {
            guard let value = json[name], value != .null else { return nil }
            guard let text = value.stringValue, text.hasPrefix("https://") else {
                throw StreamManagementError("\(url): \(name) in the discovery document is not an https:// URL")
            }
            return text
        }
        return TransmitterMetadata(
            issuer: issuer, jwksURI: try endpoint("jwks_uri"),
            deliveryMethods: json["delivery_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            configurationEndpoint: try endpoint("configuration_endpoint"),
            statusEndpoint: try endpoint("status_endpoint"),
            verificationEndpoint: try endpoint("verification_endpoint"))
    }

    /// The document as `stream show` prints it.
    public var json: JSONValue {
        var object: JSONObject = [
            "issuer": .string(issuer), "delivery_methods_supported": .array(deliveryMethods.map(JSONValue.string)),
        ]
        for (name, value) in [
            ("jwks_uri", jwksURI), ("configuration_endpoint", configurationEndpoint),
            ("status_endpoint", statusEndpoint), ("verification_endpoint", verificationEndpoint),
        ] {
            if let value { object[name] = .string(value) }
        }
        return .object(object)
    }
}
