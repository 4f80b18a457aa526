import Foundation
import Loft

let persistedCacheStep = TourStep(title: "Persisted cache: data survives a restart (run the Playground twice)") {
    tour in
    // A client of its own, saving every value it fetches to disk (JSON files by default), and showing saved
    // values at once.
    let disk = try tour.cache.open(tour.cacheDirectory)
    let client = QueryClient(cache: disk, cacheConfig: QueryCacheConfig(usagePolicy: .useAndThenFetch))
    let users = Query(key: "users", options: QueryOptions(retry: .never), client: client) {
        try await tour.api.users()
    }
    var lines: [String] = []
    users.refetch()
    let startup = users.snapshot
    if startup.isRestored, let savedAt = startup.dataUpdatedAt {
        let age = Int(client.scheduler.now.duration(to: savedAt).secondsValue.magnitude)
        lines.append("started from the disk cache: \(UsersRenderer().view(for: startup.state)) (saved \(age) s ago)")
    } else {
        lines.append("nothing on disk yet (first run): \(UsersRenderer().view(for: startup.state))")
    }
    let fetched = await settled(users)
    // Saves are written behind the caller, by the client's writer: flush before the process can end.
    await client.flush()
    let place = "\(tour.cacheDirectory.path) (\(tour.cache.name))"
    lines.append("then fetched: \(UsersRenderer().view(for: fetched.state)), saved in \(place)")
    lines.append("run the Playground again (same --cache-dir): this step will start from the disk.")
    return lines
}
