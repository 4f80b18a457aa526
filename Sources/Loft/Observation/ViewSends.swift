/// One publication of a `ViewChannel`, as every relay of the channel receives it: the snapshot's box, whether
/// its state changed, whether the value changed, and the value now. Not generic (the boxes are kept as objects
/// of the channel's types), so that making, passing and storing it looks no type up; three words, so that the
/// channel's subject keeps it as its current value without allocating.
struct ViewSends: Sendable {
    /// A `SnapshotBox<Value>` of the channel's `Value`.
    let box: ErasedObject
    /// The value now: a `ValueBox<Value>`, or nil when there is none (no data yet, or the data went).
    var value: ErasedObject?
    var stateChanged: Bool
    /// Whether `value` is new: another value, or the data went.
    var valueChanged: Bool

    init(
        box: ErasedObject, stateChanged: Bool, value: ErasedObject? = nil, valueChanged: Bool = false
    ) {
        self.box = box
        self.value = value
        self.stateChanged = stateChanged
        self.valueChanged = valueChanged
    }
}
