import Loft
import LoftPostgres
import NIOConcurrencyHelpers

/// Every value a publisher sent, and a way to wait for one: tests against a real server wait for what they
/// expect to happen (the suite's time limit ends a wait that would never end).
final class EventLog<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var waiters: [(id: Int, isMet: @Sendable ([Event]) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            []
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())
    private let subscription = NIOLockedValueBox<Subscription?>(nil)

    init(_ publisher: AnyPublisher<Event, Never>) {
        let token = publisher.sink { [weak self] event in self?.record(event) }
        subscription.withLockedValue { $0 = token }
    }

    var events: [Event] { state.withLockedValue { $0.events } }

    /// Returns once `isMet` holds for the events recorded (at once if it does), or once the calling task is
    /// cancelled: the suite's time limit cancels a test whose wait would never end, which then fails on what it
    /// expected instead of hanging.
    func until(_ isMet: @escaping @Sendable ([Event]) -> Bool) async {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Under the lock that the cancellation handler takes too: a cancellation that came before this
                // is seen here, one that comes after finds the waiter.
                let now = state.withLockedValue { state -> Bool in
                    if isMet(state.events) || Task.isCancelled { return true }
                    state.waiters.append((id, isMet, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            cancelled?.resume()
        }
    }

    /// The first event, recorded or to come, for which `matches` holds.
    @discardableResult
    func first(where matches: @escaping @Sendable (Event) -> Bool) async -> Event? {
        await until { $0.contains(where: matches) }
        return events.first(where: matches)
    }

    /// Returns once `matches` holds for `count` recorded events.
    func count(_ count: Int, where matches: @escaping @Sendable (Event) -> Bool) async {
        await until { $0.filter(matches).count >= count }
    }

    /// How many recorded events `matches` holds for.
    func count(where matches: (Event) -> Bool) -> Int {
        state.withLockedValue { $0.events.filter(matches).count }
    }

    private func record(_ event: Event) {
        let ready = state.withLockedValue { state in
            state.events.append(event)
            let events = state.events
            let ready = state.waiters.filter { $0.isMet(events) }
            state.waiters.removeAll { $0.isMet(events) }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }
}

extension FleetLinkEvent {
    var isApplied: Bool { if case .applied = self { true } else { false } }
    /// Another instance's invalidation or removal, applied (not a row's value).
    var isAppliedChange: Bool {
        guard case .applied(let change) = self else { return false }
        if case .setData = change.operation { return false }
        return true
    }
    /// A row's value applied here (this instance's own rows too).
    var appliedValue: SharedChange? {
        guard case .applied(let change) = self, case .setData = change.operation else { return nil }
        return change
    }
    var isSent: Bool { if case .sent = self { true } else { false } }
    var isResumed: Bool { if case .resumed = self { true } else { false } }
    var isLost: Bool { if case .lost = self { true } else { false } }
}
