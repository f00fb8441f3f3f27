#include "CShims.h"
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int shim_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}
int shim_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
uint64_t shim_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t options) { return SSL_CTX_set_options(ctx, options); }
int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
void shim_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
int shim_BN_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }
int shim_SSL_set_min_proto_version(SSL *ssl, int version) { return (int)SSL_set_min_proto_version(ssl, version); }
int shim_SSL_set_max_proto_version(SSL *ssl, int version) { return (int)SSL_set_max_proto_version(ssl, version); }
long shim_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
int shim_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return (int)SSL_CTX_set1_groups_list(ctx, list); }
int shim_SSL_CTX_set_ecdh_auto(SSL_CTX *ctx) { (void)ctx; return 1; }

const uint64_t shim_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
const uint64_t shim_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
const uint64_t shim_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
const uint64_t shim_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
const long shim_SSL_MODE_ENABLE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
const long shim_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
const long shim_SSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;
const int shim_TLS1_VERSION = TLS1_VERSION;
const int shim_TLS1_1_VERSION = TLS1_1_VERSION;
const int shim_TLS1_2_VERSION = TLS1_2_VERSION;
const int shim_TLS1_3_VERSION = TLS1_3_VERSION;
const uint64_t shim_SSL_OP_IGNORE_UNEXPECTED_EOF = SSL_OP_IGNORE_UNEXPECTED_EOF;
const int shim_MBSTRING_ASC = MBSTRING_ASC;
long shim_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

int shim_accept4_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
int shim_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}
int shim_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    return epoll_wait(epfd, events, maxevents, timeout);
}
uint64_t shim_epoll_event_data(const struct epoll_event *event) { return event->data.u64; }
uint32_t shim_epoll_event_events(const struct epoll_event *event) { return event->events; }

const uint32_t shim_EPOLLIN = EPOLLIN;
const uint32_t shim_EPOLLOUT = EPOLLOUT;
const uint32_t shim_EPOLLERR = EPOLLERR;
const uint32_t shim_EPOLLHUP = EPOLLHUP;
const uint32_t shim_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t shim_EPOLLET = EPOLLET;
const int shim_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int shim_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
const int shim_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
const int shim_MSG_NOSIGNAL = MSG_NOSIGNAL;

/* Names the calling thread; Linux keeps 15 bytes and refuses longer names, so the name is cut first. */
int shim_set_thread_name(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}

int shim_syncfs(int fd) { return syncfs(fd); }
