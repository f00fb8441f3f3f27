/// What the store's SQL says differently on SQLite and on PostgreSQL. Each store method is written once; the
/// few fragments below are rendered per database, and the statements that differ in meaning, not spelling,
/// switch on the dialect where they are written, saying why.
///
/// Parameters are numbered as PostgreSQL numbers them (`$1`, `$2::bigint` where PostgreSQL cannot infer the
/// type); the SQLite connection prepares them as `?1`, `?2` (``SQLiteNumberedParameters``).
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The type of ids, counts and times in milliseconds: SQLite's `INTEGER` is up to 8 bytes already
    /// (https://www.sqlite.org/datatype3.html §2), PostgreSQL's `integer` only 4, so `BIGINT` there.
    var integer: String {
        switch self {
        case .sqlite: "INTEGER"
        case .postgres: "BIGINT"
        }
    }

    /// A query answering 1 when the table named by its one parameter exists where the store's statements
    /// would find it: SQLite's schema table, PostgreSQL's `to_regclass`, which follows the `search_path`
    /// (https://www.sqlite.org/schematab.html, https://www.postgresql.org/docs/15/functions-info.html).
    var tableExists: String {
        switch self {
        case .sqlite: "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = $1"
        case .postgres: "SELECT count(*) FROM (SELECT to_regclass($1::text) AS found) AS t WHERE found IS NOT NULL"
        }
    }

    /// Pins the index a scan must use. SQLite plans without statistics unless `ANALYZE` ran, and for some
    /// statements prefers an index that makes them walk history; `INDEXED BY` fixes the choice and makes
    /// SQLite refuse the statement rather than scan if the index ever stops fitting
    /// (https://www.sqlite.org/lang_indexedby.html). PostgreSQL has no hints: its planner has statistics.
    func indexedBy(_ index: String) -> String {
        switch self {
        case .sqlite: " INDEXED BY \(index)"
        case .postgres: ""
        }
    }

    /// Settings, local to the transaction, under which PostgreSQL walks an index in its order rather than
    /// collect every match first, and the statements that undo them (run through
    /// ``StoreAccess/walkingIndexOrder(_:)``). This is `INDEXED BY`'s counterpart for a claim whose
    /// `ORDER BY … LIMIT` must stop after a few rows of its index (`outbox_pending_due`, `erasure_jobs_open`).
    /// Without them, on a table that grew faster than autovacuum analyses it, the planner estimated 7 due
    /// outbox rows where there were 10,040, chose a bitmap scan and a sort, and ran the per-account
    /// `NOT EXISTS` for all 5,200 pending messages (30 ms per claim; walking the index it stops at the limit,
    /// 1.7 ms); and on statistics that saw an empty table it put a full sort above the erasure claim's walk,
    /// which collects every open job before the limit applies, where an incremental sort (steps within one
    /// job) stops with it (https://www.postgresql.org/docs/15/runtime-config-query.html#RUNTIME-CONFIG-QUERY-ENABLE).
    /// SQLite needs none: the index is pinned in the statement.
    var indexOrderWalk: (enable: [String], restore: [String]) {
        switch self {
        case .sqlite: ([], [])
        case .postgres:
            (
                ["SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_seqscan = off", "SET LOCAL enable_sort = off"],
                ["RESET enable_bitmapscan", "RESET enable_seqscan", "RESET enable_sort"]
            )
        }
    }

    /// The larger of two values: SQLite's two-argument scalar `max`, PostgreSQL's `greatest`
    /// (https://www.sqlite.org/lang_corefunc.html#max_scalar,
    /// https://www.postgresql.org/docs/15/functions-conditional.html#FUNCTIONS-GREATEST-LEAST).
    func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "max(\(first), \(second))"
        case .postgres: "greatest(\(first), \(second))"
        }
    }

    /// The distinct values of `expression`, comma-joined: `group_concat(DISTINCT …)` on SQLite (whose
    /// separator is a comma by default and cannot be given with DISTINCT), `string_agg(DISTINCT …, ',')` on
    /// PostgreSQL.
    func distinctList(_ expression: String) -> String {
        switch self {
        case .sqlite: "group_concat(DISTINCT \(expression))"
        case .postgres: "string_agg(DISTINCT \(expression), ',')"
        }
    }

    /// The row locks of a claim's candidate `SELECT`. Several PostgreSQL instances claim at once: `FOR UPDATE
    /// OF … SKIP LOCKED` locks the picked rows and passes over rows another claim is leasing right now, instead
    /// of waiting for it (https://www.postgresql.org/docs/15/sql-select.html#SQL-FOR-UPDATE-SHARE); a row whose
    /// lease committed after the statement's snapshot is re-checked on its newest version when locked (READ
    /// COMMITTED, https://www.postgresql.org/docs/15/transaction-iso.html §13.2.1), and its live lease
    /// excludes it. SQLite has no row locks and needs none: every claim runs in the writer's `BEGIN
    /// IMMEDIATE` transaction, which holds the database's single write lock from its first statement, so a
    /// second claimer, in this process or another, waits for it and then sees the first one's leases.
    func skipLocked(of table: String) -> String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE OF \(table) SKIP LOCKED"
        }
    }
}
