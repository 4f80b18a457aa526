/// What the end of a paged list says: more is loading, more can be loaded, the list ended, or loading more
/// failed (and can be retried).
public enum PageFooter: Sendable {
    /// The next page is loading.
    case loadingMore
    /// There is a next page, not asked for yet.
    case hasMore
    /// There is no next page.
    case endOfList
    /// The next page failed to load; fetching it again retries.
    case failed(any Error)

    /// The footer of an infinite query now.
    public init<PageParam, Page>(of query: InfiniteQuery<PageParam, Page>) {
        let snapshot = query.snapshot
        if query.isFetchingNextPage {
            self = .loadingMore
        } else if snapshot.data != nil, let error = snapshot.error {
            self = .failed(error)
        } else {
            self = query.hasNextPage ? .hasMore : .endOfList
        }
    }

    /// The footer of a paginated query now.
    public init<Request, PageIdentifier, Response>(of query: PaginatedQuery<Request, PageIdentifier, Response>) {
        if query.isFetchingNextPage {
            self = .loadingMore
        } else if query.state.value != nil, let error = query.error {
            self = .failed(error)
        } else {
            self = query.hasNextPage ? .hasMore : .endOfList
        }
    }
}
