#include <sqlite3.h>

/* sqlite3_db_config is variadic, which Swift cannot call: the one option used here as a plain function.
 * With `on` set, closing this connection never checkpoints the write-ahead log into the database file, even
 * as the last connection (https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfignockptonclose). */
static inline int lifecycle_sqlite3_no_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, (int *)0);
}

/* sqlite3_config is variadic too. SQLite keeps memory statistics by default (SQLITE_DEFAULT_MEMSTATUS), which
 * takes a process-wide mutex around every allocation it makes; nothing here reads them. Must run before the
 * library initializes (before the first open); answers SQLITE_MISUSE after that, which changes nothing.
 * https://www.sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigmemstatus */
static inline int lifecycle_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
