import Loft

let scopeOrderStep = TourStep(title: "Two saves in one scope finish in order, though the second server is faster") {
    tour in
    let log = Locked<[String]>([])
    let save = Mutation<Int, Int>(client: tour.client, options: MutationOptions(scope: "document")) { version in
        // The first save's server takes 300 ms, the second's 10 ms: without a scope, 2 would finish first.
        try await Task.sleep(for: .milliseconds(version == 1 ? 300 : 10))
        log.withLock { $0.append("save \(version) done") }
        return version
    }
    async let first = save.mutate(1)
    async let second = save.mutate(2)
    _ = try await (first, second)
    return log.withLock { $0 } + ["one scope, one save at a time, in submission order"]
}
