// store-floor.c — the least the store's writes cost this machine, without the service around them: one thread
// runs, with SQLite's C API and prepared statements, the writes `serve` makes per notification
// (scripts/bench/statement-mix.sh measures them) against a store `lifecycle migrate` created, with the pragmas
// the service sets (WAL, synchronous=FULL, secure_delete, temp_store=MEMORY), in transactions of BATCH
// notifications, one savepoint each, and a PASSIVE checkpoint in the same thread whenever the log passes 1,000
// frames (the service's checkpointer thread does the same). Values have the sizes the measured store holds (a
// 855-byte sealed token, a 61-byte wrapped key, a 256-byte outbox payload); subjects and jtis are random.
//
// Modes:
//   product   every statement of the statement mix: the notification, the account's read and upsert, its data
//             key, a history row and an outbox message; 41 of every 100 notifications are deletions with three
//             erasure jobs (3 or 4 steps, 1 and 1): 1.23 jobs and 2.26 steps a notification, as measured. Each
//             transaction after the first also runs the outbox's claim (the service's statement, leasing the
//             messages the previous transaction wrote) and the delivery updates of the messages the previous
//             claim leased, as the outbox's own write calls share the writer's batches in the service
//   one-row   only the notification row with its indexes (the two unique keys, the received-at and held-payload
//             indexes): the floor of any design that keeps a row per notification in SQLite with
//             `synchronous=FULL`
//
// Usage: store-floor DB MODE COUNT BATCH. Prints one line: notifications a second on one thread, CPU
// microseconds per notification (user, system), commits, and WAL bytes written per notification.
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static sqlite3 *db;
static long long frames_written;
static long long frames_since_checkpoint;

static void die(const char *what) {
  fprintf(stderr, "store-floor: %s: %s\n", what, sqlite3_errmsg(db));
  exit(1);
}

static void exec(const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
    fprintf(stderr, "store-floor: %s: %s\n", sql, error);
    exit(1);
  }
}

static sqlite3_stmt *prepare(const char *sql) {
  sqlite3_stmt *statement;
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) die(sql);
  return statement;
}

// Runs a bound statement to its end and resets it; returns the first column of the first row, or 0.
static long long run(sqlite3_stmt *statement) {
  long long first = 0;
  int code, rows = 0;
  while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
    if (rows++ == 0 && sqlite3_column_count(statement) > 0) first = sqlite3_column_int64(statement, 0);
  }
  if (code != SQLITE_DONE) die(sqlite3_sql(statement));
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  return first;
}

static int on_commit(void *context, sqlite3 *connection, const char *name, int frames) {
  (void)context;
  (void)name;
  frames_written += frames - frames_since_checkpoint;
  frames_since_checkpoint = frames;
  if (frames >= 1000) {
    sqlite3_wal_checkpoint_v2(connection, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    frames_since_checkpoint = 0;
  }
  return SQLITE_OK;
}

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static void random_hex(char *out, int count) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < count; i++) out[i] = digits[next_random() & 15];
  out[count] = 0;
}

static void text(sqlite3_stmt *s, int index, const char *value) {
  sqlite3_bind_text(s, index, value, -1, SQLITE_STATIC);
}

static double cpu_seconds(int which) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  struct timeval t = which == 0 ? usage.ru_utime : usage.ru_stime;
  return t.tv_sec + t.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: store-floor DB product|one-row COUNT BATCH\n");
    return 2;
  }
  const int product = strcmp(argv[2], "product") == 0;
  if (!product && strcmp(argv[2], "one-row") != 0) {
    fprintf(stderr, "store-floor: mode must be product or one-row, not %s\n", argv[2]);
    return 2;
  }
  const long count = atol(argv[3]);
  const int batch = atoi(argv[4]);
  if (count <= 0 || batch <= 0) {
    fprintf(stderr, "store-floor: COUNT and BATCH must be positive\n");
    return 2;
  }
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) die("open");
  exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
       "PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY");
  // The master key `lifecycle migrate` registered: a data key is stored only under the current one.
  char master[65] = "";
  {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT id FROM master_keys WHERE state = 'current'", -1, &s, NULL) != SQLITE_OK)
      die("master key");
    if (sqlite3_step(s) == SQLITE_ROW) snprintf(master, sizeof master, "%s", sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
  }
  if (!master[0]) {
    fprintf(stderr, "store-floor: the store has no current master key (run lifecycle migrate on it first)\n");
    return 1;
  }
  sqlite3_wal_hook(db, on_commit, NULL);

  sqlite3_stmt *notification = prepare(
      "INSERT INTO notifications (app, jti, audience, issuer, sub, type, event_time_ms, is_private_email, "
      "sealed_email, issued_at_ms, expires_at_ms, key_id, accepted_expired, received_at_ms, body_sha256, "
      "sealed_raw_jws, source) VALUES ('shop', ?1, 'com.example.siwa.service', 'https://appleid.apple.com', ?2, "
      "?3, ?4, 1, ?5, ?4, ?4, 'zE1BJVy', 0, ?4, ?6, ?7, 'notification') ON CONFLICT DO NOTHING RETURNING id");
  sqlite3_stmt *account = prepare(
      "SELECT state, last_applied_event_time_ms, email_forwarding, email_forwarding_event_time_ms, "
      "email_forwarding_input, access_event_time_ms, access_input, created_at_ms, updated_at_ms, deleted_at_ms, "
      "deleted_by FROM accounts WHERE app = 'shop' AND sub = ?1");
  sqlite3_stmt *save = prepare(
      "INSERT INTO accounts (app, sub, state, last_applied_event_time_ms, email_forwarding, "
      "email_forwarding_event_time_ms, email_forwarding_input, access_event_time_ms, access_input, created_at_ms, "
      "updated_at_ms, deleted_at_ms, deleted_by) VALUES ('shop', ?1, ?2, ?3, 1, ?3, 'enabled', ?3, 'linked', ?3, "
      "?3, NULL, NULL) ON CONFLICT (app, sub) DO UPDATE SET state = excluded.state, "
      "last_applied_event_time_ms = excluded.last_applied_event_time_ms, updated_at_ms = excluded.updated_at_ms");
  sqlite3_stmt *key = prepare(
      "INSERT INTO subject_keys (app, sub, scope, wrapped_key, master_key_id, created_at_ms) SELECT 'shop', ?1, "
      "'notifications', ?2, ?4, ?3 WHERE EXISTS (SELECT 1 FROM master_keys WHERE state = 'current' AND "
      "id = ?4) ON CONFLICT DO NOTHING RETURNING 1");
  sqlite3_stmt *history = prepare(
      "INSERT INTO account_history (app, sub, input_kind, identity, event_time_ms, received_at_ms, disposition, "
      "reason, from_state, to_state, effects, source, notification_id) VALUES ('shop', ?1, ?2, ?3, ?4, ?4, "
      "'applied', NULL, NULL, ?5, 'email-forwarding-changed:enabled', 'notification', ?6) RETURNING id");
  sqlite3_stmt *outbox = prepare(
      "INSERT INTO outbox (app, sub, kind, payload, message_id, status, attempts, created_at_ms, available_at_ms) "
      "VALUES ('shop', ?1, 'account.email_forwarding.changed', ?2, ?3, 'pending', 0, ?4, ?4) RETURNING id");
  sqlite3_stmt *claim = prepare(
      "WITH picked AS MATERIALIZED (SELECT o.id FROM outbox AS o INDEXED BY outbox_pending_due WHERE o.status = "
      "'pending' AND o.available_at_ms <= ?3 AND (o.leased_until_ms IS NULL OR o.leased_until_ms <= ?3) AND NOT "
      "EXISTS (SELECT 1 FROM outbox AS earlier INDEXED BY outbox_pending_account WHERE earlier.status = 'pending' "
      "AND earlier.app = o.app AND earlier.sub = o.sub AND earlier.id < o.id) ORDER BY o.available_at_ms, o.id "
      "LIMIT ?4) UPDATE outbox SET lease_owner = ?1, leased_until_ms = ?2, attempts = attempts + 1 FROM picked "
      "WHERE outbox.id = picked.id RETURNING outbox.id, outbox.app, outbox.sub, outbox.kind, outbox.payload, "
      "outbox.status, outbox.attempts, outbox.created_at_ms, outbox.available_at_ms, outbox.lease_owner, "
      "outbox.leased_until_ms, outbox.last_attempt_at_ms, outbox.last_error, outbox.last_status_code, "
      "outbox.delivered_at_ms, outbox.message_id");
  sqlite3_stmt *delivered = prepare(
      "UPDATE outbox SET status = 'delivered', delivered_at_ms = ?1, last_attempt_at_ms = ?1, last_status_code = "
      "200, leased_until_ms = NULL WHERE id = ?2 AND status = 'pending' AND lease_owner = 'floor' RETURNING 1");
  sqlite3_stmt *job = prepare(
      "INSERT INTO erasure_jobs (app, sub, trigger, event_time_ms, policy_reference, origin, categories, "
      "not_before_ms, deadline_ms, cancel_if_relinked, basis, status, created_at_ms) VALUES ('shop', ?1, "
      "'account-deleted', ?2, 'default@1#971f3316a0bf4d23e856a8865f4396b863e3b76f443600bc3d410dbfd3bcbd93', ?3, "
      "'profile,content,apple-tokens,relay-email,login-records,advertising-records', ?2, ?4, 1, "
      "'GDPR Art. 17(1) and Art. 12(3): without undue delay and within one calendar month (Regulation 1182/71 "
      "Art. 3(2)(c): same date next month, else the month''s last day)', 'scheduled', ?2) RETURNING id");
  sqlite3_stmt *step = prepare(
      "INSERT INTO erasure_steps (job_id, ordinal, target, status, attempts, next_attempt_at_ms) "
      "VALUES (?1, ?2, ?3, 'pending', 0, ?4)");
  sqlite3_stmt *savepoint = prepare("SAVEPOINT floor");
  sqlite3_stmt *release = prepare("RELEASE SAVEPOINT floor");
  sqlite3_stmt *begin = prepare("BEGIN IMMEDIATE");
  sqlite3_stmt *commit = prepare("COMMIT");

  static const char *targets[] = {"app-db", "backend", "self", "extra"};
  static const char *origins[] = {"rules[0]", "retain[0]", "retain[1]"};
  char token[856], email[65], sha[65], wrapped[62], payload[257], sub[45], jti[37], message[41];
  random_hex(token, 855);
  random_hex(email, 64);
  random_hex(wrapped, 61);
  random_hex(payload, 256);
  long long *leased = calloc((size_t)batch, sizeof *leased);
  int leased_count = 0;
  long long commits = 0, now = 1796567901961LL;
  struct timespec start, end;
  double user0 = cpu_seconds(0), system0 = cpu_seconds(1);
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long done = 0; done < count; commits++) {
    run(begin);
    int in_batch = 0;
    for (; in_batch < batch && done < count; in_batch++, done++, now++) {
      memcpy(sub, "001234.", 7);
      random_hex(sub + 7, 32);
      memcpy(sub + 39, ".1234", 6);
      random_hex(jti, 36);
      random_hex(sha, 64);
      const int deletion = done % 100 < 41;
      run(savepoint);
      text(notification, 1, jti);
      text(notification, 2, sub);
      text(notification, 3, deletion ? "account-delete" : "email-enabled");
      sqlite3_bind_int64(notification, 4, now);
      sqlite3_bind_blob(notification, 5, email, 64, SQLITE_STATIC);
      text(notification, 6, sha);
      sqlite3_bind_blob(notification, 7, token, 855, SQLITE_STATIC);
      const long long id = run(notification);
      if (product) {
        text(account, 1, sub);
        run(account);
        text(save, 1, sub);
        text(save, 2, deletion ? "deleted" : "linked");
        sqlite3_bind_int64(save, 3, now);
        run(save);
        text(key, 1, sub);
        sqlite3_bind_blob(key, 2, wrapped, 61, SQLITE_STATIC);
        sqlite3_bind_int64(key, 3, now);
        text(key, 4, master);
        if (run(key) != 1) die("the data key was not stored");
        text(history, 1, sub);
        text(history, 2, deletion ? "account-deleted" : "email-enabled");
        text(history, 3, jti);
        sqlite3_bind_int64(history, 4, now);
        text(history, 5, deletion ? "deleted" : "linked");
        sqlite3_bind_int64(history, 6, id);
        run(history);
        random_hex(message, 40);
        text(outbox, 1, sub);
        text(outbox, 2, payload);
        text(outbox, 3, message);
        sqlite3_bind_int64(outbox, 4, now);
        run(outbox);
        for (int j = 0; deletion && j < 3; j++) {
          text(job, 1, sub);
          sqlite3_bind_int64(job, 2, now);
          text(job, 3, origins[j]);
          sqlite3_bind_int64(job, 4, now + 2678400000LL);
          const long long job_id = run(job);
          const int steps = j > 0 ? 1 : 3 + (int)(done & 1);
          for (int s = 0; s < steps; s++) {
            sqlite3_bind_int64(step, 1, job_id);
            sqlite3_bind_int(step, 2, s);
            text(step, 3, targets[j > 0 ? 1 : s]);
            sqlite3_bind_int64(step, 4, now);
            run(step);
          }
        }
      }
      run(release);
    }
    if (product && commits > 0) {
      // The outbox's own writes: the messages the last claim leased are delivered, then the next claim leases
      // the messages the previous transaction wrote (LIMIT the batch, so it keeps pace).
      for (int i = 0; i < leased_count; i++) {
        sqlite3_bind_int64(delivered, 1, now);
        sqlite3_bind_int64(delivered, 2, leased[i]);
        if (run(delivered) != 1) die("a leased message was not delivered");
      }
      leased_count = 0;
      text(claim, 1, "floor");
      sqlite3_bind_int64(claim, 2, now + 30000);
      sqlite3_bind_int64(claim, 3, now);
      sqlite3_bind_int(claim, 4, batch);
      int code;
      while ((code = sqlite3_step(claim)) == SQLITE_ROW) {
        if (leased_count < batch) leased[leased_count++] = sqlite3_column_int64(claim, 0);
      }
      if (code != SQLITE_DONE) die("claim");
      sqlite3_reset(claim);
      sqlite3_clear_bindings(claim);
    }
    run(commit);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
  const double user = cpu_seconds(0) - user0, system = cpu_seconds(1) - system0;
  int page_size = 4096;
  {
    sqlite3_stmt *s = prepare("PRAGMA page_size");
    if (sqlite3_step(s) == SQLITE_ROW) page_size = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  printf("%s batch %d: %ld notifications in %.2f s: %.0f a second on one thread; CPU %.0f us a notification "
         "(user %.0f, system %.0f); %lld commits; WAL %.1f KB a notification\n",
         argv[2], batch, count, seconds, count / seconds, (user + system) / count * 1e6, user / count * 1e6,
         system / count * 1e6, commits, (double)frames_written * (page_size + 24) / count / 1000);
  free(leased);
  return 0;
}
