import Signals

/// A dictionary behind the project's own lock type: the raw cost that Loft's bookkeeping is compared with.
final class LockedDictionary: Sendable {
    private let storage = Locked<[Int: Int]>([:])

    func insert(_ key: Int) { storage.withLock { $0[key] = key } }
    func remove(_ key: Int) { _ = storage.withLock { $0.removeValue(forKey: key) } }
}
