import Testing

extension QueryClient {
    /// Returns once `condition` holds: at once when it holds now, else at the first of the client's cache or
    /// mutation events after which it holds (a fetch started or finished, data written, a call added, paused,
    /// continued or settled). It never sleeps nor yields in a loop.
    ///
    /// ```swift
    /// mutation.execute(with: "milk")
    /// await client.until { client.mutations().last?.isPaused == true }
    /// ```
    ///
    /// A condition that still does not hold after `timeout` of wall-clock time (default 30 seconds) records a
    /// test failure (an `Issue`, at the caller's line) and returns false: a rule that broke fails its test
    /// instead of hanging the suite, even in a test with no `.timeLimit`.
    ///
    /// > Important: it waits for an event: a condition that turns true without one (a task reaching a point
    /// > where it waits) is awaited with `waitUntilIdle()` instead, and one that waits on the clock needs the
    /// > `TestScheduler` advanced.
    ///
    /// - Returns: whether the condition held (false only when the timeout passed first).
    @discardableResult
    public func until(
        timeout: Duration = .seconds(30), fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column,
        _ condition: () -> Bool
    ) async -> Bool {
        if condition() { return true }
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let subscription = events.sink { _ in continuation.yield() }
        // The deadline ends the stream: the loop below then checks the condition a last time.
        let deadline = Task {
            try await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer {
            deadline.cancel()
            subscription.cancel()
            continuation.finish()
        }
        // Checked again once subscribed: an event between the two checks is not missed.
        if condition() { return true }
        for await _ in changes where condition() { return true }
        if condition() { return true }
        Issue.record(
            "the condition did not hold within \(timeout)",
            sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Returns once the entry of `key` has `status` (a query that fetched, failed or was reset), by `until(_:)`.
    public func until(_ key: QueryKey, hasStatus status: QueryStatus) async {
        await until { existingEntry(for: key)?.snapshot.status == status }
    }

    /// Returns once no mutation call is pending, by `until(_:)`.
    public func untilMutationsSettled() async {
        await until { isMutating() == 0 }
    }
}
