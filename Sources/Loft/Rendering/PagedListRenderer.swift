/// Turns a paged list (`InfiniteQuery` or `PaginatedQuery`) into text: one line per item, then a footer that
/// says whether more is loading, can be loaded, failed to load, or the list ended.
///
/// ```swift
/// struct PostsRenderer: PagedListRenderer {
///     func loadingView() -> String { "Loading…" }
///     func failureView(for error: any Error) -> String { "⚠️ \(error)" }
///     func itemView(for post: Post) -> String { "• \(post.title)" }
/// }
/// print(PostsRenderer().view(for: feed))
/// ```
public protocol PagedListRenderer<Item> {
    /// One element of the list.
    associatedtype Item

    /// The first page is loading (or nothing was asked yet).
    func loadingView() -> String
    /// The first page failed: nothing to show.
    func failureView(for error: any Error) -> String
    /// The list is empty. Default: "(empty)".
    func emptyView() -> String
    /// One item.
    func itemView(for item: Item) -> String
    /// The last line. Default: "⏳ loading more…", "↓ more", "— end of list —", "⚠️ failed to load more: … (retry)".
    func footerView(for footer: PageFooter) -> String
}

extension PagedListRenderer {
    /// "(empty)".
    public func emptyView() -> String {
        "(empty)"
    }

    /// A plain footer for each case.
    public func footerView(for footer: PageFooter) -> String {
        switch footer {
        case .loadingMore: "⏳ loading more…"
        case .hasMore: "↓ more"
        case .endOfList: "— end of list —"
        case .failed(let error): "⚠️ failed to load more: \(error) (retry)"
        }
    }

    /// The items (one line each) and the footer; the loading or failure view when there are no items yet.
    public func view(items: [Item]?, state: QueryState<some Sendable>, footer: PageFooter) -> String {
        guard let items else {
            if case .failed(let error) = state { return failureView(for: error) }
            return loadingView()
        }
        let lines = items.isEmpty ? [emptyView()] : items.map(itemView(for:))
        return (lines + [footerView(for: footer)]).joined(separator: "\n")
    }

    /// The view of an infinite query: the items of every page, in order, and the footer.
    public func view<PageParam, Page: Sequence>(for query: InfiniteQuery<PageParam, Page>) -> String
    where Page.Element == Item {
        let state = query.state
        return view(items: state.value.map { $0.pages.flatMap { $0 } }, state: state, footer: PageFooter(of: query))
    }

    /// The view of a paginated query: its accumulated items and the footer.
    public func view<Request, PageIdentifier, Response>(
        for query: PaginatedQuery<Request, PageIdentifier, Response>
    ) -> String where Response.Element == Item {
        let state = query.state
        return view(items: state.value.map { Array($0) }, state: state, footer: PageFooter(of: query))
    }
}
