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
    /// > Important: it waits for an event: a condition that turns true without one (a task reaching a point
    /// > where it waits) is awaited with `waitUntilIdle()` instead, and one that waits on the clock needs the
    /// > `TestScheduler` advanced. Give such a test a `.timeLimit`, so that a condition that never holds fails it.
    public func until(_ condition: () -> Bool) async {
        if condition() { return }
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let subscription = events.sink { _ in continuation.yield() }
        defer {
            subscription.cancel()
            continuation.finish()
        }
        // Checked again once subscribed: an event between the two checks is not missed.
        if condition() { return }
        for await _ in changes where condition() { return }
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
