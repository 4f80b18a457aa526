/// When a fetch may run, given the network (TanStack's `networkMode`).
///
/// **Behavior**
/// - `.online` (the default): a fetch that would start while offline is `FetchStatus.paused` and starts when
///   the client is back online (`QueryClient.setOnline(true)`); a retry due while offline waits the same way.
/// - `.always`: fetches and retries run whatever the network (a fetcher that reads a local database).
/// - `.offlineFirst`: the first attempt runs even offline (a service worker or HTTP cache may answer it); its
///   retries pause while offline.
public enum NetworkMode: Sendable, Hashable {
    /// Paused while offline.
    case online
    /// Never paused for the network.
    case always
    /// The first attempt runs offline; retries pause.
    case offlineFirst
}

// Every rule that reads a network mode is here: the entry's machine, the retry machine and the defaults ask
// these, and no other code reads the mode.
extension NetworkMode {
    /// Whether a fetch's first attempt may start with the network in `isOnline`; when not, it waits paused
    /// (the entry shows `FetchStatus.paused`, and the retry machine waits the same way).
    func allowsFirstAttempt(isOnline: Bool) -> Bool {
        self != .online || isOnline
    }

    /// Whether a retry may run with the network in `isOnline` (only `.always` retries offline).
    func allowsRetry(isOnline: Bool) -> Bool {
        self == .always || isOnline
    }

    /// The `refetchOnReconnect` of a query whose defaults set none: `.never` under `.always` (such a query
    /// does not depend on the network; TanStack's default too), else `.ifStale`.
    var defaultRefetchOnReconnect: RefetchTrigger {
        self == .always ? .never : .ifStale
    }
}
