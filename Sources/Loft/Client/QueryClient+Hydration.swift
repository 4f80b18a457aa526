#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension QueryClient {
    /// A `Codable` snapshot of the successful queries under `prefix` (default: all): key, data as JSON,
    /// `dataUpdatedAt`.
    ///
    /// Queries whose data is not `Encodable`, or fails to encode, are left out and reported as
    /// `persistenceFailed` on `events`. Errors, fetch states and observers are not part of the snapshot.
    public func dehydrate(_ prefix: QueryKey = QueryKey(parts: [])) -> DehydratedState {
        var queries: [DehydratedState.Entry] = []
        for entry in entries(matching: prefix, exact: false) {
            let snapshot = entry.snapshot
            guard snapshot.status == .success, let data = snapshot.data, let updatedAt = snapshot.dataUpdatedAt
            else { continue }
            if let hydrated = data as? HydratedValue {
                queries.append(
                    DehydratedState.Entry(
                        key: entry.key, json: String(decoding: hydrated.json, as: UTF8.self), dataUpdatedAt: updatedAt,
                        type: hydrated.type))
                continue
            }
            do throws(CacheError) {
                guard let encodable = data as? any Encodable else {
                    throw .notCodable(key: entry.key, type: "\(type(of: data))")
                }
                let json = try CacheCoding.encode(encodable, key: entry.key)
                queries.append(
                    DehydratedState.Entry(
                        key: entry.key, json: String(decoding: json, as: UTF8.self), dataUpdatedAt: updatedAt,
                        type: "\(type(of: data))"))
            } catch {
                context.emit(.persistenceFailed(entry.key, error: error))
            }
        }
        queries.sort { $0.key.description < $1.key.description }
        return DehydratedState(queries: queries)
    }

    /// Restores the queries of `state` (from `dehydrate()`, possibly of another process). Data already in this
    /// client that is as new or newer is kept: hydrating never overwrites newer data.
    ///
    /// Hydrated data stays JSON until a query of its type reads it; a query whose type no longer decodes it
    /// sees `QueryError.typeMismatch` until it fetches.
    ///
    /// - Returns: the keys whose data was restored.
    @discardableResult
    public func hydrate(_ state: DehydratedState) -> [QueryKey] {
        var restored: [QueryKey] = []
        for query in state.queries {
            let value = HydratedValue(json: Data(query.json.utf8), type: query.type)
            let isStored = entry(for: query.key).setData(
                value, updatedAt: query.dataUpdatedAt, mode: .ifNewer, structuralSharing: false
            ).isStored
            if isStored { restored.append(query.key) }
        }
        return restored
    }
}
