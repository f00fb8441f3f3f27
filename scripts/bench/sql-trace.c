/* sql-trace.c — preloaded into `lifecycle serve` by statement-mix.sh: counts every sqlite3_step call by the SQL
 * text of its statement (all of the process's connections), and at exit writes one line per statement to
 * $SQL_TRACE_OUT: steps that returned a row, other steps, the SQL with tabs and newlines as spaces. It changes
 * nothing SQLite does; it only looks at the text of statements that ran. Not part of the product. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3_stmt sqlite3_stmt;

#define SLOTS 4096
static const char *texts[SLOTS];
static long row_steps[SLOTS];
static long other_steps[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int (*real_step)(sqlite3_stmt *);
static const char *(*real_sql)(sqlite3_stmt *);

static unsigned long hash(const char *text) {
    unsigned long value = 5381;
    while (*text) value = value * 33 + (unsigned char)*text++;
    return value;
}

int sqlite3_step(sqlite3_stmt *statement) {
    if (!real_step) {
        real_step = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
        real_sql = (const char *(*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_sql");
    }
    int result = real_step(statement);
    const char *text = real_sql(statement);
    if (!text) return result;
    pthread_mutex_lock(&lock);
    unsigned long slot = hash(text) % SLOTS;
    for (unsigned long probes = 0; probes < SLOTS && texts[slot] && strcmp(texts[slot], text); probes++)
        slot = (slot + 1) % SLOTS;
    if (!texts[slot]) texts[slot] = strdup(text);
    if (texts[slot] && !strcmp(texts[slot], text)) {
        if (result == 100 /* SQLITE_ROW */) row_steps[slot]++;
        else other_steps[slot]++;
    }
    pthread_mutex_unlock(&lock);
    return result;
}

__attribute__((destructor)) static void write_counts(void) {
    const char *path = getenv("SQL_TRACE_OUT");
    if (!path) return;
    FILE *out = fopen(path, "w");
    if (!out) return;
    for (int slot = 0; slot < SLOTS; slot++) {
        if (!texts[slot]) continue;
        fprintf(out, "%ld\t%ld\t", row_steps[slot], other_steps[slot]);
        for (const char *c = texts[slot]; *c; c++) fputc(*c == '\n' || *c == '\t' ? ' ' : *c, out);
        fputc('\n', out);
    }
    fclose(out);
}
