/* receipt-floor: the least time this machine's file system takes to create N receipt-sized files in one
 * directory, as a month's report lays out its receipts (reports/README.md: receipts/<subject>-<eventType>-
 * <eventTime>.tlog-proof, one per deletion), and to make them durable with one syncfs(2), as the report does.
 * Nothing else: no proof is computed, so this is the floor under `lifecycle bench report`'s receipts phase.
 *
 *   receipt-floor DIR N [BYTES]      DIR must not exist; BYTES per file (default 1640, a receipt's median)
 *
 * Prints one line: files, bytes, seconds to create, seconds to sync, total. Built and run by receipt-floor.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: receipt-floor DIR N [BYTES]\n");
        return 2;
    }
    const char *dir = argv[1];
    long count = atol(argv[2]);
    long size = argc > 3 ? atol(argv[3]) : 1640;
    if (count <= 0 || size <= 0 || size > 1 << 20) {
        fprintf(stderr, "receipt-floor: N must be positive and BYTES between 1 and 1048576\n");
        return 2;
    }
    if (mkdir(dir, 0755) != 0) {
        fprintf(stderr, "receipt-floor: cannot create %s: %s (it must not exist)\n", dir, strerror(errno));
        return 2;
    }
    char *bytes = malloc((size_t)size);
    memset(bytes, 'A', (size_t)size);
    char path[4096];
    double start = now();
    for (long i = 0; i < count; i++) {
        /* A pseudonym-like subject (hex of a scrambled index), the event type and a compact event time. */
        snprintf(path, sizeof path, "%s/ps_%016lx%016lx-account-delete-202611%02ldT%06ldZ.tlog-proof", dir,
                 (unsigned long)i * 2654435761UL, (unsigned long)i * 40503UL, 1 + i % 30, i % 240000);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, bytes, (size_t)size) != size || close(fd) != 0) {
            fprintf(stderr, "receipt-floor: %s: %s\n", path, strerror(errno));
            return 1;
        }
    }
    double created = now();
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || syncfs(fd) != 0) {
        fprintf(stderr, "receipt-floor: syncfs %s: %s\n", dir, strerror(errno));
        return 1;
    }
    double synced = now();
    printf("receipt-floor: %ld files of %ld bytes in one directory: create %.1f s, syncfs %.1f s, total %.1f s\n",
           count, size, created - start, synced - created, synced - start);
    return 0;
}
