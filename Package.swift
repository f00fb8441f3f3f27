// swift-tools-version: 6.2
import PackageDescription

/// Strict by default: Swift 6 language mode (complete concurrency checking) and every warning an error.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "AccountLifecycle",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lifecycle", targets: ["lifecycle"])
    ],
    targets: [
        // C: system libraries and the one shim for what Swift cannot import (macros, epoll, accept4).
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .target(
            name: "CShims", dependencies: ["CSQLite", "COpenSSL"],
            cSettings: [.define("_GNU_SOURCE")]),
        // A file mapping whose file shrinks or cannot be read while it is read: zeros and a flag, not SIGBUS.
        .target(name: "CMappingGuard"),

        // Pure domain: no I/O.
        .target(name: "LifecycleCore", swiftSettings: strict),

        // OpenSSL-backed primitives: digests, MAC, signatures, keys, randomness.
        .target(name: "LifecycleCrypto", dependencies: ["COpenSSL", "CShims"], swiftSettings: strict),

        // Transparency log in the standard formats: RFC 9162 Merkle proofs, C2SP signed notes, checkpoints,
        // tlog-tiles and tlog-proof receipts.
        .target(name: "TransparencyLog", dependencies: ["LifecycleCrypto"], swiftSettings: strict),

        // Apple's signed notifications: JWS, JWKS, verification, event decoding.
        .target(
            name: "AppleNotifications", dependencies: ["LifecycleCore", "LifecycleCrypto"],
            swiftSettings: strict),

        // OpenID Shared Signals: Security Event Tokens (RFC 8417) of SSF 1.0 transmitters and Google's RISC,
        // their subject identifiers (RFC 9493) and event types, verified with AppleNotifications' JOSE and keys.
        .target(
            name: "SharedSignals", dependencies: ["LifecycleCore", "LifecycleCrypto", "AppleNotifications"],
            swiftSettings: strict),

        // Apple's Sign in with Apple REST API: client secrets, token exchange, refresh and revocation, the
        // id_token check, and `apple check`.
        .target(
            name: "AppleAccountAPI",
            dependencies: ["LifecycleCore", "LifecycleCrypto", "AppleNotifications", "HTTP1", "HTTPServer"],
            swiftSettings: strict),

        // SQL plumbing: SQLite and PostgreSQL connections, statements, values, rows, named parameters, the
        // owner thread, and the application databases erasure and reconcile open (their failures are
        // LifecycleCore's FailureCode). No store concepts.
        .target(
            name: "LifecycleSQL", dependencies: ["LifecycleCore", "CSQLite", "CLibPQ", "CShims"], swiftSettings: strict),

        // Durable state: the Store protocol, one access layer over a SQL dialect, schema, migrations, and the
        // SQLite and PostgreSQL stores.
        .target(
            name: "LifecycleStore", dependencies: ["LifecycleCore", "LifecycleSQL"],
            swiftSettings: strict),

        // HTTP/1.1 without I/O: messages, the request parser, the response encoder and the connection state
        // machine (every framing, keep-alive and deadline rule), driven by events and an injected clock.
        .target(name: "HTTP1", dependencies: ["LifecycleCore"], swiftSettings: strict),

        // HTTP/1.1 on POSIX sockets: the epoll event loop driving HTTP1's connection machine, plain and TLS
        // transports, and the client.
        .target(
            name: "HTTPServer", dependencies: ["HTTP1", "LifecycleCore", "CShims", "COpenSSL"], swiftSettings: strict),

        // The service in layers, dependencies pointing down only (ARCHITECTURE.md): the engine (one transaction
        // from a verified notification to its outbox messages and erasure jobs), reconcile and reports over it,
        // the server that runs them, development tools, and the command line on top.
        .target(
            name: "LifecycleEngine",
            dependencies: [
                "LifecycleCore", "LifecycleCrypto", "AppleNotifications", "AppleAccountAPI", "SharedSignals",
                "LifecycleSQL", "LifecycleStore", "HTTP1", "HTTPServer", "CShims",
            ],
            swiftSettings: strict),
        .target(
            name: "LifecycleReconcile",
            dependencies: ["LifecycleCore", "LifecycleSQL", "LifecycleStore", "LifecycleEngine"],
            swiftSettings: strict),
        .target(
            name: "LifecycleReports",
            dependencies: [
                "LifecycleCore", "LifecycleCrypto", "LifecycleStore", "LifecycleEngine", "TransparencyLog",
                "CMappingGuard",
            ],
            swiftSettings: strict),
        .target(
            name: "LifecycleServer",
            dependencies: [
                "LifecycleCore", "AppleNotifications", "SharedSignals", "LifecycleStore", "HTTP1", "HTTPServer",
                "LifecycleEngine", "LifecycleReconcile", "LifecycleReports",
            ],
            resources: [.embedInCode("AdminAPI/admin.openapi.json")], swiftSettings: strict),
        .target(
            name: "LifecycleDevTools",
            dependencies: [
                "LifecycleCore", "LifecycleCrypto", "AppleNotifications", "LifecycleSQL", "LifecycleStore", "HTTP1",
                "HTTPServer", "LifecycleEngine", "LifecycleReconcile", "LifecycleReports", "LifecycleServer",
                "COpenSSL", "CShims",
            ],
            swiftSettings: strict),
        .target(
            name: "LifecycleCLI",
            dependencies: [
                "LifecycleCore", "AppleNotifications", "AppleAccountAPI", "LifecycleStore", "HTTP1", "HTTPServer",
                "LifecycleEngine", "LifecycleReconcile", "LifecycleReports", "LifecycleServer", "LifecycleDevTools",
            ],
            swiftSettings: strict),

        .executableTarget(name: "lifecycle", dependencies: ["LifecycleCLI"], swiftSettings: strict),

        // Property checks over every parser of outside input; never linked into `lifecycle`. Run by the test
        // suite (corpus + seeded random inputs) and by libFuzzer (`make fuzz`, the target below).
        .target(
            name: "LifecycleFuzzing",
            dependencies: [
                "HTTP1", "HTTPServer", "LifecycleCore", "LifecycleCrypto", "AppleNotifications", "AppleAccountAPI",
                "SharedSignals",
                "LifecycleSQL", "LifecycleEngine", "LifecycleReconcile", "LifecycleReports", "LifecycleServer",
                "TransparencyLog",
            ],
            swiftSettings: strict),

        // Test-only helpers: key pairs, token minting, temporary directories.
        .target(
            name: "TestSupport",
            dependencies: ["LifecycleCore", "LifecycleCrypto", "AppleNotifications", "LifecycleDevTools"],
            path: "Tests/TestSupport", swiftSettings: strict),

        // A stand-in for Apple's Sign in with Apple REST API on loopback over TLS, for tests.
        .target(
            name: "AppleRESTFake",
            dependencies: [
                "HTTP1", "HTTPServer", "LifecycleCore", "LifecycleCrypto", "AppleNotifications", "LifecycleDevTools",
                "TestSupport",
            ],
            path: "Tests/AppleRESTFake", swiftSettings: strict),

        .testTarget(name: "LifecycleCoreTests", dependencies: ["LifecycleCore"], swiftSettings: strict),
        .testTarget(
            name: "LifecycleCryptoTests", dependencies: ["LifecycleCrypto", "COpenSSL"], swiftSettings: strict),
        .testTarget(
            name: "AppleAccountAPITests",
            dependencies: [
                "AppleAccountAPI", "AppleRESTFake", "AppleNotifications", "LifecycleCrypto", "HTTP1", "HTTPServer",
                "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AppleNotificationsTests",
            dependencies: ["AppleNotifications", "LifecycleCrypto", "LifecycleDevTools", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "SharedSignalsTests",
            dependencies: ["SharedSignals", "AppleNotifications", "LifecycleCrypto", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "LifecycleStoreTests", dependencies: ["LifecycleStore", "LifecycleSQL", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "TransparencyLogTests", dependencies: ["TransparencyLog", "LifecycleCrypto", "TestSupport"],
            exclude: ["Fixtures", "Verifier"], swiftSettings: strict),
        .testTarget(
            name: "HTTPTests",
            dependencies: ["HTTP1", "HTTPServer", "LifecycleCore", "LifecycleDevTools", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "LifecycleServiceTests",
            dependencies: [
                "LifecycleEngine", "LifecycleReconcile", "LifecycleReports", "LifecycleServer", "LifecycleDevTools",
                "LifecycleCLI", "HTTP1", "HTTPServer", "LifecycleSQL", "LifecycleStore", "AppleRESTFake", "TestSupport",
                "TransparencyLog", "SharedSignals",
            ],
            exclude: ["Fixtures", "Golden"], swiftSettings: strict),
        .testTarget(name: "LifecycleFuzzingTests", dependencies: ["LifecycleFuzzing"], swiftSettings: strict),
    ]
)

/// The libFuzzer entry point exists only in the fuzzing build (`make fuzz` sets LIFECYCLE_FUZZ=1 and builds
/// with `-sanitize=fuzzer,address` into .build/fuzz), so the normal build and test run never see it.
if Context.environment["LIFECYCLE_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "lifecycle-fuzz", dependencies: ["LifecycleFuzzing"], path: "Fuzz/Sources/lifecycle-fuzz",
            // No Swift `main`: libFuzzer's (linked by -sanitize=fuzzer) drives the entry points.
            swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]))
}
