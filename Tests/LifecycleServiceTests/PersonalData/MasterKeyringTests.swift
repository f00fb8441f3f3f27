import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleEngine

@Suite("Master keys and the subject key vault")
struct MasterKeyringTests {
    @Test("a missing key file is created 0600 in a 0700 directory with one key, and read back the same")
    func createdOnFirstUse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("secrets/master.key")
        let first = try MasterKeyring.load(file: path, environment: [:])
        #expect(first.ids.count == 1 && first.ids[0].count == 16)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: directory.file("secrets"))
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let again = try MasterKeyring.load(file: path, environment: [:])
        #expect(again.ids == first.ids)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            MasterKeyring.id(of: Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? []) == first.ids[0]
        )
    }

    @Test("LIFECYCLE_MASTER_KEY wins over the file and is never written; bad keys are one clear line")
    func environmentAndErrors() throws {
        let directory = try TemporaryDirectory()
        let a = Hex.encode(SecureRandom.bytes(count: 32))
        let b = Hex.encode(SecureRandom.bytes(count: 32))
        let keyring = try MasterKeyring.load(
            file: directory.file("master.key"), environment: [MasterKeyring.environmentVariable: "\(a), \(b)"])
        #expect(keyring.source == .environment(MasterKeyring.environmentVariable))
        #expect(keyring.ids == [a, b].map { MasterKeyring.id(of: Hex.decode($0) ?? []) })
        #expect(!FileManager.default.fileExists(atPath: directory.file("master.key")), "the file is not created")
        #expect(throws: MasterKeyring.Failure.self) { try keyring.replace(with: []) }

        try "# rotated 2026-11-01\n\(a)\nnot-a-key\n".write(
            toFile: directory.file("bad.key"), atomically: true, encoding: .utf8)
        #expect {
            try MasterKeyring.load(file: directory.file("bad.key"), environment: [:])
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.key") && text.contains("master key 3") && text.contains("64 hexadecimal")
                && !text.contains(a)
        }
    }

    @Test("a rewrite is noticed and durable; a fresh key is added beside the old one")
    func rewrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("master.key")
        let keyring = try MasterKeyring.load(file: path, environment: [:])
        let old = keyring.ids[0]
        #expect(!keyring.fileChanged)
        let added = try keyring.addFreshKey()
        #expect(keyring.ids == [old, added])
        let other = try MasterKeyring.load(file: path, environment: [:])
        #expect(other.ids == [old, added])
        try keyring.replace(with: [try #require(keyring.key(id: added))])
        #expect(other.fileChanged)
        #expect(try other.reload())
        #expect(other.ids == [added])
        #expect(other.key(id: old) == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["master.key"], "no temporary file is left behind")
    }

    @Test(
        "a value sealed for one row, column or subject does not open for another, and data keys are bound to their subject"
    )
    func bindings() throws {
        let directory = try TemporaryDirectory()
        let vault = SubjectKeyVault(keyring: try MasterKeyring.load(file: directory.file("m.key"), environment: [:]))
        let master = vault.keyring.ids[0]
        vault.learnCurrent(master)
        let candidate = try vault.candidate(
            app: "shop", subject: "sub-a", scope: .notifications, at: Instant(millisecondsSinceEpoch: 0))
        #expect(candidate.stored.masterKeyID == master)
        let key = candidate.dataKey
        let sealed = try vault.seal(
            Array("a@privaterelay.appleid.com".utf8), column: .notificationEmail, app: "shop", subject: "sub-a",
            rowKey: "jti-1", dataKey: key)
        func value(_ column: SealedColumn, _ subject: String, _ row: String) -> StoredSealedValue {
            StoredSealedValue(
                column: column, app: "shop", subject: subject, rowKey: row, notificationID: 1, sealed: sealed)
        }
        #expect(
            try vault.open(value(.notificationEmail, "sub-a", "jti-1"), dataKey: key)
                == Array("a@privaterelay.appleid.com".utf8))
        #expect(throws: (any Error).self) { try vault.open(value(.notificationEmail, "sub-a", "jti-2"), dataKey: key) }
        #expect(throws: (any Error).self) { try vault.open(value(.notificationToken, "sub-a", "jti-1"), dataKey: key) }
        #expect(throws: (any Error).self) { try vault.open(value(.notificationEmail, "sub-b", "jti-1"), dataKey: key) }

        var stored = StoredSubjectKey(
            app: "shop", subject: "sub-a", scope: .notifications, wrappedKey: candidate.stored.wrappedKey,
            masterKeyID: master, createdAt: Instant(millisecondsSinceEpoch: 0), destroyedAt: nil)
        #expect(try vault.unwrap(stored) == key)
        stored.subject = "sub-b"
        #expect(throws: (any Error).self) { try vault.unwrap(stored) }
        stored.subject = "sub-a"
        stored.masterKeyID = "0000000000000000"
        #expect(throws: (any Error).self) { try vault.unwrap(stored) }
        #expect(!ForensicScan.contains(candidate.stored.wrappedKey, key), "the wrapped form does not contain the key")
    }
}

@Suite("Apple tokens sealed under their own data key")
struct AppleTokenSealingTests {
    @Test(
        "a token is stored sealed under the apple-tokens key, opens, and is gone for good once that scope is erased while the e-mail's key lives on"
    )
    func tokenScope() async throws {
        let harness = try ServiceHarness()
        let service = try await harness.start()
        let subject = TestFixtures.subject
        #expect(try await harness.post(harness.body(type: "email-enabled", subject: subject)).status == 200)
        let vault = service.context.vault
        let store = service.context.store
        let token = "r1a2b3.refresh-token-of-the-app"
        let now = SystemClock().now()
        #expect(
            try await store.write {
                try vault.storeAppleToken(
                    token, clientID: ServiceHarness.clientID, source: .refreshToken, app: "shop", subject: subject,
                    at: now, in: $0)
            })
        #expect(try await store.read { try vault.appleToken(app: "shop", subject: subject, in: $0) } == token)
        let sealed = try #require(
            try await store.read { try $0.appleToken(app: "shop", subject: subject)?.sealedRefreshToken })
        #expect(!ForensicScan.contains(sealed, Array(token.utf8)), "stored sealed")

        _ = try await store.write {
            try $0.eraseSubjectValues(app: "shop", subject: subject, scopes: [.appleTokens], at: now)
        }
        #expect(try await store.read { try vault.appleToken(app: "shop", subject: subject, in: $0) } == nil)
        let keys = try await store.read { try $0.subjectKeys(app: "shop", subject: subject) }
        #expect(
            keys.map { "\($0.scope.canonicalName):\($0.isDestroyed)" } == ["apple-tokens:true", "notifications:false"])
        // A re-link brings a new token: the account is not deleted, so a new key seals it.
        #expect(
            try await store.write {
                try vault.storeAppleToken(
                    token + "2", clientID: ServiceHarness.clientID, source: .refreshToken, app: "shop",
                    subject: subject, at: now, in: $0)
            }
        )
        #expect(try await store.read { try vault.appleToken(app: "shop", subject: subject, in: $0) } == token + "2")
        await harness.stop()
    }
}
