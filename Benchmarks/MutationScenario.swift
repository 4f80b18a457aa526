import Loft

/// (o) A mutation round trip with an immediate fetcher: `mutate` through the public API, with a subscriber to
/// its state that sees every call succeed, against what an app does without Loft: run the same fetcher in a
/// task of its own and await it. A second row sets the same calls beside the fetcher in an immediate task
/// (`Task.immediate`, as `mutate` starts its call), for context: what Loft's own work costs.
///
/// A task awaited at once costs about 0.4 µs when the thread that awaits it also runs it, and 0.7–1.4 µs when
/// the pool's other thread is woken for it; the pool passes from one mode to the other on its own. The call
/// starts its task on the awaiting thread and has no such modes. Hence, so that the best sample of each side
/// stands for the side and not for a passing mode of one of them:
/// - both sides are warmed up before they are timed: the fast mode is most frequent in a fresh process's
///   first few thousand tasks;
/// - a sample is 20,000 calls, in a quick run too (`main.swift`): a sample of 2,000 fits inside a stretch of
///   the fast mode more often, and the best of two such samples would compare the baseline's luckiest stretch
///   with the call's typical one. A stretch of the fast mode can still outlast a sample of 20,000.
func mutationRoundTripScenario(_ settings: Settings) -> [Row] {
    let calls = settings.iterations(20_000)
    let fetcher: @Sendable (Int) async throws -> Int = { $0 + 1 }
    let expected = calls * (calls + 1) / 2
    /// Times `calls` awaited mutations with a subscribed state, checking what the caller and the subscriber see.
    func timeMutations() -> Double {
        let client = QueryClient()
        let mutation = Mutation<Int, Int>(client: client, fetcher: fetcher)
        let succeeded = SharedCounter()
        let subscription = mutation.statePublisher.sink { state in
            if state.value != nil { succeeded.increment() }
        }
        let elapsed = runBlocking {
            let start = ContinuousClock.now
            var sum = 0
            for call in 0..<calls { sum += (try? await mutation.mutate(call)) ?? -1 }
            precondition(sum == expected, "every call returns the fetcher's response")
            return ContinuousClock.now - start
        }
        precondition(succeeded.value >= calls, "the subscriber sees every call succeed")
        subscription.cancel()
        return Double(elapsed.nanoseconds) / Double(calls)
    }
    /// Times `calls` fetcher calls, each in a task of its own, awaited.
    func timeTasks(immediately: Bool) -> Double {
        let elapsed = runBlocking {
            let start = ContinuousClock.now
            var sum = 0
            for call in 0..<calls {
                if immediately, #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
                    sum += (try? await Task.immediate { try await fetcher(call) }.value) ?? -1
                } else {
                    sum += (try? await Task { try await fetcher(call) }.value) ?? -1
                }
            }
            precondition(sum == expected)
            return ContinuousClock.now - start
        }
        return Double(elapsed.nanoseconds) / Double(calls)
    }
    // The warm-up: 20,000 calls of each side, whatever the run's size (under 0.1 s).
    for _ in 0..<max(1, 20_000 / calls) {
        _ = timeMutations()
        _ = timeTasks(immediately: false)
        _ = timeTasks(immediately: true)
    }
    var (best, baseline, immediate) = (Double.infinity, Double.infinity, Double.infinity)
    // Taking turns, so all three see the same moments of the machine.
    for _ in 0..<settings.repetitions {
        best = min(best, timeMutations())
        baseline = min(baseline, timeTasks(immediately: false))
        immediate = min(immediate, timeTasks(immediately: true))
    }
    return [
        Row(
            scenario: "(o) mutation round trip, per call", baselineName: "the fetcher in a task, awaited",
            nanoseconds: best, baselineNanoseconds: baseline, target: .ratio(3)),
        Row(
            scenario: "(o) … the same, for context", baselineName: "the fetcher in an immediate task, awaited",
            nanoseconds: best, baselineNanoseconds: immediate, target: .none),
    ]
}

/// (p) 1,000 mutations submitted at once in one scope (they run one after another): the time per mutation,
/// against the time per mutation of 10 in one scope measured in the same run. Linear: within 1.5×.
///
/// Both sides time 1,000 calls per sample (one line of 1,000, or 100 lines of 10 one after another) and take
/// the best of as many samples, taking turns: a sample of 10 calls alone lasts a few wake-ups of the pool, and
/// the best of many such samples compared the luckiest short stretch with a typical long one. Both sides are
/// warmed up first, and a quick run takes the full run's fourteen samples (see (o)).
func mutationScopeScenario(_ settings: Settings) -> Row {
    func perMutation(lineLength: Int, lines: Int) -> Double {
        let elapsed = submitScopeLines(lineLength: lineLength, lines: lines)
        return Double(elapsed.nanoseconds) / Double(lineLength * lines)
    }
    let rounds = settings.repetitions * 2
    // The warm-up, untimed, as for (o): 5,000 calls of each side, so that neither is timed in a fresh
    // process's first few thousand tasks.
    for _ in 0..<5 {
        _ = perMutation(lineLength: 1_000, lines: 1)
        _ = perMutation(lineLength: 10, lines: 100)
    }
    var large = Double.infinity
    var small = Double.infinity
    for _ in 0..<rounds {
        large = min(large, perMutation(lineLength: 1_000, lines: 1))
        small = min(small, perMutation(lineLength: 10, lines: 100))
    }
    return Row(
        scenario: "(p) 1,000 mutations in one scope, per mutation", baselineName: "10 in one scope, per mutation",
        nanoseconds: large, baselineNanoseconds: small, target: .ratio(1.5))
}

/// (p)'s work: `lines` lines of `lineLength` calls, each line on a mutation and scope of its own, all but the
/// last call of a line submitted with `execute` and the last awaited (the scope runs them in order, so it
/// settles last). Returns the time the calls took (the mutations are made before); checks that every call
/// succeeded.
func submitScopeLines(lineLength: Int, lines: Int) -> Duration {
    let client = QueryClient()
    let saves = (0..<lines).map { line in
        Mutation<Int, Int>(client: client, options: MutationOptions(scope: "document \(line)")) { $0 }
    }
    let elapsed = runBlocking {
        let start = ContinuousClock.now
        for save in saves {
            for version in 0..<(lineLength - 1) { save.execute(with: version) }
            let last = (try? await save.mutate(lineLength - 1)) ?? -1
            precondition(last == lineLength - 1)
        }
        return ContinuousClock.now - start
    }
    precondition(client.mutations().allSatisfy { $0.status == .success }, "every call succeeded")
    return elapsed
}
