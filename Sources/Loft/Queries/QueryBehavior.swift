#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When a query fetches for the first time.
public enum QueryBehavior<Request: Sendable>: Sendable {
    /// Only when `refetch(request:)` (or `value(for:)`) is called.
    case startWhenRequested
    /// At once, with `request`, when the query is created (if enabled and the data is missing or stale).
    case startImmediately(Request)
}

/// Whether a query refetches on a timer while it exists.
public enum PollingBehavior: Sendable, Hashable {
    /// No polling (the default).
    case noPolling
    /// A refetch every `interval` on the client's scheduler, joining a fetch in flight; it stops when the
    /// query is released.
    case pollEvery(Duration)

    /// Pigeon's spelling, in seconds: `.pollEvery(2)`.
    public static func pollEvery(_ seconds: TimeInterval) -> PollingBehavior {
        .pollEvery(.milliseconds(Int64((seconds * 1000).rounded())))
    }
}
