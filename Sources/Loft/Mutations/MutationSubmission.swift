/// A call as it was submitted: what never changes while the mutation cache lists it. Shared by reference by the
/// call's record in the mutation cache and by its run, neither of which copies it (it holds the request, the
/// keys and the meta data).
///
/// Only what was submitted: the cache keeps a call's record until `gcTime` after it settled, and what changes
/// (status, pause, failures, outcome) is in the record already. A full `MutationInfo` here kept room for all of
/// it twice, and memory the system maps afresh for every call kept costs a busy client more than the call's
/// own work.
final class MutationSubmission: Sendable {
    let id: UInt64
    let mutationKey: QueryKey?
    let scope: String?
    let request: any Sendable
    let submittedAt: SchedulerInstant
    let meta: [String: String]
    /// The call's idempotency key.
    let key: IdempotencyKey

    init(
        id: UInt64, mutationKey: QueryKey?, scope: String?, request: any Sendable, submittedAt: SchedulerInstant,
        meta: [String: String], key: IdempotencyKey
    ) {
        self.id = id
        self.mutationKey = mutationKey
        self.scope = scope
        self.request = request
        self.submittedAt = submittedAt
        self.meta = meta
        self.key = key
    }

    /// The call as listed with what changed since it was submitted (by default: nothing, pending).
    func info(
        status: MutationStatus = .pending, isPaused: Bool = false, failureCount: Int = 0,
        response: (any Sendable)? = nil, error: (any Error)? = nil
    ) -> MutationInfo {
        MutationInfo(
            id: id, mutationKey: mutationKey, scope: scope, request: request, status: status, isPaused: isPaused,
            failureCount: failureCount, submittedAt: submittedAt, response: response, error: error, meta: meta,
            key: key)
    }
}
