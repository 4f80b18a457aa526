import Foundation
import Loft

/// What the page reads, as JSON: a page of the cache's entries with the mutations, the environment and the
/// timeline; the detail of one key.
enum DevtoolsModels {
    struct EntryRow: Encodable {
        let key: String
        let keyJSON: String
        let status: String
        let fetchStatus: String
        let observers: Int
        let isStale: Bool
        let isInvalidated: Bool
        /// Seconds until the data turns stale (negative: since it did); nil when it never does by age.
        let staleIn: Double?
        /// Seconds until garbage collection removes the entry; nil while observed or kept forever.
        let collectIn: Double?
        /// Seconds since the data was fetched or set.
        let age: Double?
        /// The data's JSON bytes; nil when it is not `Encodable` or there is none.
        let size: Int?
        let failureCount: Int
        let error: String?
    }

    struct MutationRow: Encodable {
        let id: UInt64
        let key: String
        let scope: String?
        let status: String
        let isPaused: Bool
        let failureCount: Int
        let request: String
        let error: String?
        let age: Double
    }

    struct StatePage: Encodable {
        let now: Double
        let total: Int
        let offset: Int
        let entries: [EntryRow]
        let mutations: [MutationRow]
        let online: Bool
        let focused: Bool
        let timeline: [DevtoolsRecorder.FetchRecord]
        let isRecording: Bool
        let memory: Memory
    }

    /// The client's memory against its budget.
    struct Memory: Encodable {
        /// What its entries cost (entries, without a budget).
        let used: Int
        /// The budget's limit; nil without one.
        let limit: Int?
        /// Entries evicted since the page's recording began.
        let evicted: Int
    }

    struct Detail: Encodable {
        let entry: EntryRow
        let data: String?
        let staleTime: String?
        let history: [DevtoolsRecorder.FetchRecord]
    }

    static func row(_ entry: CacheInspector.Entry, json: String?, now: SchedulerInstant) -> EntryRow {
        let info = entry.info
        return EntryRow(
            key: info.key.description, keyJSON: DevtoolsRecorder.json(info.key), status: info.status.rawValue,
            fetchStatus: info.fetchStatus.rawValue, observers: info.observerCount, isStale: info.isStale,
            isInvalidated: entry.isInvalidated, staleIn: entry.staleAt.map { now.duration(to: $0).secondsValue },
            collectIn: entry.collectedAt.map { now.duration(to: $0).secondsValue },
            age: info.dataUpdatedAt.map { $0.duration(to: now).secondsValue }, size: json?.utf8.count,
            failureCount: entry.failureCount, error: entry.error.map { "\($0)" })
    }

    static func mutation(_ info: MutationInfo, now: SchedulerInstant) -> MutationRow {
        let request: String
        if let encodable = info.request as? any Encodable, let data = try? JSONEncoder().encode(encodable) {
            request = String(decoding: data, as: UTF8.self)
        } else {
            request = "\(info.request)"
        }
        return MutationRow(
            id: info.id, key: info.mutationKey?.description ?? "-", scope: info.scope, status: info.status.rawValue,
            isPaused: info.isPaused, failureCount: info.failureCount, request: request,
            error: info.error.map { "\($0)" }, age: info.submittedAt.duration(to: now).secondsValue)
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
