/// The spellings of a query without a request.
extension Query where Request == Void {
    /// Fetches now; on a key that has data, a fetch in flight is cancelled and a new one started.
    ///
    /// - Returns: the fetch started, whose `value` is its result (see `StartedFetch`).
    @discardableResult
    public func refetch() -> StartedFetch<Response> {
        refetch(request: ())
    }

    /// The response: the cached value when fresh, else the result of a fetch.
    ///
    /// - Throws: the fetcher's error once retries are exhausted, or `QueryError.cancelled`.
    public func value() async throws -> Response {
        try await value(for: ())
    }
}
