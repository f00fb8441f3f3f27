import LifecycleSQL
import LifecycleStore

/// The generated app database the demo erases from and reconciles against: one `users` table keyed by
/// Apple `sub`, as a typical Sign in with Apple backend keeps it (DESIGN.md §7 `sqlite` target, §8 records).
struct DemoSampleApp: Sendable {
    /// One sample user. Names are only for the demo's output; the service never sees them.
    struct User: Sendable, Hashable {
        var name: String
        var subject: String
        var email: String
        var sessions: Int
    }

    /// Synthetic subs in Apple's `team-scoped.hex.suffix` shape; nobody's real identifier.
    static let alice = User(
        name: "alice", subject: "000101.a11ce0a11ce0a11ce0a11ce0a11ce0a1.0101",
        email: "q7m2x9k4p1@privaterelay.appleid.com", sessions: 2)
    static let bob = User(
        name: "bob", subject: "000202.b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0.0202", email: "bob@example.com", sessions: 1)
    static let carol = User(
        name: "carol", subject: "000303.ca201ca201ca201ca201ca201ca201ca2.0303", email: "carol@example.com",
        sessions: 1)
    /// The planted discrepancy: a user the app holds but the service never heard of.
    static let dave = User(
        name: "dave", subject: "000404.da7eda7eda7eda7eda7eda7eda7eda7e.0404", email: "dave@example.com",
        sessions: 3)

    /// The users the app starts with (dave is planted later).
    static let initialUsers = [alice, bob, carol]
    static let everyone = initialUsers + [dave]

    /// What the erasure target runs for one `:sub` (the `sqlite` target's `statements` and `verify`).
    static let eraseStatements = ["DELETE FROM users WHERE apple_sub = :sub"]
    static let verifyQuery = "SELECT count(*) FROM users WHERE apple_sub = :sub"
    /// The records source: sorted by sub in byte order, as the reconciler's merge requires.
    static let recordsQuery =
        "SELECT apple_sub AS sub, status, sessions FROM users WHERE apple_sub IS NOT NULL ORDER BY apple_sub"

    let path: String
    /// SQLite's busy timeout while the erasure runner may hold the file (milliseconds).
    let busyTimeoutMilliseconds: Int32 = 5000

    /// Creates the file with the table and the initial users.
    func create() throws {
        let database = try ExternalSQLiteDatabase(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, create: true)
        defer { database.close() }
        _ = try database.executeInTransaction(
            [
                "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, apple_sub TEXT UNIQUE, name TEXT, "
                    + "email TEXT, status TEXT NOT NULL DEFAULT 'active', sessions INTEGER NOT NULL DEFAULT 0)"
            ], parameters: [:])
        for user in Self.initialUsers { try insert(user, into: database) }
    }

    /// Adds one user row (the planted discrepancy).
    func insert(_ user: User) throws {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        defer { database.close() }
        try insert(user, into: database)
    }

    private func insert(_ user: User, into database: ExternalSQLiteDatabase) throws {
        _ = try database.executeInTransaction(
            ["INSERT INTO users (apple_sub, name, email, sessions) VALUES (:sub, :name, :email, :sessions)"],
            parameters: [
                "sub": user.subject, "name": user.name, "email": user.email, "sessions": String(user.sessions),
            ])
    }

    /// Rows the app still holds for `subject` (the erasure target's own verification query).
    func rows(of subject: String) throws -> Int64 {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        defer { database.close() }
        return try database.queryInteger(Self.verifyQuery, parameters: ["sub": subject]) ?? 0
    }

    /// All rows of the table.
    func userCount() throws -> Int64 {
        let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        defer { database.close() }
        return try database.queryInteger("SELECT count(*) FROM users", parameters: [:]) ?? 0
    }

    /// The demo name of a sub, for output that never shows the sub itself.
    static func name(of subject: String?) -> String {
        guard let subject else { return "-" }
        return everyone.first { $0.subject == subject }?.name ?? "another user"
    }
}
