/// The pages of an infinite query and the parameter each was fetched with, always aligned:
/// `pageParams[i]` fetched `pages[i]`.
public struct InfiniteData<PageParam: Sendable, Page: Sendable>: Sendable {
    /// The pages, first to last.
    public private(set) var pages: [Page]
    /// The parameter of each page.
    public private(set) var pageParams: [PageParam]

    /// Makes data of aligned pages and parameters.
    ///
    /// > Important: `pages` and `pageParams` must have the same count; the extra elements of the longer one
    /// > are dropped.
    public init(pages: [Page], pageParams: [PageParam]) {
        let count = min(pages.count, pageParams.count)
        self.pages = Array(pages.prefix(count))
        self.pageParams = Array(pageParams.prefix(count))
    }

    /// No pages.
    public init() {
        pages = []
        pageParams = []
    }

    /// This data with `page` added at the end; with `maxPages`, the first pages are dropped to keep it.
    public func appending(_ page: Page, param: PageParam, maxPages: Int? = nil) -> InfiniteData {
        var data = self
        data.pages.append(page)
        data.pageParams.append(param)
        if let maxPages, maxPages > 0, data.pages.count > maxPages {
            let extra = data.pages.count - maxPages
            data.pages.removeFirst(extra)
            data.pageParams.removeFirst(extra)
        }
        return data
    }

    /// This data with `page` added at the start; with `maxPages`, the last pages are dropped to keep it.
    public func prepending(_ page: Page, param: PageParam, maxPages: Int? = nil) -> InfiniteData {
        var data = self
        data.pages.insert(page, at: 0)
        data.pageParams.insert(param, at: 0)
        if let maxPages, maxPages > 0, data.pages.count > maxPages {
            let extra = data.pages.count - maxPages
            data.pages.removeLast(extra)
            data.pageParams.removeLast(extra)
        }
        return data
    }
}

extension InfiniteData: Equatable where PageParam: Equatable, Page: Equatable {}
extension InfiniteData: Hashable where PageParam: Hashable, Page: Hashable {}

extension InfiniteData: Codable where PageParam: Codable, Page: Codable {
    private enum CodingKeys: String, CodingKey {
        case pages, pageParams
    }

    /// Decodes the pages and their parameters.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when their counts differ.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pages = try container.decode([Page].self, forKey: .pages)
        let pageParams = try container.decode([PageParam].self, forKey: .pageParams)
        guard pages.count == pageParams.count else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "pages and pageParams differ in count"))
        }
        self.init(pages: pages, pageParams: pageParams)
    }

    /// Encodes the pages and their parameters.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pages, forKey: .pages)
        try container.encode(pageParams, forKey: .pageParams)
    }
}
