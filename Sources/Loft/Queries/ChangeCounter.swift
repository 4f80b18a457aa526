/// A number bumped on every change of a composite observable (`Queries`, `PaginatedQuery`), published in
/// order: observers hear of each change once, and a memoised result knows whether it is still current.
package final class ChangeCounter: Sendable {
    private let count = Locked<UInt64>(0)
    private let publication = OrderedSubject<UInt64>(0)

    package init() {}

    /// The number of changes so far.
    package var version: UInt64 {
        count.withLock { $0 }
    }

    /// Every version, in order; a new subscriber gets the current one first.
    package var changes: CurrentValueSubject<UInt64, Never> {
        publication.subject
    }

    /// Counts a change and publishes it (after the lock is released).
    package func bump() {
        let mustDrain = count.withLock { count in
            count += 1
            return publication.enqueue(count)
        }
        if mustDrain { publication.drain() }
    }
}
