import Testing

@testable import Loft

/// A read that brings no fetcher (`readRequested`, what `fetchQuery`, `ensureQueryData` and `prefetchQuery`
/// send first): the cache answers it, or it joins the fetch in flight, as a request with a fetcher would; where
/// it would start a fetch, replace one or ask the store, it changes nothing and asks for its fetcher.
@Suite struct ReadRequestTableTests {
    static let rows: [MachineScript] = [
        MachineScript(
            "a read of an empty entry asks for its fetcher, and changes nothing",
            [.read(0, .ifStale(.zero), waiter: 1)],
            [], needsFetcher: true,
            holds: { $0.status == .pending && $0.fetchStatus == .idle }),
        MachineScript(
            "a read of stale data with no fetch in flight asks for its fetcher; the data stays as it was",
            [.write(0, 1), .read(5, .ifStale(.zero), waiter: 1)],
            [], needsFetcher: true,
            holds: { $0.data as? Int == 1 && $0.fetchStatus == .idle }),
        MachineScript(
            "a read of stale data offline asks for its fetcher too (the fetch it starts is paused)",
            [.write(0, 1), .read(5, .ifStale(.zero), waiter: 1, online: false)],
            [], needsFetcher: true),
        MachineScript(
            "a read that asks the store first asks for its fetcher before the store is asked",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching), restores: false)),
                .read(0, .ifStale(.zero), waiter: 1),
            ],
            [], needsFetcher: true),
        MachineScript(
            "fresh data answers a read with no fetcher, served from the cache",
            [.write(0, 1), .read(1, .ifStale(.seconds(30)), waiter: 1)],
            [.emit(.served(MachineScript.key, fromCache: true)), .resume([MachineScript.waiter(1)], .success(1))]),
        MachineScript(
            "any data answers a read that fetches only when there is none",
            [.write(0, 1), .read(500, .ifMissing, waiter: 1)],
            [.emit(.served(MachineScript.key, fromCache: true)), .resume([MachineScript.waiter(1)], .success(1))]),
        MachineScript(
            "a read joins the fetch in flight with no fetcher, served by it",
            [.fetch(0, .explicit), .read(1, .ifStale(.zero), waiter: 1)],
            [.emit(.served(MachineScript.key, fromCache: false))],
            holds: { $0.fetchStatus == .fetching }),
        MachineScript(
            "a read that joined is answered with the fetch's value, in the order the callers came",
            [
                .fetch(0, .explicit, waiter: 2), .read(1, .ifStale(.zero), waiter: 1),
                .succeed(2, fetch: 1, 7),
            ],
            [
                .resume([MachineScript.waiter(2), MachineScript.waiter(1)], .success(7)),
                .emit(.updated(MachineScript.key)),
                .emit(.fetchFinished(MachineScript.key, error: nil)), .setAlarm(MachineScript.instant(302)),
            ]),
        MachineScript(
            "a read that joins keeps its longer gcTime: the entry is collected later",
            [
                .fetch(0, .explicit), .read(1, .ifStale(.zero), waiter: 1, gcTime: .seconds(600)),
                .succeed(2, fetch: 1, 7),
            ],
            [
                .resume([MachineScript.waiter(1)], .success(7)), .emit(.updated(MachineScript.key)),
                .emit(.fetchFinished(MachineScript.key, error: nil)), .setAlarm(MachineScript.instant(602)),
            ]),
        MachineScript(
            "a read of a removed entry is sent to the key's next entry",
            [.write(0, 1), .at(1, .removed), .read(2, .ifStale(.zero), waiter: 1)],
            [.resume([MachineScript.waiter(1)], .failure(EntryRemovedError()))]),
    ]

    @Test("reads without a fetcher", arguments: rows)
    func readTable(_ row: MachineScript) { row.check() }
}
