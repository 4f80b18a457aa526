/// How long data stays fresh: a duration, forever, or forever even through invalidation.
///
/// ```swift
/// QueryOptions<User>(staleTime: .seconds(30))
/// QueryOptions<Config>(staleTime: .infinity)   // fresh until invalidated
/// QueryOptions<Country>(staleTime: .static)    // fresh for good: not even invalidation refetches it
/// ```
public enum StaleTime: Sendable, Hashable, CustomStringConvertible {
    /// Fresh for this long after the data was fetched or set; `.zero` (the default) is stale at once.
    case duration(Duration)
    /// Never stale by age; `invalidateQueries` still makes it stale (TanStack's `Infinity`).
    case infinity
    /// Never stale: invalidation neither marks it stale nor refetches it (TanStack's `'static'`).
    case `static`

    /// Stale at once: every trigger refetches.
    public static let zero = StaleTime.duration(.zero)

    /// Fresh for `seconds`.
    public static func seconds<T: BinaryInteger>(_ seconds: T) -> StaleTime { .duration(.seconds(seconds)) }
    /// Fresh for `seconds`.
    public static func seconds(_ seconds: Double) -> StaleTime { .duration(.seconds(seconds)) }
    /// Fresh for `milliseconds`.
    public static func milliseconds<T: BinaryInteger>(_ milliseconds: T) -> StaleTime {
        .duration(.milliseconds(milliseconds))
    }

    /// `30 s`, `infinity`, `static`.
    public var description: String {
        switch self {
        case .duration(let duration): "\(duration)"
        case .infinity: "infinity"
        case .static: "static"
        }
    }
}

/// How long an entry nobody observes stays cached: a duration, or forever.
///
/// ```swift
/// QueryOptions<User>(gcTime: .seconds(60))
/// QueryOptions<Catalog>(gcTime: .infinity)   // never collected
/// ```
public enum GCTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Collected this long after the last observer left (or after the fetch or write that made it unused).
    case duration(Duration)
    /// Never collected; only `removeQueries` and `clear()` remove it.
    case infinity

    /// Collected as soon as it is unused (on the next turn of the client's scheduler).
    public static let zero = GCTime.duration(.zero)

    /// Collected `seconds` after it became unused.
    public static func seconds<T: BinaryInteger>(_ seconds: T) -> GCTime { .duration(.seconds(seconds)) }
    /// Collected `seconds` after it became unused.
    public static func seconds(_ seconds: Double) -> GCTime { .duration(.seconds(seconds)) }
    /// Collected `milliseconds` after it became unused.
    public static func milliseconds<T: BinaryInteger>(_ milliseconds: T) -> GCTime {
        .duration(.milliseconds(milliseconds))
    }

    /// `infinity` is longer than every duration.
    public static func < (lhs: GCTime, rhs: GCTime) -> Bool {
        switch (lhs, rhs) {
        case (.duration(let lhs), .duration(let rhs)): lhs < rhs
        case (.duration, .infinity): true
        case (.infinity, _): false
        }
    }

    /// `300 s`, `infinity`.
    public var description: String {
        switch self {
        case .duration(let duration): "\(duration)"
        case .infinity: "infinity"
        }
    }
}

extension StaleTime {
    /// The shorter of two freshness windows: whatever is stale for the longer is stale for the shorter
    /// (a duration, then `.infinity`, which only invalidation ends, then `.static`, which nothing ends).
    static func shorter(_ first: StaleTime, _ second: StaleTime) -> StaleTime {
        switch (first, second) {
        case (.duration(let one), .duration(let other)): .duration(min(one, other))
        case (.duration, _): first
        case (_, .duration): second
        case (.infinity, _): first
        default: second
        }
    }
}
