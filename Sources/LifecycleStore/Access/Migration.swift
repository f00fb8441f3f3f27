/// One named step of the store schema. Steps are applied in order, each in its own transaction, and
/// recorded in `schema_migrations`; a step is never edited once released; a change is a new step appended
/// to ``StoreSchema/migrations(_:)`` (the GRDB `DatabaseMigrator` model).
struct Migration: Sendable {
    /// 1-based position in the list; also the schema version after this step.
    var version: Int
    /// A stable identifier, checked on open so a database from a different branch of history is refused.
    var name: String
    /// The DDL, as one script.
    var sql: String
}
