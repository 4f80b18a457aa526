/// The typed views an entry's observers share: made on first use, closed by the last follower.
extension QueryCacheEntry {
    /// The view shared under `identity`, made by `make` when there is none; each call must be matched by one
    /// `releaseView(_:)`.
    func acquireView(_ identity: ViewIdentity, make: () -> any SharedEntryView) -> any SharedEntryView {
        let shared = storage.withLock { storage -> (any SharedEntryView)? in
            guard let slot = storage.views[identity] else { return nil }
            storage.views[identity] = (slot.view, slot.count + 1)
            return slot.view
        }
        if let shared { return shared }
        // Made outside the lock: a view reads the entry as it starts.
        let made = make()
        let (view, spare) = storage.withLock { storage -> (any SharedEntryView, (any SharedEntryView)?) in
            if let slot = storage.views[identity] {
                storage.views[identity] = (slot.view, slot.count + 1)
                return (slot.view, made)
            }
            storage.views[identity] = (made, 1)
            return (made, nil)
        }
        spare?.close()
        return view
    }

    /// How many views the entry shares now.
    var sharedViewCount: Int {
        storage.withLock { $0.views.count }
    }

    /// How many relays listen to the channels of the views the entry shares (for tests).
    var subscribedRelayCount: Int {
        storage.withLock { $0.views.values.map(\.view) }.reduce(0) { $0 + $1.relayCount }
    }

    /// One follower of the view shared under `identity` left; the last one closes it.
    func releaseView(_ identity: ViewIdentity) {
        let closed = storage.withLock { storage -> (any SharedEntryView)? in
            guard let slot = storage.views[identity] else { return nil }
            guard slot.count > 1 else {
                storage.views[identity] = nil
                storage.dropEmptyAttachments()
                return slot.view
            }
            storage.views[identity] = (slot.view, slot.count - 1)
            return nil
        }
        closed?.close()
    }

}
