/// A value that can be set once; later sets are refused.
package final class SetOnce<Value: Sendable>: Sendable {
    private let storage = Locked<Value?>(nil)

    package init() {}

    package var value: Value? {
        storage.withLock { $0 }
    }

    /// Sets the value if it was never set; returns whether it did.
    package func set(_ value: Value) -> Bool {
        storage.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            return true
        }
    }
}
