/// A query whose value is the elements of a stream so far (chat messages, log lines, server-sent events): each
/// element is appended to the cache entry of `key` as it arrives, and observers see the list grow.
///
/// ```swift
/// let log = StreamedQuery<String>(key: "build-log", behavior: .startImmediately(())) {
///     api.logLines()  // any AsyncSequence of String
/// }
/// let subscription = log.statePublisher.sink { state in print(state.value?.last ?? "") }
/// log.refetch()  // restarts the stream
/// ```
///
/// **Behavior**
/// - `.loading` until the first element; then `.succeed(elements)` after each element, in order. The fetch
///   stays in flight (`isFetching`) while the stream is open, and ends when the stream finishes.
/// - `refetch()` cancels the running stream and starts a new one; the old elements stay visible until the
///   new stream's first element replaces them.
/// - A stream that throws keeps the elements received so far; the error is in `snapshot`, and the query's
///   retry policy restarts the stream.
/// - It is a query of its key: consumers, invalidation (which opens a finished stream again while observed), garbage
///   collection and persistence apply.
public final class StreamedQuery<Element: Sendable>: Sendable {
    private let query: Query<Void, [Element]>

    /// Makes a streamed query over an `AsyncSequence`.
    ///
    /// - Parameters:
    ///   - key: the key whose entry accumulates the elements.
    ///   - behavior: `.startImmediately(())` opens the stream at once; `.startWhenRequested` (default) waits
    ///     for `refetch()`.
    ///   - options: retries (which restart the stream), `select`… Default: the client's.
    ///   - client: the cache. Default `QueryClient.shared`.
    ///   - stream: opens a new stream; called again by each refetch and retry.
    public init<Stream: AsyncSequence & Sendable>(
        key: QueryKey,
        behavior: QueryBehavior<Void> = .startWhenRequested,
        options: QueryOptions<[Element]> = QueryOptions(),
        client: QueryClient = .shared,
        stream: @escaping @Sendable () -> Stream
    ) where Stream.Element == Element {
        query = Query(key: key, behavior: behavior, options: options, client: client) {
            var elements: [Element] = []
            for try await element in stream() {
                // A replaced stream must not write over its successor.
                try Task.checkCancellation()
                elements.append(element)
                client.writeData(elements, for: key)
            }
            return elements
        }
    }

    /// Makes a streamed query over a publisher: each value is an element; its failure ends the stream with
    /// that error.
    public convenience init<Source: Publisher>(
        key: QueryKey,
        behavior: QueryBehavior<Void> = .startWhenRequested,
        options: QueryOptions<[Element]> = QueryOptions(),
        client: QueryClient = .shared,
        publisher: @escaping @Sendable () -> Source
    ) where Source.Output == Element {
        self.init(key: key, behavior: behavior, options: options, client: client) {
            publisher().mapError { $0 as any Error }.values
        }
    }

    /// The key of the stream's entry.
    public var key: QueryKey {
        query.key
    }

    /// Loading until the first element, then the elements so far.
    public var state: QueryState<[Element]> {
        query.state
    }

    /// The full picture: elements, error, statuses (`isFetching` while the stream is open).
    public var snapshot: QuerySnapshot<[Element]> {
        query.snapshot
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<[Element]>, Never> {
        query.statePublisher
    }

    /// The elements so far after each new element, starting with the current ones if there are.
    public var valuePublisher: AnyPublisher<[Element], Never> {
        query.valuePublisher
    }

    /// Every change of `snapshot`, starting with the current one.
    public var snapshotPublisher: AnyPublisher<QuerySnapshot<[Element]>, Never> {
        query.snapshotPublisher
    }

    /// Cancels the running stream and opens a new one. Returns at once; await the result's `value` for the
    /// elements once the new stream has finished (it throws the stream's error, or `QueryError.cancelled` when
    /// the stream is closed first).
    @discardableResult
    public func refetch() -> StartedFetch<[Element]> {
        stop()
        return query.refetch()
    }

    /// Marks the elements stale and, as `Query.invalidate()` refetches, opens the stream again; an open stream
    /// is joined (as invalidation joins a fetch in flight), not restarted: `refetch()` restarts it.
    public func invalidate() {
        query.invalidate()
    }

    /// Closes the running stream; the elements received so far stay.
    public func cancel() {
        stop()
    }

    /// Cancels the stream in flight, keeping its elements: they were written during the fetch, and a cancel
    /// keeps data written meanwhile.
    private func stop() {
        query.cancel()
    }
}

extension StreamedQuery: ObservableQueryState {}
