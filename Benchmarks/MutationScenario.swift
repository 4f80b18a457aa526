import Loft

/// (o) A mutation round trip with an immediate fetcher: `mutate` through the public API, with a subscriber to
/// its state that sees every call succeed, against what an app does without Loft: run the same fetcher in a
/// task of its own and await it.
func mutationRoundTripScenario(_ settings: Settings) -> Row {
    let calls = settings.iterations(20_000)
    let fetcher: @Sendable (Int) async throws -> Int = { $0 + 1 }
    var best = Double.infinity
    var baseline = Double.infinity
    // Taking turns, so both see the same moments of the machine.
    for _ in 0..<settings.repetitions {
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
            precondition(sum == calls * (calls + 1) / 2, "every call returns the fetcher's response")
            return ContinuousClock.now - start
        }
        precondition(succeeded.value >= calls, "the subscriber sees every call succeed")
        subscription.cancel()
        best = min(best, Double(elapsed.nanoseconds) / Double(calls))

        let direct = runBlocking {
            let start = ContinuousClock.now
            var sum = 0
            for call in 0..<calls { sum += (try? await Task { try await fetcher(call) }.value) ?? -1 }
            precondition(sum == calls * (calls + 1) / 2)
            return ContinuousClock.now - start
        }
        baseline = min(baseline, Double(direct.nanoseconds) / Double(calls))
    }
    return Row(
        scenario: "(o) mutation round trip, per call", baselineName: "the fetcher in a task, awaited",
        nanoseconds: best, baselineNanoseconds: baseline, target: .ratio(3))
}

/// (p) 1,000 mutations submitted at once in one scope (they run one after another): the time per mutation,
/// against the time per mutation of 10 in one scope measured in the same run. Linear: within 1.5×.
///
/// Both sides time 1,000 calls per sample (one line of 1,000, or 100 lines of 10 one after another) and take
/// the best of as many samples, taking turns: a sample of 10 calls alone lasts a few wake-ups of the pool, and
/// the best of many such samples compared the luckiest short stretch with a typical long one.
func mutationScopeScenario(_ settings: Settings) -> Row {
    func perMutation(lineLength: Int, lines: Int) -> Double {
        let elapsed = submitScopeLines(lineLength: lineLength, lines: lines)
        return Double(elapsed.nanoseconds) / Double(lineLength * lines)
    }
    let rounds = settings.repetitions * 2
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
