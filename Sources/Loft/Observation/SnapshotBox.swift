/// One typed snapshot, shared by reference by every observer of a view: its `state` is derived once, when the
/// snapshot is made, so a read copies a field and derives nothing. Views send boxes, not values: a class
/// reference passes through generic code without looking up the metadata of the value's type.
@usableFromInline
final class SnapshotBox<Value: Sendable>: Sendable {
    @usableFromInline let snapshot: QuerySnapshot<Value>
    @usableFromInline let state: QueryState<Value>

    init(_ snapshot: QuerySnapshot<Value>) {
        self.snapshot = snapshot
        state = snapshot.state
    }

    /// A box showing `state` alone, with no other field to tell (a mutation's): its snapshot is made from it.
    /// Inlined, with the snapshot's initialisers, into the code that makes it: unspecialised generic code looks
    /// the types it uses up once per function, so one function instead of three looks them up once.
    @inlinable @inline(__always)
    init(key: QueryKey, showing state: QueryState<Value>) {
        snapshot = QuerySnapshot(key: key, showing: state)
        self.state = state
    }
}

/// A value a view sends to its value subscribers (nil, the data went, is no value).
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
