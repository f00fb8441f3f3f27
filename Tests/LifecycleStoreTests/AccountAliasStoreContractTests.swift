import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about account aliases: rows are appended, the latest row of an identifier is
/// the one in force, and an account's rows include every row of the identifiers it ever had. Parameterised by
/// ``StoreFactory``.
@Suite("Store contract: account aliases")
struct AccountAliasStoreContractTests {
    static func alias(
        _ alias: String, _ subject: String, _ kind: AccountAliasKind, at seconds: Int64, app: String = "shop"
    )
        -> NewAccountAlias
    {
        NewAccountAlias(
            app: app, alias: alias, subject: subject, kind: kind, notificationID: seconds,
            recordedAt: Instant(secondsSinceEpoch: 1_767_225_600 + seconds))
    }

    @Test(
        "the latest row of an identifier is in force; counts and the account's rows are per app",
        arguments: StoreFactory.all)
    func latestInForce(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            let none = try await store.read { try $0.accountAliasInForce(app: "shop", alias: "idp:email:b") }
            #expect(none == nil)
            try await store.write { writer in
                try writer.recordAccountAlias(Self.alias("idp:email:b", "idp:email:a", .changed, at: 1))
                try writer.recordAccountAlias(Self.alias("idp:email:b", "idp:email#2:b", .recycled, at: 2))
                try writer.recordAccountAlias(Self.alias("idp:email:c", "idp:email:a", .changed, at: 3))
                try writer.recordAccountAlias(Self.alias("idp:email:b", "idp:email:z", .changed, at: 4, app: "blog"))
            }
            let (inForce, recycles, other, rows) = try await store.read { reader in
                (
                    try reader.accountAliasInForce(app: "shop", alias: "idp:email:b"),
                    try reader.accountAliasCount(app: "shop", alias: "idp:email:b", kind: .recycled),
                    try reader.accountAliasInForce(app: "blog", alias: "idp:email:b"),
                    try reader.accountAliases(app: "shop", subject: "idp:email:a")
                )
            }
            #expect(inForce?.alias.subject == "idp:email#2:b")
            #expect(inForce?.alias.kind == .recycled)
            #expect(inForce?.alias.notificationID == 2)
            #expect(inForce?.alias.recordedAt == Instant(secondsSinceEpoch: 1_767_225_602))
            #expect(recycles == 1)
            #expect(other?.alias.subject == "idp:email:z")
            #expect(
                rows.map { [$0.alias.alias, $0.alias.subject] } == [
                    ["idp:email:b", "idp:email:a"], ["idp:email:b", "idp:email#2:b"], ["idp:email:c", "idp:email:a"],
                ], "the row that replaced one of the account's is listed too")
        }
    }
}
