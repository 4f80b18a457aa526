import Synchronization

/// A value that can be set once; later sets are refused.
///
/// Until it is set, a read is one atomic load and takes no lock: every fetch that is not a fresh hit asks the
/// global persistence defaults through it, from every thread at once (row (e), 10,000 callers of one key).
package final class SetOnce<Value: Sendable>: Sendable {
    private let storage = Locked<Value?>(nil)
    /// Set, after the value, once it is set.
    private let isSet = Atomic<Bool>(false)

    package init() {}

    /// Whether the value was set: one atomic load.
    package var hasValue: Bool {
        isSet.load(ordering: .acquiring)
    }

    package var value: Value? {
        guard hasValue else { return nil }
        return storage.withLock { $0 }
    }

    /// Sets the value if it was never set; returns whether it did.
    package func set(_ value: Value) -> Bool {
        storage.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            isSet.store(true, ordering: .releasing)
            return true
        }
    }
}
