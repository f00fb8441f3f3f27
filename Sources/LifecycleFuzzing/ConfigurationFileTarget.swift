import LifecycleCore
import LifecycleEngine

/// The configuration file (`lifecycle.json`), parsed by ``ServiceConfiguration/parse(_:file:baseDirectory:)``.
///
/// Properties: a refusal is one line naming the file; an accepted configuration has ports in range, at
/// least one app, every app with a client ID, and parses to the same result a second time.
enum ConfigurationFileTarget {
    static let target = FuzzTarget(
        name: "configuration-file",
        summary: "configuration file: one-line errors naming the file, accepted values in range, deterministic",
        check: check)

    static let file = "/fuzz/lifecycle.json"

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard let document = JSONValue.parseIfValid(bytes) else { return }
        let configuration: ServiceConfiguration
        do {
            configuration = try ServiceConfiguration.parse(document, file: file, baseDirectory: "/fuzz")
        } catch {
            let line = error.description
            try require(!line.contains("\n"), "an error spans lines: \(line)")
            try require(line.hasPrefix(file), "an error does not name the file: \(line)")
            return
        }
        try require((0...65_535).contains(configuration.publicListener.port), "public port out of range")
        try require((0...65_535).contains(configuration.admin.port), "admin port out of range")
        try require(!configuration.apps.isEmpty, "a configuration without apps was accepted")
        for app in configuration.apps {
            try require(!app.clientIDs.isEmpty, "an app without client IDs was accepted")
        }
        guard let again = try? ServiceConfiguration.parse(document, file: file, baseDirectory: "/fuzz") else {
            throw PropertyFailure("an accepted configuration is refused the second time")
        }
        try require(again.apps.map(\.id) == configuration.apps.map(\.id), "parsing is not deterministic")
    }
}
