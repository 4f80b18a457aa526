/// Renders a client's cache as an aligned text table: the terminal's devtools.
///
/// ```text
/// key        status   fetch     observers  age  freshness
/// users      success  idle      1          3s   stale
/// users/42   success  fetching  2          0s   fresh
/// items/7    success  idle      0          12s  inactive
/// ```
///
/// The columns, one row per cache entry, sorted by key:
/// - `key`: the entry's key, its parts joined by `/`.
/// - `status`: what data there is: `pending` (none yet), `success` (data), `error` (a failure and no data).
/// - `fetch`: what the network does for it: `idle`, `fetching`, or `paused` (waiting for the network).
/// - `observers`: the queries and consumers that observe the key now (an entry with none is collected
///   `gcTime` after the last one left).
/// - `age`: the time since its data was fetched or written (`-` without data).
/// - `freshness`: `fresh` or `stale` as the key's observers judge it: stale once one of its enabled
///   observers with a `staleTime` of its own (its queries, a consumer given one) finds it stale, or when it
///   was invalidated; a consumer without a `staleTime` judges as they do, so it never makes data stale.
///   `inactive` when nobody observes it (TanStack's devtools' word): its freshness is then the reader's to
///   judge, by the `staleTime` each `fetchQuery` gives, against its age. `-` without data.
///
/// Ages and freshness are read from the client's scheduler. Pending mutation calls follow under the queries,
/// in submission order, with whether they run or wait (paused):
///
/// ```text
/// mutation  key        scope    state    failures  age
/// #3        todos/add  todos    running  0         1s
/// #4        todos/add  todos    paused   0         0s
/// ```
public struct CacheInspector: Sendable {
    /// The client inspected.
    public let client: QueryClient

    /// Makes an inspector of `client`.
    public init(client: QueryClient) {
        self.client = client
    }

    /// The table, one row per entry, sorted by key; "(empty cache)" when there is none.
    public func render() -> String {
        let now = client.scheduler.now
        let rows = entries().map { entry -> [String] in
            let info = entry.info
            let age = info.dataUpdatedAt.map { Self.format(age: $0.duration(to: now)) } ?? "-"
            let freshness =
                entry.data == nil ? "-" : info.observerCount == 0 ? "inactive" : info.isStale ? "stale" : "fresh"
            return [
                info.key.description, info.status.rawValue, info.fetchStatus.rawValue, String(info.observerCount), age,
                freshness,
            ]
        }
        let queries =
            rows.isEmpty
            ? "(empty cache)"
            : Self.table(
                header: ["key", "status", "fetch", "observers", "age", "freshness"],
                rows: rows)
        let pending = client.mutations(matching: MutationFilter(status: .pending))
        guard !pending.isEmpty else { return queries }
        let mutations = pending.map { call in
            [
                "#\(call.id)", call.mutationKey?.description ?? "-", call.scope ?? "-",
                call.isPaused ? "paused" : "running", String(call.failureCount),
                Self.format(age: call.submittedAt.duration(to: now)),
            ]
        }
        let header = ["mutation", "key", "scope", "state", "failures", "age"]
        return queries + "\n\n" + Self.table(header: header, rows: mutations)
    }

    /// Aligned columns, two spaces apart; the last column is not padded.
    private static func table(header: [String], rows: [[String]]) -> String {
        let lines = [header] + rows
        let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { cells in
            cells.enumerated().map { column, cell in
                column == cells.count - 1 ? cell : cell.padded(to: widths[column])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// `12s`, `3m05s`, `2h01m`.
    static func format(age: Duration) -> String {
        let seconds = max(0, Int(age.components.seconds))
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\((seconds % 60).twoDigits)s" }
        return "\(seconds / 3600)h\(((seconds % 3600) / 60).twoDigits)m"
    }
}
