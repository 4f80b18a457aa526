import Foundation

/// One pending mutation call as the client's persistent cache keeps it, so that it can be sent again after a
/// restart: what `setMutationDefaults` needs to find its fetcher, and its request as JSON.
package struct MutationRecord: Codable, Sendable, Equatable {
    /// Handed to the fetcher on every attempt, before and after a restart, so the server can drop a duplicate.
    package var idempotencyKey: String
    package var mutationKey: QueryKey
    package var scope: String?
    package var submittedAt: SchedulerInstant
    package var meta: [String: String]
    /// The request, encoded as JSON.
    package var request: String
}
