import Foundation
import Loft

/// What the page shows beyond the cache's present state: each key's recent fetches (reason, duration, outcome,
/// retries), the latest fetches of every key (the timeline), and the client's events as they happen, sent to
/// every open page. It listens to the client only while a page is open: with none, the client's events are
/// not even made.
final class DevtoolsRecorder: Sendable {
    /// One fetch, open or ended.
    struct FetchRecord: Codable, Sendable {
        let key: String
        let keyJSON: String
        let reason: String
        /// Seconds since 1970 on the client's clock.
        let startedAt: Double
        var duration: Double?
        /// `fetching`, `paused`, `success`, `failure`, `cancelled` or `replaced`.
        var outcome: String
        var retries: Int
        var error: String?
    }

    private struct State: Sendable {
        var open: [QueryKey: FetchRecord] = [:]
        var history: [QueryKey: [FetchRecord]] = [:]
        var timeline: [FetchRecord] = []
        var watchers: [UInt64: AsyncStream<String>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
        var subscription: Subscription?
        /// Entries evicted while the recorder listened.
        var evictions = 0
    }

    private let state = Locked(State())
    private let client: QueryClient
    private let historyPerKey: Int
    private let timelineLength: Int

    init(client: QueryClient, historyPerKey: Int, timelineLength: Int) {
        self.client = client
        self.historyPerKey = historyPerKey
        self.timelineLength = timelineLength
    }

    /// How many entries were evicted while a page was open.
    var evictions: Int {
        state.withLock { $0.evictions }
    }

    /// The events from now on, as JSON lines, until the stream ends; the recorder listens while one is open.
    func watch() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1_000))
        let (id, isFirst) = state.withLock { state -> (UInt64, Bool) in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            return (state.nextWatcher, state.watchers.count == 1 && state.subscription == nil)
        }
        if isFirst {
            let subscription = client.events.sink { [weak self] event in self?.handle(event) }
            let extra = state.withLock { state -> Subscription? in
                guard state.subscription == nil, !state.watchers.isEmpty else { return subscription }
                state.subscription = subscription
                return nil
            }
            extra?.cancel()
        }
        continuation.onTermination = { [weak self] _ in self?.stopWatching(id) }
        return stream
    }

    /// Whether a page is open (the recorder listens).
    var isListening: Bool {
        state.withLock { $0.subscription != nil }
    }

    /// The fetches of `key`, oldest first, the one under way last.
    func history(of key: QueryKey) -> [FetchRecord] {
        state.withLock { state in (state.history[key] ?? []) + (state.open[key].map { [$0] } ?? []) }
    }

    /// The latest fetches of every key, oldest first, those under way last.
    func timeline() -> [FetchRecord] {
        state.withLock { state in state.timeline + state.open.values.sorted { $0.startedAt < $1.startedAt } }
    }

    /// Ends every open page's stream and stops listening (the devtools are unmounted).
    func closeAll() {
        let (watchers, subscription) = state.withLock { state in
            defer {
                state.watchers = [:]
                state.subscription = nil
            }
            return (Array(state.watchers.values), state.subscription)
        }
        subscription?.cancel()
        for watcher in watchers { watcher.finish() }
    }

    private func stopWatching(_ id: UInt64) {
        let subscription = state.withLock { state -> Subscription? in
            state.watchers[id] = nil
            guard state.watchers.isEmpty else { return nil }
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
    }

    private func handle(_ event: QueryCacheEvent) {
        let now = Self.seconds(client.scheduler.now)
        let line = Self.line(event)
        let watchers = state.withLock { state -> [AsyncStream<String>.Continuation] in
            record(event, at: now, in: &state)
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield(line) }
    }

    private func record(_ event: QueryCacheEvent, at now: Double, in state: inout State) {
        switch event {
        case .fetchStarted(let key, let reason):
            if let replaced = state.open.removeValue(forKey: key) { close(replaced, key, "replaced", nil, now, &state) }
            state.open[key] = FetchRecord(
                key: key.description, keyJSON: Self.json(key), reason: reason.rawValue, startedAt: now,
                outcome: "fetching", retries: 0)
        case .fetchRetrying(let key, let failureCount, _):
            state.open[key]?.retries = failureCount
        case .fetchPaused(let key):
            state.open[key]?.outcome = "paused"
        case .fetchContinued(let key):
            state.open[key]?.outcome = "fetching"
        case .fetchFinished(let key, let error):
            guard let open = state.open.removeValue(forKey: key) else { return }
            let outcome =
                switch error {
                case nil: "success"
                case QueryError.cancelled?: "cancelled"
                default: "failure"
                }
            close(open, key, outcome, error.map { "\($0)" }, now, &state)
        case .removed(let key):
            state.history[key] = nil
        case .evicted:
            state.evictions += 1
        default:
            break
        }
    }

    private func close(
        _ record: FetchRecord, _ key: QueryKey, _ outcome: String, _ error: String?, _ now: Double,
        _ state: inout State
    ) {
        var record = record
        record.outcome = outcome
        record.duration = now - record.startedAt
        record.error = error
        state.history[key, default: []].append(record)
        if state.history[key, default: []].count > historyPerKey { state.history[key]?.removeFirst() }
        state.timeline.append(record)
        if state.timeline.count > timelineLength { state.timeline.removeFirst(state.timeline.count - timelineLength) }
    }

    /// An event as the page reads it: its kind, its key (text and JSON) and its one-line description.
    static func line(_ event: QueryCacheEvent) -> String {
        struct Line: Encodable {
            let type: String
            let key: String
            let keyJSON: String
            let text: String
        }
        let text = event.description
        let type = String(text.prefix { $0 != " " })
        let line = Line(type: type, key: event.key.description, keyJSON: json(event.key), text: text)
        return (try? JSONEncoder().encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A key's JSON, by which the page names it back.
    static func json(_ key: QueryKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(key)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func seconds(_ instant: SchedulerInstant) -> Double {
        Double(instant.nanosecondsSinceEpoch) / 1e9
    }
}
