// Wrappers for what Swift cannot import from C: function-like macros, constants defined through
// macros, and Linux calls that need _GNU_SOURCE (accept4) or are missing from the Glibc module (epoll).
// Each wrapper is one line of C; keep it that way.
#ifndef CSHIMS_H
#define CSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sqlite3.h>
#include <openssl/ssl.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>

// MARK: SQLite
/// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
int shim_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length);
int shim_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length);

// MARK: OpenSSL
int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
uint64_t shim_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t options);
int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
void shim_OPENSSL_free(void *pointer);
int shim_BN_num_bytes(const BIGNUM *bn);
int shim_SSL_set_min_proto_version(SSL *ssl, int version);
int shim_SSL_set_max_proto_version(SSL *ssl, int version);
long shim_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode);
int shim_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list);
int shim_SSL_CTX_set_ecdh_auto(SSL_CTX *ctx);

extern const uint64_t shim_SSL_OP_NO_COMPRESSION;
extern const uint64_t shim_SSL_OP_NO_RENEGOTIATION;
extern const uint64_t shim_SSL_OP_CIPHER_SERVER_PREFERENCE;
extern const uint64_t shim_SSL_OP_NO_TICKET;
extern const long shim_SSL_MODE_ENABLE_PARTIAL_WRITE;
extern const long shim_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
extern const long shim_SSL_MODE_RELEASE_BUFFERS;
extern const int shim_TLS1_VERSION;
extern const int shim_TLS1_1_VERSION;
extern const int shim_TLS1_2_VERSION;
extern const int shim_TLS1_3_VERSION;
extern const uint64_t shim_SSL_OP_IGNORE_UNEXPECTED_EOF;
extern const int shim_MBSTRING_ASC;
long shim_BIO_get_mem_data(BIO *bio, char **data);

// MARK: Linux sockets
int shim_accept4_nonblocking(int fd, struct sockaddr *address, socklen_t *length);
int shim_epoll_create(void);
int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
int shim_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout);
uint64_t shim_epoll_event_data(const struct epoll_event *event);
uint32_t shim_epoll_event_events(const struct epoll_event *event);

extern const uint32_t shim_EPOLLIN;
extern const uint32_t shim_EPOLLOUT;
extern const uint32_t shim_EPOLLERR;
extern const uint32_t shim_EPOLLHUP;
extern const uint32_t shim_EPOLLRDHUP;
extern const uint32_t shim_EPOLLET;
extern const int shim_EPOLL_CTL_ADD;
extern const int shim_EPOLL_CTL_MOD;
extern const int shim_EPOLL_CTL_DEL;
extern const int shim_MSG_NOSIGNAL;

// MARK: Threads
/// Names the calling thread (pthread_setname_np, which Glibc's module does not export); cut to the 15 bytes
/// Linux keeps.
int shim_set_thread_name(const char *name);

// MARK: Files
/// Flushes every file of the filesystem that holds `fd` in one call (syncfs, which needs _GNU_SOURCE): how
/// many small files written together are made durable without an fsync each.
int shim_syncfs(int fd);

#endif
