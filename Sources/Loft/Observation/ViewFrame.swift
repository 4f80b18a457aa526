/// One snapshot as a derived view takes it from its owner: the snapshot's box, the box of its value, and its
/// signature. Not generic, so that the view decides what changed without looking a type up; the typed values
/// are compared only when the signature cannot tell (`DerivedView`).
@usableFromInline
struct ViewFrame: Sendable {
    /// A `SnapshotBox<Value>` of the view's `Value`.
    @usableFromInline let box: ErasedObject
    /// The snapshot's data, a `ValueBox<Value>` (nil: no data).
    @usableFromInline let value: ErasedObject?
    /// What an observer can tell apart in the snapshot.
    @usableFromInline let signature: ViewSignature
    /// Whether the data has no version, so that the values decide whether it moved (a combination of other
    /// queries' data has none; a mutation's call has one).
    @usableFromInline let valuesDecide: Bool

    @inlinable
    init(box: ErasedObject, value: ErasedObject?, signature: ViewSignature, valuesDecide: Bool) {
        self.box = box
        self.value = value
        self.signature = signature
        self.valuesDecide = valuesDecide
    }

    /// The frame of `snapshot`, whose data is at `dataVersion` (nil: it has no version, the values decide).
    /// Inlinable, so that an owner that knows `Value` makes its frames without looking a type up.
    @inlinable
    init<Value>(_ snapshot: QuerySnapshot<Value>, dataVersion: UInt64?) {
        self.init(
            box: ErasedObject(SnapshotBox(snapshot: snapshot, state: snapshot.state)),
            value: snapshot.data.map { ErasedObject(ValueBox($0)) },
            signature: snapshot.signature(dataVersion: dataVersion ?? 0), valuesDecide: dataVersion == nil)
    }
}
