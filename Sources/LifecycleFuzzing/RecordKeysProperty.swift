import LifecycleCore
import LifecycleReconcile

/// The property both record targets check for the `provider` field: a fuzzed `sub`, named with a provider the
/// app configures, reads as that provider's account key, which reads back as the provider, format and the
/// `sub`; named with `apple` it reads as itself; named with a provider the app lacks it is a one-line error.
enum RecordKeysProperty {
    static let googleIssuer = "https://accounts.google.com/"
    /// An app with Google's RISC (`iss_sub` under Google's issuer) and an SSF transmitter keyed by e-mail.
    static let keys = AppRecordKeys(providers: [
        "google": .issSub(issuer: googleIssuer),
        "okta": ProviderRecordSubject(format: "email", issuer: nil),
    ])

    static func check(
        _ subs: [String], header: String?, read: (String) throws -> [AppRecord],
        line: (String, String) -> String
    ) throws(PropertyFailure) {
        // A CSV field spanning lines is refused by design, so subs holding a line break are left out.
        let subs = Array(subs.filter { !$0.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } }.prefix(16))
        guard !subs.isEmpty else { return }
        let providers = ["google", "okta", "apple"]
        var text = header.map { $0 + "\n" } ?? ""
        for sub in subs {
            for provider in providers { text += line(provider, sub) + "\n" }
        }
        let records: [AppRecord]
        do {
            records = try read(text)
        } catch {
            throw PropertyFailure("subs named with a configured provider do not read: \(error)")
        }
        try require(records.count == subs.count * providers.count, "records lost naming their provider")
        for (index, sub) in subs.enumerated() {
            let google = ProviderSubject(accountKey: records[index * 3].subject)
            try require(
                google == ProviderSubject(provider: "google", format: "iss_sub", values: [googleIssuer, sub]),
                "a google record's sub does not map to its iss_sub key")
            let okta = ProviderSubject(accountKey: records[index * 3 + 1].subject)
            try require(
                okta == ProviderSubject(provider: "okta", format: "email", values: [sub.lowercased()]),
                "an okta record's sub does not map to its email key")
            try require(records[index * 3 + 2].subject == sub, "an apple record's sub is not taken as it is")
        }
        do {
            _ = try read((header.map { $0 + "\n" } ?? "") + line("unknown", subs[0]) + "\n")
            throw PropertyFailure("a record naming a provider the app lacks was accepted")
        } catch let error as RecordSourceError {
            try require(!error.description.contains("\n"), "the error is not one line")
        } catch let failure as PropertyFailure {
            throw failure
        } catch {
            throw PropertyFailure("unexpected error \(error)")
        }
    }
}
