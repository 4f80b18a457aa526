/// What a call that starts a fetch returns (`refetch(request:)`, `fetchNextPage()`, `fetchPreviousPage()`):
/// the call itself returns at once, in an `async` function as anywhere else, and a caller who wants the
/// result awaits it here.
///
/// ```swift
/// feed.fetchNextPage()                               // starts the load, returns at once
/// let pages = try await feed.fetchNextPage().value   // waits for the page and returns every page
/// ```
///
/// **Behavior**
/// - `value` is the data the fetch wrote (before `select`), or, when the call needed no fetch (fresh data, no
///   next page, a load already done), the data the key holds; it throws the fetch's error once retries are
///   exhausted, `QueryError.cancelled` when the fetch was cancelled, and `QueryError.disabled` when nothing was
///   fetched and there is no data.
/// - A fetch paused for the network is awaited until it runs and settles.
/// - Awaiting it any number of times, or never, changes nothing: the fetch runs for the cache either way.
/// - Cancelling the awaiting task throws `CancellationError` there; the fetch goes on.
public struct StartedFetch<Value: Sendable>: Sendable {
    private let answer: @Sendable () async -> Result<Value, any Error>

    private init(answer: @escaping @Sendable () async -> Result<Value, any Error>) {
        self.answer = answer
    }

    /// The answer of an entry's waiter, cast to `Value` (a removed entry reads as a cancelled fetch).
    init(_ outcome: FetchOutcome, key: QueryKey) {
        answer = {
            switch await outcome.result {
            case .success(let value):
                Result { try cast(value, to: Value.self, key: key) }
            case .failure(is EntryRemovedError):
                .failure(QueryError.cancelled(key: key))
            case .failure(let error):
                .failure(error)
            }
        }
    }

    /// A call whose answer is known at once.
    init(_ result: Result<Value, any Error>) {
        answer = { result }
    }

    /// The same fetch, its value shown as `transform` makes it (a paginated list's items after a page).
    func map<Other: Sendable>(_ transform: @escaping @Sendable (Value) -> Other) -> StartedFetch<Other> {
        let answer = answer
        return StartedFetch<Other>(answer: { await answer().map(transform) })
    }

    /// The value the fetch gave (or the data held, when none was needed).
    ///
    /// - Throws: the fetcher's last error once retries are exhausted; `QueryError.cancelled` when the fetch was
    ///   cancelled; `QueryError.disabled` when nothing was fetched and there is no data; `CancellationError`
    ///   when the awaiting task is cancelled.
    public var value: Value {
        get async throws { try await answer().get() }
    }

    /// The outcome, success or failure, without throwing.
    public var result: Result<Value, any Error> {
        get async { await answer() }
    }
}
