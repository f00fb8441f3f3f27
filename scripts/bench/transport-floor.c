/* transport-floor: an HTTP/1.1 server that does nothing but answer each POST with an empty 200, to measure the
 * least a request costs this machine (the load generator, the kernel's loopback TCP and a server's read and
 * write) under the same load as `make bench-peer`. No verification, no storage: every server does at least this.
 *
 *   transport-floor PORT [THREADS]     THREADS event loops (default 2), one epoll each, SO_REUSEPORT
 *
 * Binds 127.0.0.1 only. Built and run by transport-floor.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFFER 65536
static int port;

struct connection {
    int fd;
    size_t used;
    char data[BUFFER];
};

static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

/* The length of the first complete request in data[0..used), or 0 when it is not all there yet, or -1. */
static long complete(const char *data, size_t used) {
    const char *end = memmem(data, used, "\r\n\r\n", 4);
    if (!end) return used >= BUFFER ? -1 : 0;
    size_t head = (size_t)(end - data) + 4;
    long body = 0;
    for (const char *line = data; line < end;) {
        const char *next = memmem(line, (size_t)(end - line) + 2, "\r\n", 2);
        if (!next) break;
        if ((size_t)(next - line) > 15 && strncasecmp(line, "content-length:", 15) == 0) body = atol(line + 15);
        line = next + 2;
    }
    if (body < 0 || head + (size_t)body > BUFFER) return -1;
    return used >= head + (size_t)body ? (long)(head + (size_t)body) : 0;
}

static void *loop(void *unused) {
    (void)unused;
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 512) != 0) {
        perror("transport-floor: bind");
        exit(1);
    }
    int poller = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event ready[64];
    for (;;) {
        int count = epoll_wait(poller, ready, 64, -1);
        for (int i = 0; i < count; i++) {
            struct connection *connection = ready[i].data.ptr;
            if (!connection) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct connection *fresh = calloc(1, sizeof *fresh);
                    fresh->fd = fd;
                    struct epoll_event added = {.events = EPOLLIN, .data.ptr = fresh};
                    epoll_ctl(poller, EPOLL_CTL_ADD, fd, &added);
                }
                continue;
            }
            ssize_t got = read(connection->fd, connection->data + connection->used, BUFFER - connection->used);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN) continue;
                close(connection->fd);
                free(connection);
                continue;
            }
            connection->used += (size_t)got;
            long length;
            while ((length = complete(connection->data, connection->used)) > 0) {
                if (write(connection->fd, answer, sizeof answer - 1) != (ssize_t)(sizeof answer - 1)) break;
                memmove(connection->data, connection->data + length, connection->used - (size_t)length);
                connection->used -= (size_t)length;
            }
            if (length < 0) {
                close(connection->fd);
                free(connection);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: transport-floor PORT [THREADS]\n");
        return 2;
    }
    port = atoi(argv[1]);
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (port <= 0 || port > 65535 || threads < 1 || threads > 64) {
        fprintf(stderr, "transport-floor: PORT must be 1-65535 and THREADS 1-64\n");
        return 2;
    }
    pthread_t thread;
    for (int i = 1; i < threads; i++) pthread_create(&thread, NULL, loop, NULL);
    loop(NULL);
    return 0;
}
