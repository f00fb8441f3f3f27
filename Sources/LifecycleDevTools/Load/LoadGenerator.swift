import Dispatch
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import Synchronization

/// Closed-loop load: `connections` keep-alive connections, each on its own thread with a blocking socket,
/// send one request, wait for its response, record latency and status, and repeat until the duration or the
/// request count is reached. Blocking sockets on K threads keep the generator cheap enough to drive several
/// thousand requests per second on two cores.
public struct LoadGenerator: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Concurrent keep-alive connections (K). Default 8.
        public var connections: Int = 8
        /// Stop starting new requests after this long. Default 5 s when `totalRequests` is nil.
        public var duration: Duration?
        /// Stop after this many requests in total, across connections.
        public var totalRequests: Int?
        /// Per-exchange timeout (connect, send, receive). Default 10 s.
        public var requestTimeout: Duration = .seconds(10)

        public init(host: String, port: Int, connections: Int = 8, duration: Duration? = nil, totalRequests: Int? = nil)
        {
            self.host = host
            self.port = port
            self.connections = connections
            self.duration = duration
            self.totalRequests = totalRequests
        }
    }

    /// Builds the request with the given global sequence number (0, 1, 2 …).
    public typealias RequestSource = @Sendable (_ sequence: Int) -> HTTPClientRequest
    /// Called on the connection's thread after each exchange; `response` is nil when the exchange failed.
    public typealias ResponseObserver = @Sendable (_ sample: LoadSample, _ response: HTTPClientResponse?) -> Void

    public var configuration: Configuration
    private let makeRequest: RequestSource
    private let observer: ResponseObserver?

    public init(configuration: Configuration, request: @escaping RequestSource, onResponse: ResponseObserver? = nil) {
        self.configuration = configuration
        self.makeRequest = request
        self.observer = onResponse
    }

    /// Runs the load on dedicated threads and returns when every connection has finished.
    public func run() async -> LoadResult {
        await withCheckedContinuation { continuation in
            let generator = self
            Thread { continuation.resume(returning: generator.runBlocking()) }.start()
        }
    }

    /// Runs the load, blocking the calling thread.
    public func runBlocking() -> LoadResult {
        let sequence = SequenceCounter()
        let collected = Mutex<[LoadSample]>([])
        let connectionCount = max(1, configuration.connections)
        let done = DispatchSemaphore(value: 0)
        let clock = SystemClock()
        let start = clock.monotonicNanoseconds()
        let durationNanoseconds =
            (configuration.duration ?? (configuration.totalRequests == nil ? .seconds(5) : nil))?.nanosecondsForDeadline
        let end = durationNanoseconds.map { start &+ $0 } ?? .max
        let configuration = self.configuration
        let makeRequest = self.makeRequest
        let observer = self.observer

        for connectionIndex in 0..<connectionCount {
            Thread {
                var samples: [LoadSample] = []
                var connection: HTTPClientConnection?
                while true {
                    let number = sequence.value.wrappingAdd(1, ordering: .relaxed).oldValue
                    if let total = configuration.totalRequests, number >= total { break }
                    if clock.monotonicNanoseconds() >= end { break }
                    let request = makeRequest(number)
                    let began = clock.monotonicNanoseconds()
                    var response: HTTPClientResponse?
                    do {
                        if connection == nil {
                            connection = try HTTPClientConnection(
                                host: configuration.host, port: configuration.port,
                                timeout: configuration.requestTimeout)
                        }
                        response = try connection!.send(request)
                    } catch {
                        connection = nil
                    }
                    let sample = LoadSample(
                        sequence: number, connection: connectionIndex, status: response?.status,
                        latencyNanoseconds: clock.monotonicNanoseconds() &- began)
                    samples.append(sample)
                    observer?(sample, response)
                }
                connection?.close()
                collected.withLock { $0.append(contentsOf: samples) }
                done.signal()
            }.start()
        }
        for _ in 0..<connectionCount { done.wait() }
        let elapsed = clock.monotonicNanoseconds() &- start
        let samples = collected.withLock { $0 }.sorted { $0.sequence < $1.sequence }
        return LoadResult(samples: samples, elapsedNanoseconds: elapsed)
    }
}

private final class SequenceCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// One exchange as the load generator saw it.
public struct LoadSample: Sendable, Hashable {
    /// The global sequence number passed to the request source.
    public var sequence: Int
    /// Which connection (0..<K) carried it.
    public var connection: Int
    /// The response status, or nil when the exchange failed (connect, timeout, reset).
    public var status: Int?
    public var latencyNanoseconds: UInt64
}

/// The outcome of a load run.
public struct LoadResult: Sendable {
    /// Every exchange, ordered by sequence number, so a caller can check which requests were acknowledged.
    public var samples: [LoadSample]
    public var elapsedNanoseconds: UInt64

    public var count: Int { samples.count }
    /// Exchanges that got no response at all.
    public var failureCount: Int { samples.lazy.filter { $0.status == nil }.count }
    public var requestsPerSecond: Double {
        elapsedNanoseconds == 0 ? 0 : Double(count) / (Double(elapsedNanoseconds) / 1e9)
    }
    /// How many responses carried each status.
    public var statusCounts: [Int: Int] {
        samples.reduce(into: [:]) { counts, sample in
            if let status = sample.status { counts[status, default: 0] += 1 }
        }
    }

    /// Latency at `quantile` (0…1) by nearest rank, in nanoseconds; 0 when there are no samples.
    public func latencyNanoseconds(atQuantile quantile: Double) -> UInt64 {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.map(\.latencyNanoseconds).sorted()
        let rank = Int((quantile * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    public var p50: Duration { .nanoseconds(latencyNanoseconds(atQuantile: 0.5)) }
    public var p99: Duration { .nanoseconds(latencyNanoseconds(atQuantile: 0.99)) }
    public var p999: Duration { .nanoseconds(latencyNanoseconds(atQuantile: 0.999)) }
}
