import Synchronization

/// Whether the app is focused and the network is online, as the client was told (`QueryClient.setFocused(_:)`,
/// `setOnline(_:)`), and the fetches waiting for either to come back.
///
/// **Behavior**
/// - Both start true.
/// - A waiter registered with a condition is resumed, with no lock held, by the change that makes its
///   condition true; a waiter whose condition holds already when it registers is resumed at once.
package final class ClientEnvironment: Sendable {
    /// The two conditions at one moment.
    package struct Conditions: Sendable, Equatable {
        package var isFocused = true
        package var isOnline = true
        /// The network came back while mutation calls were paused, and they have not all settled yet: paused
        /// query fetches and the reconnect refetch wait for them (TanStack's order), so that they see their
        /// effect.
        package var isSettlingMutations = false

        init() {}

        init(flags: UInt8) {
            isFocused = flags & 1 != 0
            isOnline = flags & 2 != 0
            isSettlingMutations = flags & 4 != 0
        }

        var flags: UInt8 {
            (isFocused ? 1 : 0) | (isOnline ? 2 : 0) | (isSettlingMutations ? 4 : 0)
        }

        /// Whether a paused query fetch may go on: online, and no resumed mutation call is still settling.
        package var queriesMayContinue: Bool {
            isOnline && !isSettlingMutations
        }
    }

    private struct Waiter: Sendable {
        let condition: @Sendable (Conditions) -> Bool
        let resume: @Sendable () -> Void
    }

    private struct State: Sendable {
        var conditions = Conditions()
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// The two flags, mirrored for reads: every cache event reads them, so a read takes no lock.
    private let flags = Atomic<UInt8>(Conditions().flags)

    package init() {}

    package var conditions: Conditions {
        Conditions(flags: flags.load(ordering: .acquiring))
    }

    /// Changes the conditions; returns the previous ones. Waiters whose condition now holds are resumed, after
    /// `beforeResuming` ran with the previous conditions: what must reach the entries before a paused fetch
    /// goes on (the focus and reconnect triggers, which then join it instead of finding its fresh result
    /// stale and fetching again).
    @discardableResult
    package func update(
        _ change: (inout Conditions) -> Void, beforeResuming: (_ previous: Conditions) -> Void = { _ in }
    ) -> Conditions {
        let (previous, ready) = state.withLock { state -> (Conditions, [@Sendable () -> Void]) in
            let previous = state.conditions
            change(&state.conditions)
            let conditions = state.conditions
            flags.store(conditions.flags, ordering: .releasing)
            let ready = state.waiters.filter { $0.value.condition(conditions) }
            for id in ready.keys { state.waiters[id] = nil }
            return (previous, ready.sorted { $0.key < $1.key }.map(\.value.resume))
        }
        beforeResuming(previous)
        for resume in ready { resume() }
        return previous
    }

    /// Calls `resume` once `condition` holds (at once if it holds now); returns how to stop waiting.
    package func wait(
        until condition: @escaping @Sendable (Conditions) -> Bool, _ resume: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        let id = state.withLock { state -> UInt64? in
            guard !condition(state.conditions) else { return nil }
            state.nextID += 1
            state.waiters[state.nextID] = Waiter(condition: condition, resume: resume)
            return state.nextID
        }
        guard let id else {
            resume()
            return {}
        }
        return { [weak self] in _ = self?.state.withLock { $0.waiters.removeValue(forKey: id) } }
    }
}
