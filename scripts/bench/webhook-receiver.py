#!/usr/bin/env python3
"""A webhook receiver for benchmarks, on loopback: answers every POST with 200 and counts it.

  webhook-receiver.py PORT COUNTFILE

Stands in for an app backend that accepts the service's webhooks (account events and erasure requests)
at once, so the outbox and the erasure runner do their real work against a live peer. On SIGTERM it writes
the number of POSTs it answered to COUNTFILE and exits. Standard library only; binds 127.0.0.1.
"""
import http.server
import signal
import sys
import threading

count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with lock:
            count += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    port, count_file = int(sys.argv[1]), sys.argv[2]
    # socketserver listens with a backlog of 5: with the outbox and the erasure runner connecting at once
    # the kernel drops SYNs beyond it and each dropped client retries a second later, which measured the
    # receiver's backlog instead of the service.
    http.server.ThreadingHTTPServer.request_queue_size = 512
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True

    def stop(*_):
        with open(count_file, "w") as f:
            f.write(f"{count}\n")
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
