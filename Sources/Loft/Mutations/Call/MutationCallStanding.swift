/// Where a mutation call stands, as its `Mutation`'s state shows it: its status, its outcome and its failed
/// attempts. Read from the call's record in one hold of its lock.
@usableFromInline
struct MutationCallStanding: Sendable {
    /// The call's id in its client (its data's version once it succeeded).
    @usableFromInline let id: UInt64
    @usableFromInline let status: MutationStatus
    @usableFromInline let response: (any Sendable)?
    @usableFromInline let error: (any Error)?
    @usableFromInline let failureCount: Int

    init(id: UInt64, status: MutationStatus, response: (any Sendable)?, error: (any Error)?, failureCount: Int) {
        self.id = id
        self.status = status
        self.response = response
        self.error = error
        self.failureCount = failureCount
    }
}

extension MutationCallStanding {
    /// The snapshot a mutation's view shows for its latest call (nil: no call, before the first and after
    /// `reset()`): idle without a call; loading while the call is pending, with its failed attempts so far; its
    /// response once it succeeded; its error and failed attempts once it failed. A response of another type
    /// than `Response` (which a mutation's own calls never have) shows as idle.
    ///
    /// Inlinable: `Mutation`'s public initialisers hand it to the view from the module that makes the
    /// mutation, where it is compiled for `Response` (docs/Performance.md, row (o)).
    @inlinable
    static func snapshot<Response: Sendable>(of call: MutationCallStanding?, as _: Response.Type) -> QuerySnapshot<
        Response
    > {
        guard let call else { return QuerySnapshot(key: mutationSnapshotKey, showing: .idle) }
        switch call.status {
        case .success:
            guard let response = call.response as? Response else {
                return QuerySnapshot(key: mutationSnapshotKey, showing: .idle)
            }
            return QuerySnapshot(key: mutationSnapshotKey, showing: .succeed(response))
        case .error:
            return QuerySnapshot(
                key: mutationSnapshotKey, data: nil, error: call.error, status: .error, fetchStatus: .idle,
                dataUpdatedAt: nil, isStale: false, isPlaceholderData: false, failureCount: call.failureCount)
        case .idle, .pending:
            return QuerySnapshot(
                key: mutationSnapshotKey, data: nil, error: nil, status: .pending, fetchStatus: .fetching,
                dataUpdatedAt: nil, isStale: false, isPlaceholderData: false, failureCount: call.failureCount)
        }
    }

    /// The frame of `snapshot(of:as:)`, as the mutation's view takes it: its data's version is the call's id,
    /// so that a new call's response is compared with the last only when both are responses of one call.
    @inlinable
    static func frame<Response: Sendable>(of call: MutationCallStanding?, as _: Response.Type) -> ViewFrame {
        let snapshot = snapshot(of: call, as: Response.self)
        return ViewFrame(snapshot, dataVersion: snapshot.data == nil ? 0 : call?.id ?? 0)
    }
}
