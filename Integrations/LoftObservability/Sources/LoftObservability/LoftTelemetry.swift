import Loft
import Logging
import Metrics
import Tracing

/// A client's fetches, mutations and cache as spans (swift-distributed-tracing), metrics (swift-metrics) and
/// log lines (swift-log), read from its events (`QueryClient.events`).
///
/// ```swift
/// let telemetry = LoftTelemetry(client: client)  // the process's bootstrapped backends
/// // ... later, when the client is done with:
/// telemetry.cancel()
/// ```
///
/// **Behavior**
/// - A span `loft.fetch` per fetch, from its start to its end (success, failure, cancellation, or replaced by
///   another fetch of the key), and `loft.mutation` per mutation call, from its submission until it settles;
///   names, attributes, metrics and log lines are listed in the add-on's README.
/// - Keys are named by their first part by default (`Options.keyLabel`).
/// - Durations are measured on the client's scheduler (virtual time in tests).
/// - Each event is handled on the thread that sent it, under one lock of its own, taken briefly; nothing is
///   kept once a fetch or a call has ended but the metric series it counted into: each is made by the backend
///   on its first use and kept (one per name and dimensions' values, as the backend keeps it).
/// - Attached until `cancel()`, or until the telemetry is released; it does not keep the client alive.
public final class LoftTelemetry: Sendable {
    /// Where telemetry goes and how keys are named.
    public let options: Options

    private struct State: Sendable {
        var fetches: [QueryKey: OpenFetch] = [:]
        var mutations: [UInt64: OpenMutation] = [:]
        var entries = 0
        var subscriptions: [Subscription] = []
    }

    private let state = Locked(State())
    private let instruments: Instruments
    private let scheduler: any Scheduler

    /// Attaches to `client`: every event from now on is traced, counted and logged as the options say; the
    /// entries the client already holds are counted in the `entries` gauge.
    ///
    /// - Parameters:
    ///   - client: the client to observe.
    ///   - options: backends and key naming (default: the process's bootstrapped backends, first key parts).
    public init(client: QueryClient, options: Options = Options()) {
        self.options = options
        instruments = Instruments(options)
        scheduler = client.scheduler
        let entries = client.queryInfos().count
        state.withLock { $0.entries = entries }
        instruments.entries.record(entries)
        let subscription = client.events.sink { [weak self] event in self?.handle(event) }
        state.withLock { $0.subscriptions.append(subscription) }
    }

    deinit {
        for subscription in state.withLock({ $0.subscriptions }) { subscription.cancel() }
    }

    /// Stops observing: no event is handled after it returns; spans still open are ended as `detached`.
    public func cancel() {
        let (subscriptions, fetches, mutations) = state.withLock { state in
            defer { state = State() }
            return (state.subscriptions, state.fetches.values, state.mutations.values)
        }
        for subscription in subscriptions { subscription.cancel() }
        for open in fetches {
            open.span.attributes["loft.outcome"] = "detached"
            open.span.end()
        }
        for open in mutations {
            open.span.attributes["loft.outcome"] = "detached"
            open.span.end()
        }
    }

    /// Logs the events of another source beside the client's (such as LoftPostgres's
    /// `PostgresFleetLink.events`), each at the level `level` gives, with `source` in its metadata.
    ///
    /// ```swift
    /// telemetry.log(link.events, source: "fleet") { event in
    ///     if case .lost = event { .warning } else { .debug }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - events: the events to log.
    ///   - source: what they are (`loft.source` in the metadata).
    ///   - level: each event's level.
    public func log<Source: Publisher>(
        _ events: Source, source: String, level: @escaping @Sendable (Source.Output) -> Logger.Level
    ) where Source.Failure == Never, Source.Output: CustomStringConvertible {
        let logger = options.logger
        let subscription = events.sink { event in
            logger.log(level: level(event), "\(event.description)", metadata: ["loft.source": "\(source)"])
        }
        state.withLock { $0.subscriptions.append(subscription) }
    }

    // MARK: - Events

    /// Handles `event`; the clock is read only for the events that are timed (a cache hit reads none).
    private func handle(_ event: QueryCacheEvent) {
        switch event {
        case .added:
            changeEntries(by: 1)
        case .removed:
            changeEntries(by: -1)
        case .collected(let key):
            instruments.counter(.collections, key: label(key)).increment()
        case .evicted(let key, let reason):
            instruments.counter(.evictions, key: label(key), ["reason": reason.rawValue]).increment()
        case .overBudget(let used, let limit):
            options.logger.warning(
                "the entries in use exceed the memory budget; nothing more can be evicted",
                metadata: ["loft.used": "\(used)", "loft.limit": "\(limit)"])
        case .fetchStarted(let key, let reason):
            fetchStarted(key, reason, at: scheduler.now)
        case .fetchFinished(let key, let error):
            fetchFinished(key, error, at: scheduler.now)
        case .fetchRetrying(let key, let failureCount, let error):
            state.withLock { $0.fetches[key]?.failures = failureCount }
            instruments.counter(.retries, key: label(key)).increment()
            options.logger.debug(
                "fetch attempt failed; retrying",
                metadata: metadata(key, ["loft.failures": "\(failureCount)", "error": "\(error)"]))
        case .fetchPaused(let key):
            let now = scheduler.now
            state.withLock { $0.fetches[key]?.pausedSince = now }
            instruments.counter(.pauses, key: label(key)).increment()
        case .fetchContinued(let key):
            let now = scheduler.now
            state.withLock { state in
                guard let since = state.fetches[key]?.pausedSince else { return }
                state.fetches[key]?.paused += since.duration(to: now)
                state.fetches[key]?.pausedSince = nil
            }
        case .served(let key, let fromCache):
            instruments.reads(key: label(key), isHit: fromCache).increment()
        case .saved(let key):
            instruments.counter(.saves, key: label(key)).increment()
        case .restored(let key):
            instruments.counter(.restores, key: label(key)).increment()
        case .persistenceFailed(let key, let error):
            instruments.counter(.persistenceFailures, key: label(key)).increment()
            options.logger.error("persistence failed", metadata: metadata(key, ["error": "\(error)"]))
        case .changesMissed(let source):
            options.logger.warning(
                "changes of other clients may have been missed: every entry is stale",
                metadata: ["loft.source": "\(source)"])
        case .mutation(let event):
            mutation(event, at: scheduler.now)
        case .hostSignal(let signal):
            hostSignal(signal)
        case .updated:
            break
        }
    }

    /// Memory pressure is counted by level (its evictions by `evicted` with `memoryPressure`); a failed source
    /// is an error and the client's connectivity a notice, both logged.
    private func hostSignal(_ signal: HostSignalEvent) {
        switch signal {
        case .memoryPressure(let level, let evicted):
            instruments.counter(.memoryPressure, key: "host", ["level": level.rawValue]).increment()
            options.logger.warning(
                "memory pressure: entries nobody observes were dropped",
                metadata: ["loft.level": "\(level.rawValue)", "loft.evicted": "\(evicted)"])
        case .sourceFailed(let source, let error):
            options.logger.error(
                "a host signal source failed", metadata: ["loft.source": "\(source)", "error": "\(error)"])
        case .online(let isOnline):
            options.logger.notice("connectivity changed", metadata: ["loft.online": "\(isOnline)"])
        case .focused:
            break
        }
    }

    private func changeEntries(by delta: Int) {
        let entries = state.withLock { state in
            state.entries += delta
            return state.entries
        }
        instruments.entries.record(entries)
    }

    private func fetchStarted(_ key: QueryKey, _ reason: FetchReason, at now: SchedulerInstant) {
        let span = options.tracer.startAnySpan("loft.fetch", context: .topLevel, ofKind: .client)
        span.attributes["loft.key"] = label(key)
        span.attributes["loft.reason"] = reason.rawValue
        let replaced = state.withLock { state in
            state.fetches.updateValue(OpenFetch(span: span, reason: reason, startedAt: now), forKey: key)
        }
        // A fetch still open for the key was replaced (an explicit refetch cancels it).
        if let replaced { end(replaced, key, outcome: "replaced", error: nil, at: now) }
    }

    private func fetchFinished(_ key: QueryKey, _ error: (any Error)?, at now: SchedulerInstant) {
        guard let open = state.withLock({ $0.fetches.removeValue(forKey: key) }) else { return }
        let outcome: String =
            switch error {
            case nil: "success"
            case QueryError.cancelled?: "cancelled"
            default: "failure"
            }
        end(open, key, outcome: outcome, error: error, at: now)
        guard outcome == "failure", let error else { return }
        let attempts = open.failures + 1
        let metadata = metadata(
            key, ["loft.reason": "\(open.reason.rawValue)", "loft.attempts": "\(attempts)", "error": "\(error)"])
        if attempts > 1 {
            options.logger.error("fetch failed: retries exhausted", metadata: metadata)
        } else {
            options.logger.warning("fetch failed", metadata: metadata)
        }
    }

    /// Ends a fetch's span and records its count and duration.
    private func end(_ open: OpenFetch, _ key: QueryKey, outcome: String, error: (any Error)?, at now: SchedulerInstant)
    {
        let attempts = outcome == "failure" ? open.failures + 1 : open.failures + (outcome == "success" ? 1 : 0)
        open.span.attributes["loft.outcome"] = outcome
        open.span.attributes["loft.attempts"] = attempts
        open.span.attributes["loft.paused_seconds"] = open.pausedTime(at: now).secondsValue
        if outcome == "failure", let error {
            open.span.recordError(error)
            open.span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        }
        open.span.end()
        let dimensions = ["reason": open.reason.rawValue, "outcome": outcome]
        instruments.counter(.fetches, key: label(key), dimensions).increment()
        instruments.timer(.fetchDuration, key: label(key), dimensions).recordNanoseconds(
            open.startedAt.duration(to: now).nanoseconds)
    }

    private func mutation(_ event: MutationEvent, at now: SchedulerInstant) {
        let info = event.info
        let key = info.mutationKey.map(label) ?? "mutation"
        switch event {
        case .added:
            let span = options.tracer.startAnySpan("loft.mutation", context: .topLevel, ofKind: .client)
            span.attributes["loft.key"] = key
            if let scope = info.scope { span.attributes["loft.scope"] = scope }
            state.withLock { $0.mutations[info.id] = OpenMutation(span: span, startedAt: now) }
        case .updated, .removed:
            guard info.status == .success || info.status == .error || event.isRemoval,
                let open = state.withLock({ $0.mutations.removeValue(forKey: info.id) })
            else { return }
            let outcome = info.status == .success ? "success" : info.status == .error ? "failure" : "removed"
            open.span.attributes["loft.outcome"] = outcome
            open.span.attributes["loft.attempts"] = info.failureCount + (outcome == "success" ? 1 : 0)
            if let error = info.error {
                open.span.recordError(error)
                open.span.setStatus(SpanStatus(code: .error, message: "\(error)"))
                options.logger.warning("mutation failed", metadata: ["loft.key": "\(key)", "error": "\(error)"])
            }
            open.span.end()
            instruments.counter(.mutations, key: key, ["outcome": outcome]).increment()
            instruments.timer(.mutationDuration, key: key, ["outcome": outcome]).recordNanoseconds(
                open.startedAt.duration(to: now).nanoseconds)
        }
    }

    // MARK: - Helpers

    private func label(_ key: QueryKey) -> String {
        options.keyLabel.label(of: key)
    }

    private func metadata(_ key: QueryKey, _ more: [String: String] = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["loft.key": "\(label(key))"]
        for (name, value) in more { metadata[name] = "\(value)" }
        return metadata
    }
}

extension MutationEvent {
    fileprivate var isRemoval: Bool {
        if case .removed = self { true } else { false }
    }
}
