import Signals

/// A thread-safe value for tests: what closures on several threads write and the test reads.
public final class Box<Value: Sendable>: Sendable {
    private let state: Locked<Value>

    /// Holds `value`.
    public init(_ value: Value) {
        state = Locked(value)
    }

    /// The value now; setting it replaces it.
    public var value: Value {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Changes the value in place, under the lock; returns what `body` returns.
    public func mutate<R>(_ body: (inout Value) -> R) -> R {
        state.withLock(body)
    }
}

/// An object whose release a test watches through a weak reference.
public final class Token: Sendable {
    /// Makes a token.
    public init() {}
}
