/// Which pages a fetch of an infinite query loads; the entry shows it as its fetch meta while it runs.
package enum InfiniteFetchDirection: Sendable, Equatable {
    /// The first page when there is none, else every loaded page again, in order.
    case refetchAll
    /// The page after the last.
    case next
    /// The page before the first.
    case previous
}

/// How an infinite query turns one fetch into new `InfiniteData`: the page fetcher and the page-parameter
/// rules. Pure: it reads the current data it is given and returns the whole new data, which the cache entry
/// stores at once (an observer never sees half a refetch).
package struct InfinitePageLoader<PageParam: Sendable, Page: Sendable>: Sendable {
    package typealias ParamGetter = @Sendable (Page, [Page], PageParam, [PageParam]) -> PageParam?

    package let initialPageParam: PageParam
    package let nextParam: ParamGetter
    package let previousParam: ParamGetter?
    package let maxPages: Int?
    package let fetchPage: @Sendable (PageParam) async throws -> Page

    package func hasNextPage(_ data: InfiniteData<PageParam, Page>?) -> Bool {
        guard let data, let page = data.pages.last, let param = data.pageParams.last else { return false }
        return nextParam(page, data.pages, param, data.pageParams) != nil
    }

    package func hasPreviousPage(_ data: InfiniteData<PageParam, Page>?) -> Bool {
        guard let data, let previousParam, let page = data.pages.first, let param = data.pageParams.first else {
            return false
        }
        return previousParam(page, data.pages, param, data.pageParams) != nil
    }

    /// The data after fetching in `direction` from `current`. With no pages yet, every direction loads the
    /// first page; a direction with no more pages returns `current` unchanged.
    package func load(
        _ direction: InfiniteFetchDirection, from current: InfiniteData<PageParam, Page>?
    ) async throws -> InfiniteData<PageParam, Page> {
        guard let current, let firstParam = current.pageParams.first, let lastParam = current.pageParams.last,
            let firstPage = current.pages.first, let lastPage = current.pages.last
        else {
            let page = try await fetchPage(initialPageParam)
            return InfiniteData(pages: [page], pageParams: [initialPageParam])
        }
        switch direction {
        case .next:
            guard let param = nextParam(lastPage, current.pages, lastParam, current.pageParams) else { return current }
            return current.appending(try await fetchPage(param), param: param, maxPages: maxPages)
        case .previous:
            guard let param = previousParam?(firstPage, current.pages, firstParam, current.pageParams) else {
                return current
            }
            return current.prepending(try await fetchPage(param), param: param, maxPages: maxPages)
        case .refetchAll:
            var pages: [Page] = []
            var params: [PageParam] = []
            pages.reserveCapacity(current.pages.count)
            params.reserveCapacity(current.pages.count)
            var param = firstParam
            for index in current.pages.indices {
                if index > 0 {
                    // Later pages follow from the refetched ones: the list may have moved on the server.
                    guard let page = pages.last, let previous = params.last,
                        let next = nextParam(page, pages, previous, params)
                    else { break }
                    param = next
                }
                pages.append(try await fetchPage(param))
                params.append(param)
            }
            return InfiniteData(pages: pages, pageParams: params)
        }
    }
}
