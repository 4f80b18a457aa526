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
