import Loft
import Tracing

/// A fetch under way, from `fetchStarted` to `fetchFinished`: its span, when it started and why, its failed
/// attempts and its time paused (on the client's clock).
struct OpenFetch: Sendable {
    let span: any Span
    let reason: FetchReason
    let startedAt: SchedulerInstant
    var failures = 0
    var pausedSince: SchedulerInstant?
    var paused: Duration = .zero

    /// The time paused up to `now` (a pause still running counts to `now`).
    func pausedTime(at now: SchedulerInstant) -> Duration {
        paused + (pausedSince.map { $0.duration(to: now) } ?? .zero)
    }
}

/// A mutation call under way, from `added` to the update that settles it.
struct OpenMutation: Sendable {
    let span: any Span
    let startedAt: SchedulerInstant
}
