import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises when a restore re-applies a journalled erasure to a restored copy.
@Suite("Store contract: re-applying an erasure to a restored copy")
struct RestoreStoreContractTests {
    private func key(_ subject: String, createdAt: Instant, wrapped: [UInt8] = [1, 2, 3]) -> NewSubjectKey {
        NewSubjectKey(
            app: "shop", subject: subject, scope: .notifications, wrappedKey: wrapped, masterKeyID: "m1",
            createdAt: createdAt)
    }

    @Test(
        "the key that existed at the erasure is destroyed and the tombstone put back, once; a newer key and a newer account stay",
        arguments: StoreFactory.all)
    func reapply(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let t0 = Fixtures.receivedAt
            try await store.write { writer in
                _ = try writer.registerMasterKey(id: "m1", at: t0.adding(seconds: -5_000))
                // "erased": live in the copy, erased after it. "relinked": erased, then a new key at a re-link.
                _ = try writer.insertSubjectKey(key("erased", createdAt: Fixtures.instant(-100)))
                try writer.saveAccount(app: "shop", subject: "erased", record: Fixtures.sparseAccount)
                _ = try writer.insertSubjectKey(key("relinked", createdAt: Fixtures.instant(-100)))
                _ = try writer.eraseSubjectValues(
                    app: "shop", subject: "relinked", scopes: [.notifications], at: Fixtures.instant(-50))
                _ = try writer.replaceDestroyedSubjectKey(
                    key("relinked", createdAt: Fixtures.instant(-20), wrapped: [9]))
                try writer.saveAccount(app: "shop", subject: "relinked", record: Fixtures.fullAccount)
            }
            let first = try await store.write { writer in
                try writer.reapplyErasure(
                    app: "shop", subject: "erased", scopes: [.notifications], erasedAt: Fixtures.instant(-8),
                    account: Fixtures.fullAccount)
            }
            #expect(first.keysDestroyed == 1 && first.accountRestored)
            let (erasedKey, erasedAccount) = try await store.read { reader in
                (
                    try reader.subjectKey(app: "shop", subject: "erased", scope: .notifications),
                    try reader.account(app: "shop", subject: "erased")
                )
            }
            #expect(erasedKey?.isDestroyed == true && erasedKey?.destroyedAt == Fixtures.instant(-8))
            #expect(erasedAccount == Fixtures.fullAccount, "the tombstone as the journal recorded it")
            let again = try await store.write { writer in
                try writer.reapplyErasure(
                    app: "shop", subject: "erased", scopes: [.notifications], erasedAt: Fixtures.instant(-8),
                    account: Fixtures.fullAccount)
            }
            #expect(again.changedNothing, "idempotent")

            let older = try await store.write { writer in
                try writer.reapplyErasure(
                    app: "shop", subject: "relinked", scopes: [.notifications], erasedAt: Fixtures.instant(-50),
                    account: Fixtures.sparseAccount)
            }
            #expect(older.changedNothing, "the re-link's key and the newer account are not the erased ones")
            let relinked = try await store.read { reader in
                (
                    try reader.subjectKey(app: "shop", subject: "relinked", scope: .notifications),
                    try reader.account(app: "shop", subject: "relinked")
                )
            }
            #expect(relinked.0?.wrappedKey == [9] && relinked.1 == Fixtures.fullAccount)
        }
    }
}
