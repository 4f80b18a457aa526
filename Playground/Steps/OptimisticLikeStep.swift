import Loft

/// The server of the "like" button: it refuses every like.
private struct LikeRefused: Error, CustomStringConvertible {
    var description: String { "HTTP 503, try again later" }
}

let optimisticLikeStep = TourStep(title: "An optimistic like: shown at once, rolled back when the server refuses") {
    tour in
    let key: QueryKey = ["likes", "loft"]
    tour.client.setQueryData(41, for: key)
    let seenDuringRequest = Locked<Int?>(nil)
    let like = Mutation<String, Int>(
        client: tour.client,
        options: MutationOptions(
            onMutate: { _ in
                let before = try tour.client.getQueryData(key, as: Int.self)
                tour.client.setQueryData((before ?? 0) + 1, for: key)  // the optimistic update
                return before  // the context, typed: what to roll back to
            },
            onError: { _, _, before in
                if let before = before ?? nil { tour.client.setQueryData(before, for: key) }
            })
    ) { _ in
        seenDuringRequest.withLock { $0 = try? tour.client.getQueryData(key, as: Int.self) }
        throw LikeRefused()
    }
    var lines = ["likes before: \(try tour.client.getQueryData(key, as: Int.self) ?? 0)"]
    do {
        try await like.mutate("loft")
    } catch {
        lines.append("the like failed: \(error)")
    }
    lines.append("likes while the request ran (optimistic): \(seenDuringRequest.withLock { $0 } ?? 0)")
    lines.append("likes after the rollback: \(try tour.client.getQueryData(key, as: Int.self) ?? 0)")
    return lines
}
