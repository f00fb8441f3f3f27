/// Tuning for ``PostgresStore``. Every default is what `serve` uses; tests and `lifecycle bench` change them.
public struct PostgresStoreConfiguration: Sendable, Hashable {
    /// Connections in the pool, each on its own thread; concurrent `read`/`write` calls use different ones,
    /// so this is also how many transactions one instance runs at once. Default 4 (two per core on the
    /// machine this service is sized for, since most of a transaction's time is a network round trip).
    public var connectionCount: Int
    /// The schema the store's tables live in, created when missing; nil keeps the server's `search_path`
    /// (normally `public`). Only lower-case ASCII letters, digits and `_`, so it never needs quoting rules.
    public var schema: String?
    /// How long opening one connection may take (libpq `connect_timeout`, the URL's own value wins).
    /// Default 5 s.
    public var connectTimeoutSeconds: Int
    /// Attempts to replace a broken connection before the call that found it fails. Default 5.
    public var reconnectAttempts: Int
    /// Wait before the first reconnection attempt, doubled after each failure. Default 100 ms.
    public var reconnectInitialDelayMilliseconds: Int
    /// The longest wait between two reconnection attempts. Default 2 000 ms.
    public var reconnectMaximumDelayMilliseconds: Int
    /// `statement_timeout` of the `VACUUM` after erasure batches and upgrades (``PostgresStore/removeRemnants()``):
    /// a vacuum that takes longer is cancelled and tried again after the next batch. Default 600 000 ms.
    public var maintenanceTimeoutMilliseconds: Int

    public init(
        connectionCount: Int = 4, schema: String? = nil, connectTimeoutSeconds: Int = 5, reconnectAttempts: Int = 5,
        reconnectInitialDelayMilliseconds: Int = 100, reconnectMaximumDelayMilliseconds: Int = 2_000,
        maintenanceTimeoutMilliseconds: Int = 600_000
    ) {
        self.maintenanceTimeoutMilliseconds = max(1, maintenanceTimeoutMilliseconds)
        self.connectionCount = max(1, connectionCount)
        self.schema = schema
        self.connectTimeoutSeconds = max(1, connectTimeoutSeconds)
        self.reconnectAttempts = max(1, reconnectAttempts)
        self.reconnectInitialDelayMilliseconds = max(0, reconnectInitialDelayMilliseconds)
        self.reconnectMaximumDelayMilliseconds = max(
            self.reconnectInitialDelayMilliseconds, reconnectMaximumDelayMilliseconds)
    }

    /// True when `schema` is nil or a name this store accepts.
    var hasValidSchema: Bool {
        guard let schema else { return true }
        return !schema.isEmpty && schema.utf8.count <= 63
            && schema.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }
}
