/// What one call asks of an entry besides its fetcher: why it fetches, whether the persistent cache was asked
/// already, and how long the caller wants the entry kept. A read sends it alone first
/// (`EntryEvent.readRequested`): a caller who joins a fetch in flight, or whom the cache answers, makes no
/// fetcher object (row (e)); the fetcher is made only when the machine asks for it, to start a fetch.
package struct FetchCall: Sendable {
    package var reason: FetchReason
    /// The persistent cache was asked already (`.useInsteadOfFetching`) and had nothing valid.
    package var hasCheckedStore = false
    /// How long the entry stays once unused, as a caller (`fetchQuery(gcTime:)`) asks; the entry keeps the
    /// longest it was told, as for observers. To the nanosecond.
    package var gcTime: GCTime? {
        get { packedGCTime.gcTime }
        set { packedGCTime = PackedDuration(gcTime: newValue) }
    }
    private var packedGCTime = PackedDuration(gcTime: nil)

    package init(reason: FetchReason, gcTime: GCTime? = nil) {
        self.reason = reason
        packedGCTime = PackedDuration(gcTime: gcTime)
    }
}
