/// One typed snapshot, shared by reference by every observer of a view: its `state` is derived once, when the
/// snapshot is made, so a read copies a field and derives nothing. Views send boxes, not values: a class
/// reference passes through generic code without looking up the metadata of the value's type.
///
/// A `SnapshotPair` of the snapshot and its state: the pair's fields are of its own generic parameters' types,
/// which its deinit finds in the instance's class metadata. A box generic over `Value` with fields of type
/// `QuerySnapshot<Value>` and `QueryState<Value>` would look both types up at run time each time one is
/// freed (a mutation frees one per call).
@usableFromInline
typealias SnapshotBox<Value: Sendable> = SnapshotPair<QuerySnapshot<Value>, QueryState<Value>>

/// A snapshot and its state (see `SnapshotBox`).
@usableFromInline
final class SnapshotPair<Snapshot: Sendable, State: Sendable>: Sendable {
    @usableFromInline let snapshot: Snapshot
    @usableFromInline let state: State

    @inlinable @inline(__always)
    init(snapshot: Snapshot, state: State) {
        self.snapshot = snapshot
        self.state = state
    }
}

extension SnapshotPair {
    convenience init<Value>(_ snapshot: QuerySnapshot<Value>)
    where Snapshot == QuerySnapshot<Value>, State == QueryState<Value> {
        self.init(snapshot: snapshot, state: snapshot.state)
    }

    /// A box showing `state` alone, with no other field to tell (a mutation's): its snapshot is made from it.
    /// Inlined, with the snapshot's initialisers, into the code that makes it: unspecialised generic code looks
    /// the types it uses up once per function, so one function instead of three looks them up once.
    @inlinable @inline(__always)
    convenience init<Value>(key: QueryKey, showing state: QueryState<Value>)
    where Snapshot == QuerySnapshot<Value>, State == QueryState<Value> {
        self.init(snapshot: QuerySnapshot(key: key, showing: state), state: state)
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
