/// A change of the client's mutation cache, published on `QueryClient.events` as `.mutation(_:)`.
public enum MutationEvent: Sendable, CustomStringConvertible {
    /// A call was submitted (pending).
    case added(MutationInfo)
    /// A call paused, continued, failed an attempt, or settled.
    case updated(MutationInfo)
    /// A settled call was removed, `gcTime` after it settled (or by `QueryClient.clear()`).
    case removed(MutationInfo)

    /// The call the event is about, as it stands after the change.
    public var info: MutationInfo {
        switch self {
        case .added(let info), .updated(let info), .removed(let info): info
        }
    }

    /// `mutation added #3 todos/add pending`.
    public var description: String {
        switch self {
        case .added(let info): "mutation added \(info)"
        case .updated(let info): "mutation updated \(info)"
        case .removed(let info): "mutation removed \(info)"
        }
    }
}
