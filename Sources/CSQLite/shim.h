#include <sqlite3.h>

/* sqlite3_db_config is variadic, which Swift cannot call: the one option used here as a plain function.
 * With `on` set, closing this connection never checkpoints the write-ahead log into the database file, even
 * as the last connection (https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfignockptonclose). */
static inline int lifecycle_sqlite3_no_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, (int *)0);
}
