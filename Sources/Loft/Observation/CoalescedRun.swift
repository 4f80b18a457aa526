import Synchronization

/// Runs one job at a time; requests that come while it runs (from another thread, or from inside the job)
/// make it run once more when it ends, however many they are. For work that reads the latest state, such as
/// a view remaking its snapshot: the last run always sees the last change, and none runs twice at once.
///
/// One atomic word, no lock, no queue: an update that no one else wants costs two atomic operations.
struct CoalescedRun: ~Copyable, Sendable {
    private static var idle: UInt8 { 0 }
    private static var running: UInt8 { 1 }
    private static var runningAndRequested: UInt8 { 2 }

    private let state = Atomic<UInt8>(0)

    /// Runs `body` now, or makes the run in progress run again when it ends.
    func run(_ body: () -> Void) {
        var current = state.load(ordering: .relaxed)
        while true {
            if current == Self.runningAndRequested { return }
            let next = current == Self.idle ? Self.running : Self.runningAndRequested
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged {
                if current != Self.idle { return }
                break
            }
            current = original
        }
        repeat {
            body()
        } while !finish()
    }

    /// Ends a pass of the run: true when no request came meanwhile, and the run is over; otherwise takes the
    /// request and returns false (the caller runs its work again).
    private func finish() -> Bool {
        let (finished, _) = state.compareExchange(
            expected: Self.running, desired: Self.idle, ordering: .acquiringAndReleasing)
        if finished { return true }
        // Only the runner lowers the state, so it is `runningAndRequested` here.
        state.store(Self.running, ordering: .releasing)
        return false
    }
}
