/// What makes two observers of an entry see the same typed view: the type they read, and the options that
/// change what they see. Observers with a `select`, placeholder data or a projection have views of their own.
struct ViewIdentity: Hashable, Sendable {
    let valueType: ObjectIdentifier
    let staleTime: StaleTime
    let inheritsStaleTime: Bool
    let isEnabled: Bool
}

/// A view an entry keeps for the observers that share it, closed when the last one leaves.
protocol SharedEntryView: AnyObject, Sendable {
    /// Stops following the entry.
    func close()
    /// How many relays listen to the view's channels (for tests).
    var relayCount: Int { get }
}
