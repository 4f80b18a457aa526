import Loft

/// A demo feed of 7 pages (0 to 6) of two posts each, served in-process after a short delay on `scheduler`.
private func demoFeedPage(_ page: Int, scheduler: any Scheduler) async throws -> [String] {
    try await scheduler.wait(for: .milliseconds(20))
    guard (0...6).contains(page) else { return [] }
    return ["post \(page).1", "post \(page).2"]
}

/// Renders a feed on one line: the posts, then the footer.
private struct FeedRenderer: PagedListRenderer {
    func loadingView() -> String { "⏳ loading the feed…" }
    func failureView(for error: any Error) -> String { "⚠️  \(error)" }
    func itemView(for post: String) -> String { post }
}

let pagesStep = TourStep(title: "Pages: an infinite feed both ways, and numbered pages") { tour in
    // Opened in the middle (page 3), it grows both ways and keeps at most 3 pages.
    let feed = InfiniteQuery<Int, [String]>(
        key: "feed", initialPageParam: 3,
        getNextPageParam: { lastPage, _, lastParam, _ in lastPage.isEmpty ? nil : lastParam + 1 },
        getPreviousPageParam: { _, _, firstParam, _ in firstParam > 0 ? firstParam - 1 : nil },
        maxPages: 3, behavior: .startImmediately(()), client: tour.client,
        fetcher: { [scheduler = tour.client.scheduler] in try await demoFeedPage($0, scheduler: scheduler) })
    func line(_ action: String) async -> String {
        await tour.client.waitUntilIdle()
        let pages = feed.state.value?.pageParams ?? []
        let view = FeedRenderer().view(for: feed).split(separator: "\n").joined(separator: " · ")
        return "\(action.padding(toLength: 14, withPad: " ", startingAt: 0)) pages \(pages): \(view)"
    }
    var lines = [await line("first page")]
    // Each load returns at once; awaiting what it returns waits for the page.
    _ = await feed.fetchNextPage().result
    lines.append(await line("next page"))
    _ = await feed.fetchPreviousPage().result
    lines.append(await line("previous page"))
    _ = await feed.fetchNextPage().result
    lines.append(await line("next (max 3)"))
    while feed.hasNextPage {
        _ = await feed.fetchNextPage().result
    }
    lines.append(await line("to the end"))

    // Users two by two, each page cached under its own key.
    let users = PaginatedQuery<Void, LimitOffsetPaginatedQueryKey, [User]>(
        key: "users-by-page", firstPage: LimitOffsetPaginatedQueryKey(limit: 2), behavior: .startImmediately(()),
        client: tour.client
    ) { _, page in Array(try await tour.api.users().dropFirst(page.offset).prefix(page.limit)) }
    await tour.client.waitUntilIdle()
    let items = (try? await users.fetchNextPage().value) ?? []
    let names = items.isEmpty ? "-" : items.map(\.name).joined(separator: ", ")
    lines.append("paginated, 2 per page: \(names) (\(users.hasNextPage ? "more" : "end of list"))")
    return lines
}
