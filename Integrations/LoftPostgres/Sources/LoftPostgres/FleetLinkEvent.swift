import Loft

/// What a `PostgresFleetLink` did: for logs, for a devtool, and for tests that wait for a change to arrive.
public enum FleetLinkEvent: Sendable, CustomStringConvertible {
    /// The link listens for the other instances' changes (the first time).
    case listening
    /// The link listens again after it was lost; the client was told that it may have missed changes
    /// (`QueryCacheEvent.changesMissed`), so everything it holds is stale.
    case resumed
    /// The listening connection was lost, or could not be made; the link tries again after its delay.
    case lost(CacheError)
    /// A change of this instance's caller (an invalidation, a removal, a value that cannot travel) reached the
    /// server, for the others. Values travel with their rows' saves, which send no event here.
    case sent(SharedChange)
    /// A change of this instance's caller could not be sent: the other instances do not see it.
    case sendFailed(SharedChange, CacheError)
    /// A change was applied to this instance's client (with its version): another instance's invalidation or
    /// removal, or a row's new value (this instance's rows too; an entry whose data is as new ignores it).
    case applied(SharedChange)
    /// A notification on the channel that is not a change (another program's, or damaged) was ignored.
    case ignored(reason: String)

    /// One line for logs.
    public var description: String {
        switch self {
        case .listening: "listening"
        case .resumed: "resumed: every entry is stale"
        case .lost(let error): "lost: \(error)"
        case .sent(let change): "sent \(change)"
        case .sendFailed(let change, let error): "sendFailed \(change): \(error)"
        case .applied(let change): "applied \(change)"
        case .ignored(let reason): "ignored: \(reason)"
        }
    }
}
