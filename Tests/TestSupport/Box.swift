import Signals

/// A thread-safe value for tests: what closures on several threads write and the test reads.
public final class Box<Value: Sendable>: Sendable {
    private let state: Locked<Value>

    public init(_ value: Value) {
        state = Locked(value)
    }

    public var value: Value {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    public func mutate<R>(_ body: (inout Value) -> R) -> R {
        state.withLock(body)
    }
}

/// An object whose release a test watches through a weak reference.
public final class Token: Sendable {
    public init() {}
}
