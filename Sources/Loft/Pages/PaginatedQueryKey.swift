/// The identifier of one page of a `PaginatedQuery`: how to name it in a cache key, which page follows, and
/// when a page is the last one.
///
/// ```swift
/// struct CursorPage: PaginatedQueryKey {
///     var cursor: Int
///     func next() -> CursorPage { CursorPage(cursor: cursor + 50) }
///     var keyPart: QueryKey.Part { .int(cursor) }
/// }
/// ```
public protocol PaginatedQueryKey: Sendable, Hashable {
    /// The page after this one.
    func next() -> Self
    /// This page as the last part of its cache key (each page is cached on its own).
    var keyPart: QueryKey.Part { get }
    /// Whether a page of `itemCount` items is the last one. Default: when it is empty.
    func isLastPage(itemCount: Int) -> Bool
}

extension PaginatedQueryKey {
    /// A page is the last when it is empty.
    public func isLastPage(itemCount: Int) -> Bool {
        itemCount == 0
    }
}

/// Pages numbered 1, 2, 3… (or from any start).
public struct NumericPaginatedQueryKey: PaginatedQueryKey, Codable {
    /// The number of this page.
    public var current: Int

    /// The page numbered `current`.
    public init(current: Int) {
        self.current = current
    }

    /// The page numbered one more.
    public func next() -> NumericPaginatedQueryKey {
        NumericPaginatedQueryKey(current: current + 1)
    }

    /// The page number.
    public var keyPart: QueryKey.Part {
        .int(current)
    }
}

/// Pages of `limit` items from `offset`; a page shorter than `limit` is the last.
public struct LimitOffsetPaginatedQueryKey: PaginatedQueryKey, Codable {
    /// How many items a page holds.
    public var limit: Int
    /// The index of the page's first item.
    public var offset: Int

    /// The page of `limit` items from `offset`.
    public init(limit: Int, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }

    /// The following `limit` items.
    public func next() -> LimitOffsetPaginatedQueryKey {
        LimitOffsetPaginatedQueryKey(limit: limit, offset: offset + limit)
    }

    /// `{limit, offset}`.
    public var keyPart: QueryKey.Part {
        .dictionary(["limit": .int(limit), "offset": .int(offset)])
    }

    /// A short page is the last.
    public func isLastPage(itemCount: Int) -> Bool {
        itemCount < limit
    }
}
