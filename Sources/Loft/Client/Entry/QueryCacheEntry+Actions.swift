/// The entry's actions performed once its lock is released, and the task that runs a fetch.
extension QueryCacheEntry {
    /// Performs `actions` in order with no lock held, answering the waiters of its `resume` actions with
    /// `continuations` (taken in the same order by `takeContinuations`).
    func perform(
        _ actions: [EntryAction], resuming continuations: [Answer?]
    ) {
        var answers = continuations.makeIterator()
        for action in actions {
            switch action {
            case .resume(let waiters, let result):
                // Taken in the order of the waiters; none at all when the entry had no continuation.
                for _ in waiters {
                    if let answer = answers.next() { answer?.give(result) }
                }
            case .startFetch(let id, let request):
                // In a focus or reconnect pass, the tasks are made once the pass has sent its events.
                if FetchStartBatch.current?.keep(self, fetch: id, request) != true { startTask(id, request) }
            case .cancelTask(let task):
                task.cancel()
            case .cancelRetry(let retryer):
                retryer.cancelRetry()
            case .continueRetry(let retryer):
                retryer.continueRetry()
            case .checkStore(let request, let intent, let observer, let waiter, let persistence):
                checkStore(request, intent, observer, waiter, persistence)
            case .restore(let persistence):
                restore(from: persistence)
            case .loadFallback(let id, let error, let failureCount, let persistence):
                loadFallback(fetch: id, error, failureCount: failureCount, persistence)
            case .save:
                break  // queued on the writer while the lock was held (`queueSaves`)
            case .setAlarm(let instant):
                context.timers.setAlarm(for: self, at: instant)
            case .refetch(let refetch, let reason):
                refetch.call(reason)
            case .emit(let event):
                context.emit(event)
            case .notifyRemoved(let observers):
                for entryRemoved in observers { entryRemoved.call(()) }
            case .refetchWithRequest(let observers):
                for refetch in observers { refetch.call(()) }
            case .collect:
                context.collect(self)
            case .evict(let reason):
                context.evict(self, reason)
            }
        }
    }

    /// Makes the task of the fetch `id` (its `Retryer` and its `FetchRun`) and tells the machine.
    func startTask(_ id: UInt64, _ request: FetchRequest) {
        let retryer = Retryer(
            policy: request.retry, networkMode: request.networkMode, pausesWhenUnfocused: true, context: context)
        let task = context.tracker.spawn(FetchRun(entry: self, id: id, request: request, retryer: retryer))
        send(.taskCreated(fetch: id, task, retryer))
    }

    fileprivate func run(_ id: UInt64, _ request: FetchRequest, _ retryer: Retryer) async {
        // A strong capture: the closure lives no longer than this run, whose task holds the entry anyway.
        let outcome = await retryer.run(
            reporting: { [self] progress in
                switch progress {
                case .retrying(let failureCount, let error):
                    send(.attemptFailed(fetch: id, failureCount: failureCount, error: error))
                case .paused:
                    send(.fetchPaused(fetch: id))
                case .continued:
                    send(.fetchContinued(fetch: id))
                }
            }) { try await request.fetcher.fetchErased() }
        switch outcome {
        case .success(let value):
            send(.fetchSucceeded(fetch: id, value, request.structuralSharing ? compare(value) : nil))
        case .failure(let error, let failureCount):
            send(.fetchFailed(fetch: id, error, failureCount: failureCount))
        case .cancelled:
            break
        }
    }
}

/// A fetch's task: what it runs, held by value (a work value makes no closure of its own).
private struct FetchRun: TrackedWork {
    let entry: QueryCacheEntry
    let id: UInt64
    let request: FetchRequest
    let retryer: Retryer

    func run() async {
        await entry.run(id, request, retryer)
    }
}

/// The entry's alarms ring the entry itself: the machine looks at its deadlines (a removed entry takes no event).
extension QueryCacheEntry: AlarmOwner {
    package func alarmRang(_ instant: SchedulerInstant) {
        send(.alarmRang(instant))
    }
}
