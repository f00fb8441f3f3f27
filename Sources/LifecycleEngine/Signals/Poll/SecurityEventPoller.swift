import AppleAccountAPI
import LifecycleCore
import SharedSignals

/// The poll worker of one poll stream (`apps[i].signals[j].stream.delivery: "poll"`, RFC 8936): POSTs
/// `{"maxEvents", "returnImmediately", "ack", "setErrs"}` to the transmitter's poll endpoint with
/// `Authorization: Bearer <stream.tokenFile>`, and hands each SET of the answer to the same verify-and-store
/// path as a push (``SecurityEventIngestor/accept(_:from:receivedAt:source:expectedJTI:)``).
///
/// Nothing is lost on a crash: a `jti` is acknowledged only in a poll after its SET's commit returned (a
/// duplicate is acknowledged too: it was stored before), so a process killed between the commit and the ack
/// gets the SET again and the store answers it as a duplicate. A SET that can never be accepted is reported
/// in `setErrs` with its RFC 8935 §2.4 `err`; a SET the store could not take now (`unavailable`) is neither,
/// so the transmitter hands it out again.
///
/// An answer with SETs or `moreAvailable` is followed by the next poll at once (which carries their acks);
/// an empty one by `pollIntervalMilliseconds`. A failed poll (transport, a status other than 200, an answer
/// that is not RFC 8936's) keeps the outcomes to report, logs one line and waits twice as long each time in
/// a row, up to `pollBackoffMaxMilliseconds`. Settings are read from the configuration in force once per poll,
/// so a reload takes effect at the next poll and never inside one. Cancelled (SIGTERM, or the stream gone
/// from the configuration), it reports the outcomes it still holds in one last poll with `maxEvents` 0.
public final class SecurityEventPoller: Sendable {
    public let app: String
    public let provider: String
    private let current: @Sendable () -> SecurityEventIngestor
    private let log: EventLog
    private let clock: any LifecycleClock
    private let metrics: SecurityEventPollMetrics
    private let environment: [String: String]

    public init(
        app: String, provider: String, current: @escaping @Sendable () -> SecurityEventIngestor, log: EventLog,
        clock: any LifecycleClock, metrics: SecurityEventPollMetrics, environment: [String: String]
    ) {
        self.app = app
        self.provider = provider
        self.current = current
        self.log = log
        self.clock = clock
        self.metrics = metrics
        self.environment = environment
    }

    /// What a poll's SETs came to: the outcomes the next poll reports.
    private struct Outcomes {
        var ack: [String] = []
        var setErrs: [(jti: String, error: SecurityEventPollRequest.SetError)] = []
        var isEmpty: Bool { ack.isEmpty && setErrs.isEmpty }
    }

    /// The store-wide lock one poller of the stream holds while it polls
    /// (``Store/withExclusiveLock(named:_:)``).
    var lockName: String { "signal-poll:\(app)/\(provider)" }

    /// Polls until cancelled or until the configuration in force has no such poll stream, while holding the
    /// stream's lock: of several instances on one store, one polls and the others stand by, looking again every
    /// `pollIntervalMilliseconds`, and one of them takes over when the holder stops or dies (the lock goes with
    /// its process or its connection). Without the lock every instance would be handed the same SETs, stored
    /// once but fetched, verified and acknowledged by each.
    public func run() async {
        var standingBy = false
        while !Task.isCancelled {
            let ingestor = current()
            guard let receiver = ingestor.pollReceiver(app: app, provider: provider) else { return }
            let takingOver = standingBy
            let held = try? await ingestor.store.withExclusiveLock(named: lockName) { [self] in
                if takingOver { log.log(.info, "signal.poll_leading", app: app, [("provider", .string(provider))]) }
                await pollWhileHeld()
                return true
            }
            if held == true { return }
            if !standingBy {
                log.log(.info, "signal.poll_standby", app: app, [("provider", .string(provider))])
                standingBy = true
            }
            await sleep(.milliseconds(receiver.provider.stream.pollIntervalMilliseconds))
        }
    }

    /// The poll loop proper (``run()``), with the stream's lock held.
    private func pollWhileHeld() async {
        var outcomes = Outcomes()
        var failures = 0
        var learnt: (stream: SignalStreamConfiguration, url: String)?
        var last: SecurityEventReceiver?
        while !Task.isCancelled {
            // One configuration for the whole poll: its receiver, its settings and the ingest of its SETs.
            let ingestor = current()
            guard let receiver = ingestor.pollReceiver(app: app, provider: provider) else { break }
            last = receiver
            let stream = receiver.provider.stream
            let url: String
            if let configured = stream.pollURL {
                url = configured
            } else if let learnt, learnt.stream == stream {
                url = learnt.url
            } else {
                do throws(StreamManagementError) {
                    url = try await endpoint(receiver)
                    learnt = (stream, url)
                    log.log(.info, "signal.poll_endpoint", app: app, [("provider", .string(provider))])
                } catch {
                    failures += 1
                    failed("no_endpoint", error.description)
                    await sleep(Self.backoff(stream, failures: failures))
                    continue
                }
            }
            let request = SecurityEventPollRequest(
                maxEvents: stream.maxEvents, ack: outcomes.ack, setErrs: outcomes.setErrs)
            let answer: SecurityEventPollAnswer
            switch await poll(request, url: url, receiver: receiver) {
            case .failure(let failure):
                failures += 1
                failed(failure.result, failure.message)
                // A learnt endpoint that is gone (the transmitter moved it, or recreated the stream) is learnt
                // again from the stream configuration at the next poll.
                if failure.status == 404 || failure.status == 410 { learnt = nil }
                await sleep(Self.backoff(stream, failures: failures))
                continue
            case .success(let received):
                answer = received
            }
            reported(request)
            outcomes = Outcomes()
            var unavailable = false
            for (jti, set) in answer.sets {
                // Stopping: what is not stored yet is not acknowledged, so the transmitter hands it out again.
                if Task.isCancelled { break }
                let outcome = await ingestor.accept(
                    set, from: receiver, receivedAt: clock.now(), source: SecurityEventIngestor.pollSource,
                    expectedJTI: jti)
                metrics.sets.increment([("app", app), ("provider", provider), ("outcome", outcome.outcomeName)])
                switch outcome {
                case .accepted, .duplicate:
                    outcomes.ack.append(jti)
                case .rejected(let error):
                    outcomes.setErrs.append(
                        (jti, .init(err: error.code.rfc8935Error, description: error.description)))
                case .unavailable:
                    unavailable = true
                }
            }
            if unavailable {
                // The store or the key set is down: the transmitter hands those SETs out again, later.
                failures += 1
                await sleep(Self.backoff(stream, failures: failures))
            } else {
                failures = 0
                if answer.sets.isEmpty && !answer.moreAvailable {
                    await sleep(.milliseconds(stream.pollIntervalMilliseconds))
                }
            }
        }
        if !outcomes.isEmpty, let receiver = last {
            await finalReport(outcomes, receiver: receiver, learnt: learnt?.url)
        }
    }

    /// The outcomes still held, in one poll asking for no SET (RFC 8936 §2.4: `maxEvents` 0), so the
    /// transmitter does not hand out again what was stored. A failure only means it will.
    private func finalReport(_ outcomes: Outcomes, receiver: SecurityEventReceiver, learnt: String?) async {
        guard let url = receiver.provider.stream.pollURL ?? learnt else { return }
        let request = SecurityEventPollRequest(maxEvents: 0, ack: outcomes.ack, setErrs: outcomes.setErrs)
        switch await poll(request, url: url, receiver: receiver) {
        case .success: reported(request)
        case .failure(let failure): failed(failure.result, failure.message)
        }
    }

    private struct PollFailure: Error {
        var result: String
        var message: String
        /// The poll endpoint's status, when it answered one other than 200.
        var status: Int? = nil
    }

    /// One exchange with the poll endpoint, counted.
    private func poll(
        _ request: SecurityEventPollRequest, url: String, receiver: SecurityEventReceiver
    ) async -> Result<SecurityEventPollAnswer, PollFailure> {
        let stream = receiver.provider.stream
        let client = TransmitterClient(
            timeout: .seconds(stream.timeoutSeconds), maximumResponseBytes: stream.pollMaxResponseBytes)
        let authorization = receiver.pollToken.map { "Bearer " + String(decoding: $0, as: UTF8.self) }
        let answer: (status: Int, body: [UInt8])
        do throws(StreamManagementError) {
            answer = try await client.exchange("POST", url, body: request.json, authorization: authorization)
        } catch {
            return .failure(PollFailure(result: "transport_error", message: error.description))
        }
        guard answer.status == 200 else {
            let refused = Result { () throws(StreamManagementError) in
                try TransmitterClient.expect(
                    (answer.status, JSONValue.parseIfValid(answer.body)), [200], call: "POST \(url)")
            }
            let message: String =
                if case .failure(let error) = refused { error.description } else { "answered \(answer.status)" }
            return .failure(PollFailure(result: "http_error", message: message, status: answer.status))
        }
        switch SecurityEventPollAnswer.decode(answer.body) {
        case .success(let decoded):
            metrics.polls.increment([("app", app), ("provider", provider), ("result", "ok")])
            return .success(decoded)
        case .failure(let error):
            let shown = url.quotedForError(maxBytes: TransmitterClient.maximumQuotedURLBytes)
            return .failure(PollFailure(result: "malformed", message: "POST \(shown): \(error.description)"))
        }
    }

    /// The poll endpoint the transmitter supplied in the stream configuration (SSF 1.0 §8.1.1
    /// `delivery.endpoint_url`), read with `lifecycle signals stream show`'s call.
    private func endpoint(_ receiver: SecurityEventReceiver) async throws(StreamManagementError) -> String {
        let manager = try SignalStreamManager(
            app: app, provider: receiver.provider, environment: environment, clock: clock)
        let stream = try await manager.show(streamID: nil)
        guard let url = stream["delivery"]?["endpoint_url"]?.stringValue,
            case .success = AppleBaseURL.parse(url, what: "URL")
        else {
            throw StreamManagementError(
                "the transmitter's stream has no https:// delivery.endpoint_url; set stream.pollURL")
        }
        return url
    }

    private func reported(_ request: SecurityEventPollRequest) {
        if !request.ack.isEmpty {
            metrics.acks.increment([("app", app), ("provider", provider)], by: Double(request.ack.count))
        }
        for entry in request.setErrs {
            metrics.setErrors.increment([("app", app), ("provider", provider), ("err", entry.error.err)])
        }
    }

    private func failed(_ result: String, _ message: String) {
        metrics.polls.increment([("app", app), ("provider", provider), ("result", result)])
        log.log(
            .warning, "signal.poll_failed", app: app,
            [
                ("provider", .string(provider)), ("result", .string(result)),
                ("error", .string(message.escapingControlCharacters)),
            ])
    }

    /// `pollIntervalMilliseconds` doubled per failure in a row, at most `pollBackoffMaxMilliseconds`.
    static func backoff(_ stream: SignalStreamConfiguration, failures: Int) -> Duration {
        let cap = stream.pollBackoffMaxMilliseconds
        var delay = min(stream.pollIntervalMilliseconds, cap)
        var step = 1
        while step < failures, delay < cap {
            delay = min(cap, delay * 2)
            step += 1
        }
        return .milliseconds(delay)
    }

    private func sleep(_ duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}
