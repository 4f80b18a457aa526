import Synchronization

/// The untyped half of an `EntryView`: its latest snapshot box and the version of it, readable without generic
/// code, so that the read path of every observer is the same non-generic code.
@usableFromInline
final class ViewCore: Sendable {
    private struct Current: Sendable {
        var box: ErasedObject
        var version: UInt64
    }

    private let current: Locked<Current>
    /// The version of the latest box, readable with no lock: an observer whose cached box has this version
    /// needs no other read.
    @usableFromInline let latest = Atomic<UInt64>(1)

    init(_ box: ErasedObject) {
        current = Locked(Current(box: box, version: 1))
    }

    /// The version of the latest box.
    @inlinable
    var version: UInt64 {
        latest.load(ordering: .acquiring)
    }

    /// The latest box and its version.
    func read() -> (box: ErasedObject, version: UInt64) {
        current.withLock { ($0.box, $0.version) }
    }

    /// Makes `box` the latest.
    func store(_ box: ErasedObject) {
        current.withLock { current in
            current.box = box
            current.version += 1
            latest.store(current.version, ordering: .releasing)
        }
    }
}
