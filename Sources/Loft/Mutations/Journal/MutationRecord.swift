import Foundation

/// One pending mutation call as the client's persistent cache keeps it, so that it can be sent again after a
/// restart: what `setMutationDefaults` needs to find its fetcher, and its request as JSON.
package struct MutationRecord: Codable, Sendable, Equatable {
    /// The format this version writes and reads.
    package static let currentFormat = 2

    /// Handed to the fetcher on every attempt, before and after a restart, so the server can drop a duplicate.
    package var idempotencyKey: String
    package var mutationKey: QueryKey
    package var scope: String?
    package var submittedAt: SchedulerInstant
    package var meta: [String: String]
    /// The request, encoded as JSON.
    package var request: String
    /// The call's place in submission order among calls submitted at the same instant (nil in the first
    /// format's records).
    package var position: UInt64?
    /// The record's format (nil in the first format's records).
    package var format: Int?

    package init(
        idempotencyKey: String, mutationKey: QueryKey, scope: String?, submittedAt: SchedulerInstant,
        meta: [String: String], request: String, position: UInt64? = nil, format: Int? = currentFormat
    ) {
        self.idempotencyKey = idempotencyKey
        self.mutationKey = mutationKey
        self.scope = scope
        self.submittedAt = submittedAt
        self.meta = meta
        self.request = request
        self.position = position
        self.format = format
    }

    /// Throws when a newer version wrote the record: this one cannot tell what it holds.
    func checkFormat(key: QueryKey) throws(CacheError) {
        guard let format, format > Self.currentFormat else { return }
        throw .undecodableValue(
            key: key, storedType: "mutation record format \(format)", expectedType: "MutationRecord",
            reason: "a newer version wrote it (this one reads format \(Self.currentFormat) and earlier)")
    }
}
