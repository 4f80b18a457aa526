import Signals

@testable import Loft

/// Listens to an entry and records the version after each change it is told of.
final class VersionRecorder: EntryListener {
    private let recorded = Locked<[UInt64]>([])
    private let link = Locked<Subscription?>(nil)

    init(_ entry: QueryCacheEntry) {
        let token = entry.addListener(self)
        link.withLock { $0 = token }
    }

    deinit {
        link.withLock { $0 }?.cancel()
    }

    var values: [UInt64] {
        recorded.withLock { $0 }
    }

    func entryChanged(to version: UInt64) {
        recorded.withLock { $0.append(version) }
    }
}
