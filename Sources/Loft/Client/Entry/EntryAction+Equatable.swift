/// Actions compare as values, so that the machine's tests are tables of events in and actions out.
///
/// What is compared, for the payloads that are not values themselves:
/// - waiters and observers by id, tasks and retryers by identity;
/// - a fetch request by what the machine decides of it (reason, network mode, structural sharing, cancel when
///   unobserved, whether the store was asked), not by its fetcher;
/// - persistence by its cache's identity and its configuration;
/// - data by `==` where its type is `Equatable` (else never equal), errors by their full description.
extension EntryAction: Equatable {
    package static func == (lhs: EntryAction, rhs: EntryAction) -> Bool {
        switch (lhs, rhs) {
        case (.resume(let lw, let lr), .resume(let rw, let rr)):
            return lw == rw && sameResult(lr, rr)
        case (.startFetch(let li, let lr), .startFetch(let ri, let rr)):
            return li == ri && lr.isSameDecision(as: rr)
        case (.cancelTask(let l), .cancelTask(let r)):
            return l == r
        case (.cancelRetry(let l), .cancelRetry(let r)), (.continueRetry(let l), .continueRetry(let r)):
            return l === r
        case (.checkStore(let lr, let li, let lo, let lw, let lp), .checkStore(let rr, let ri, let ro, let rw, let rp)):
            return lr.isSameDecision(as: rr) && li == ri && lo == ro && lw == rw && lp.isSame(as: rp)
        case (.restore(let l), .restore(let r)):
            return l.isSame(as: r)
        case (.loadFallback(let li, let le, let lc, let lp), .loadFallback(let ri, let re, let rc, let rp)):
            return li == ri && sameError(le, re) && lc == rc && lp.isSame(as: rp)
        case (.save(let lv, let la, let lp), .save(let rv, let ra, let rp)):
            return areEqual(lv, rv) && la == ra && lp.isSame(as: rp)
        case (.setAlarm(let l), .setAlarm(let r)):
            return l == r
        case (.refetch(let lo, let lr), .refetch(let ro, let rr)):
            return lo == ro && lr == rr
        case (.emit(let l), .emit(let r)):
            return l.description == r.description
        case (.notifyRemoved(let l), .notifyRemoved(let r)):
            return l.map(\.observer).sorted() == r.map(\.observer).sorted()
        case (.refetchWithRequest(let l), .refetchWithRequest(let r)):
            return l.map(\.observer) == r.map(\.observer)
        case (.collect, .collect):
            return true
        case (.evict(let l), .evict(let r)):
            return l == r
        default:
            return false
        }
    }

    private static func sameResult(_ lhs: Result<any Sendable, any Error>, _ rhs: Result<any Sendable, any Error>)
        -> Bool
    {
        switch (lhs, rhs) {
        case (.success(let l), .success(let r)): areEqual(l, r)
        case (.failure(let l), .failure(let r)): sameError(l, r)
        default: false
        }
    }

    private static func sameError(_ lhs: any Error, _ rhs: any Error) -> Bool {
        String(reflecting: lhs) == String(reflecting: rhs)
    }
}

extension FetchRequest {
    /// Whether two requests are the same for the machine: everything it reads of them but the fetcher.
    func isSameDecision(as other: FetchRequest) -> Bool {
        reason == other.reason && networkMode == other.networkMode && structuralSharing == other.structuralSharing
            && cancelsWhenUnobserved == other.cancelsWhenUnobserved && hasCheckedStore == other.hasCheckedStore
    }
}

extension EntryPersistence {
    /// Whether two persistences write to the same cache object with the same configuration.
    func isSame(as other: EntryPersistence) -> Bool {
        cacheIdentity == other.cacheIdentity && config == other.config
    }
}
