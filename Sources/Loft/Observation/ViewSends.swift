/// What one publication of a `ViewChannel` sends: the snapshot's box, whether its state changed, and the new
/// value if there is one. Not generic (the boxes are kept as objects of the channel's types), so that making
/// and passing it looks no type up.
struct ViewSends: Sendable {
    /// A `SnapshotBox<Value>` of the channel's `Value`.
    let box: AnyObject & Sendable
    var stateChanged: Bool
    /// A `ValueBox<Value>`; `.some(nil)`: the data went; nil: the value did not change.
    var value: (AnyObject & Sendable)?? = nil
}
