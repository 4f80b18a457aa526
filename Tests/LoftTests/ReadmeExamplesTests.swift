import Foundation
import Loft
import LoftTesting
import Testing

// Every ```swift block of README.md, verbatim, so that the README's code compiles and runs.
// `.ci/check-readme-examples.py` fails CI when a README block is missing from this file.

enum DownloadError: Error {
    case offline
}

enum ExampleError: Error {
    case offline
}

struct Profile: Sendable, Equatable, Codable {
    let id: Int
    var name: String
}

/// Stands for the user's own networking code in the README's examples: a server that keeps renames, and
/// answers every call from another thread after the caller went on (a real server's latency, without a
/// clock), so that an example that reads a result it did not await fails.
final class ExampleAPI: Sendable {
    private let names = Locked<[Int: String]>([:])
    private let profileListCalls = Locked(0)

    /// How many times `profiles()` was called.
    var profilesCalls: Int { profileListCalls.withLock { $0 } }

    private func later() async {
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
    }

    func profilesPage(_ page: Int) async throws -> [Profile] {
        await later()
        return page < 3
            ? [Profile(id: page * 2, name: "user \(page * 2)"), Profile(id: page * 2 + 1, name: "user")] : []
    }
    func search(_ filter: String, offset: Int, limit: Int) async throws -> [Profile] {
        await later()
        return (offset..<min(offset + limit, 45)).map { Profile(id: $0, name: "\(filter)\($0)") }
    }
    func profile(_ id: Int) async throws -> Profile {
        await later()
        return Profile(id: id, name: names.withLock { $0[id] } ?? "user \(id)")
    }
    func profiles() async throws -> [Profile] {
        profileListCalls.withLock { $0 += 1 }
        await later()
        return [Profile(id: 1, name: "Ada"), Profile(id: 2, name: "Grace")]
    }
    func rename(_ id: Int, to name: String) async throws -> Profile {
        await later()
        names.withLock { $0[id] = name }
        return Profile(id: id, name: name)
    }
    func rename(_ id: Int, to name: String, idempotencyKey: String) async throws -> Profile {
        precondition(!idempotencyKey.isEmpty)
        return try await rename(id, to: name)
    }
}

let api = ExampleAPI()

/// What an example prints: a test declares `func print` over it, so the example's own `print` calls are
/// recorded and the outputs its comments claim are checked.
final class PrintedLines: Sendable {
    private struct State: Sendable {
        var lines: [String] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    var all: [String] { state.withLock { $0.lines } }

    func record(_ items: [Any]) {
        let line = items.map { "\($0)" }.joined(separator: " ")
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.lines.append(line)
            let count = state.lines.count
            defer { state.waiters.removeAll { $0.count <= count } }
            return state.waiters.filter { $0.count <= count }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` lines were printed (an example whose output comes from a task).
    func waitFor(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let isDone = state.withLock { state -> Bool in
                guard state.lines.count < count else { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if isDone { continuation.resume() }
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct ReadmeLoftExamplesTests {
    @Test("queries, snapshot, consumer, client, mutation, renderer")
    func queries() async throws {
        let client = QueryClient()
        let profileByID = QueryDefinition<Int, Profile>(
            key: "profile",
            keyAdapter: { key, id in key.appending(id) },
            options: QueryOptions(staleTime: .seconds(30))
        ) { id in
            try await api.profile(id)
        }
        let profile = Query(profileByID, behavior: .startImmediately(42), client: client)
        let subscription = profile.statePublisher.sink { state in
            switch state {
            case .idle, .loading: print("loading…")
            case .failed(let error): print("failed: \(error)")
            case .succeed(let user): print("hello, \(user.name)")
            }
        }
        await client.waitUntilIdle()
        #expect(profile.state.value == Profile(id: 42, name: "user 42"))
        _ = subscription

        let snapshot = profile.snapshot
        print(snapshot.status, snapshot.fetchStatus, snapshot.isStale, snapshot.failureCount)
        #expect(snapshot.status == .success)

        let fresh = try await profile.refetch(request: 42).value  // waits for the fetch it started
        profile.refetch(request: 7)  // starts a fetch, returns at once
        #expect(fresh.id == 42)
        await client.waitUntilIdle()
        profile.refetch(request: 42)
        await client.waitUntilIdle()

        do {
            let header = Consumer(profileByID, 42, client: client)
            print(header.state.value?.name ?? "nobody yet")
            let cached = try client.getQueryData(profileByID, 42)  // a Profile?, typed by the definition
            #expect(cached?.name == "user 42" && header.state.value == cached)
        }
        let header = Query<Int, Profile>.Consumer(key: ["profile", 42], client: client)
        print(header.state.value?.name ?? "nobody yet")
        let sameHeader = Consumer<Profile>(key: ["profile", 42], client: client)  // the same type, shorter
        #expect(header.state.value?.name == "user 42")
        #expect(sameHeader.state.value == header.state.value)
        #expect(!sameHeader.snapshot.isStale, "it judges by the query's 30 s")

        func label<Source: ObservableQueryState>(_ source: Source) -> String {
            source.state.value.map { "\($0)" } ?? "…"
        }
        print(label(profile), label(header))
        #expect(label(header) == label(profile))
        #expect(label(header).contains("user 42"))

        let profiles = try await client.fetchQuery("profiles") { try await api.profiles() }
        client.setQueryData(Profile(id: 7, name: "Grace"), for: ["profile", 7])
        let cached = try client.getQueryData(["profile", 7], as: Profile.self)
        await client.invalidateQueries("profile").settled()
        client.setQueriesData(matching: "profile", as: Profile.self) { profile in
            Profile(id: profile.id, name: profile.name.uppercased())
        }
        #expect(profiles.count == 2)
        #expect(cached?.name == "Grace")

        let issueID = 7
        let label = "inbox"
        let status = "open"
        let byID: QueryKey = ["issue", issueID]
        let filtered: QueryKey = ["issues", ["status": status, "page": 2]]
        let named: QueryKey = "missing-\(label)"
        let filters: [String: String] = ["status": status]
        let fromVariable: QueryKey = ["issues", QueryKey.Part(filters)]  // a typed dictionary held in a variable
        #expect(byID == QueryKey("issue", 7) && named == "missing-inbox")
        #expect(filtered.hasPrefix(fromVariable))
        await client.waitUntilIdle()

        let log = client.events.sink { event in print(event) }
        _ = log

        do {
            let renameProfile = MutationDefinition<String, Profile>(key: ["profile", "rename"]) { name in
                try await api.rename(42, to: name)
            }
            let rename = Mutation(renameProfile, client: client)
            rename.execute(with: "Ada Lovelace") { profile, invalidate in
                invalidate(["profile", 42], .lastData)
            }
            let renamed = try await rename.mutate("Ada")
            #expect(renamed.name == "Ada")
            #expect(client.mutations(matching: MutationFilter(key: ["profile", "rename"])).count == 2)
            await client.waitUntilIdle()
        }
        let rename = Mutation<String, Profile>(client: client) { name in
            try await api.rename(42, to: name)
        }
        rename.execute(with: "Ada Lovelace") { profile, invalidate in
            invalidate(["profile", 42], .lastData)
        }
        let renamed = try await rename.mutate("Ada")
        #expect(renamed.name == "Ada")
        print(rename.status, rename.data?.name ?? "-", rename.failureCount, rename.submittedAt as Any)
        #expect(rename.status == .success && rename.request == "Ada")
        await client.waitUntilIdle()

        client.setMutationCallbacks(
            MutationCallbacks(onError: { error, call in print("mutation \(call.id) failed: \(error)") }))

        let like = Mutation<Int, Profile>(
            client: client,
            options: MutationOptions(
                onMutate: { id -> Profile? in
                    let key: QueryKey = ["profile", id]
                    client.cancelQueries(key)
                    let before = try? client.getQueryData(key, as: Profile.self)
                    if let before { client.setQueryData(Profile(id: id, name: before.name + " ♥"), for: key) }
                    return before
                },
                onError: { _, id, before in
                    if let before = before ?? nil { client.setQueryData(before, for: ["profile", id]) }
                },
                invalidates: { _, id in [.exact(["profile", id])] },
                invalidatesWhen: .settled
            )
        ) { id in try await api.rename(id, to: "liked") }
        profile.refetch(request: 42)  // a refetch in flight when the optimistic write comes: cancelled first
        _ = try? await like.mutate(42)
        await client.waitUntilIdle()
        #expect(profile.state.value?.name == "liked", "the server's value, refetched once the call settled")

        let save = Mutation<String, Profile>(client: client, options: MutationOptions(scope: "profile-42")) { name in
            try await api.rename(42, to: name)
        }
        save.execute(with: "Ada")
        save.execute(with: "Ada Lovelace")  // sent once the first one settled
        await client.waitUntilIdle()
        #expect(save.state.value?.name == "Ada Lovelace")

        let everyone = Query<Void, [Profile]>(
            key: "everyone", behavior: .startImmediately(()),
            options: QueryOptions(tags: ["profiles"]), client: client
        ) { try await api.profiles() }
        let create = Mutation<String, Profile>(
            client: client,
            options: MutationOptions(invalidates: { _, _ in [.tag("profiles"), .exact(["profile", 99])] })
        ) { name in try await api.rename(99, to: name) }
        _ = try await create.mutate("Edsger")  // returns once it invalidated; "everyone" refetches meanwhile
        await client.invalidateQueries(tagged: "profiles").settled()  // waits for that refetch

        let listCalls = api.profilesCalls
        let add = Mutation<String, Profile>(
            client: client,
            options: MutationOptions(invalidates: { _, _ in [.tag("profiles")] }, waitsForInvalidation: true)
        ) { name in try await api.rename(100, to: name) }
        _ = try await add.mutate("Barbara")  // "everyone" is refetched before `mutate` returns
        #expect(api.profilesCalls == listCalls + 1, "the refetch ran before mutate returned")
        #expect(everyone.snapshot.fetchStatus == .idle)
        #expect(everyone.state.value?.count == 2)

        let renaming = MutationList(matching: MutationFilter(key: ["profile"], status: .pending), client: client) {
            $0.request(as: String.self)
        }
        print(renaming.calls)  // the names being sent, in submission order
        #expect(renaming.calls.isEmpty)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loft-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let saving = QueryClient(cache: JSONFileQueryCache(directory: folder))
        saving.setMutationDefaults(
            MutationDefaults<String, Profile>(options: MutationOptions(scope: "profile-42")) { name, call in
                try await api.rename(42, to: name, idempotencyKey: call.idempotencyKey)
            },
            for: ["profile", "rename"])
        saving.resumePausedMutations()

        let rename42 = Mutation<String, Profile>(
            client: saving, options: MutationOptions(scope: "profile-42", mutationKey: ["profile", "rename"])
        ) { name, call in
            try await api.rename(42, to: name, idempotencyKey: call.idempotencyKey)
        }
        rename42.execute(with: "Ada")
        saving.setOnline(true)  // whatever the host said of its network
        await saving.untilMutationsSettled()
        await saving.waitUntilIdle()
        #expect(rename42.state.value?.name == "Ada")
        #expect(saving.mutationCache.journal.records.isEmpty)

        struct ProfileRenderer: QueryRenderer {
            func loadingView() -> String { "Loading…" }
            func successView(for profile: Profile) -> String { "👤 \(profile.name)" }
            func failureView(for error: any Error) -> String { "⚠️ \(error)" }
        }
        print(ProfileRenderer().view(for: profile.state))
        print(CacheInspector(client: client).render())
        #expect(ProfileRenderer().view(for: profile.state).hasPrefix("👤"))
    }

    @Test("using Loft in a command-line tool")
    func commandLineTool() async throws {
        let api = ExampleAPI()
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "loft-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let tool = QueryClient(
            cache: JSONFileQueryCache(directory: cacheFolder),
            defaults: QueryDefaults(retry: .never)  // fail fast: the first error, not three retries
        )
        let profileID = 42
        let user = Query<Int, Profile>(
            key: "profile", keyAdapter: { key, id in key.appending(id) }, client: tool
        ) { id in try await api.profile(id) }
        do {
            let shown = try await user.value(for: profileID)  // the cached value when fresh, else a fetch
            print(shown.name)
            let renamer = Mutation<String, Profile>(
                client: tool,
                options: MutationOptions(
                    invalidates: { _, _ in [.exact(["profile", profileID])] }, waitsForInvalidation: true)
            ) { name in try await api.rename(profileID, to: name) }
            _ = try await renamer.mutate("Ada")  // returns once the profile was refetched
            print(user.state.value?.name ?? "-")
        } catch {
            print("error: \(error)")
        }
        await tool.flush()  // before exiting: the cache's write-behind saves reach the disk
        #expect(user.state.value?.name == "Ada", "refetched before mutate returned")
        let saved: Profile? = try JSONFileQueryCache(directory: cacheFolder).get(for: ["profile", 42])
        #expect(saved?.name == "Ada")
    }

    @Test("pages: infinite and paginated queries, paged-list renderer")
    func pages() async throws {
        let client = QueryClient()
        let feed = InfiniteQuery<Int, [Profile]>(
            key: "feed",
            initialPageParam: 0,
            getNextPageParam: { lastPage, _, lastParam, _ in lastPage.isEmpty ? nil : lastParam + 1 },
            getPreviousPageParam: { _, _, firstParam, _ in firstParam > 0 ? firstParam - 1 : nil },
            maxPages: 10,
            behavior: .startImmediately(()),
            client: client
        ) { page in try await api.profilesPage(page) }
        let firstPages = try await feed.fetchNextPage().value  // waits for the page, returns every page
        let loaded = firstPages.pages.flatMap { $0 }
        if feed.hasNextPage, !feed.isFetchingNextPage { feed.fetchNextPage() }  // starts the load, returns at once
        #expect(loaded.count == 2, "the first page (the load it joined), there on the line after the await")

        let directory = PaginatedQuery<String, LimitOffsetPaginatedQueryKey, [Profile]>(
            key: "directory",
            firstPage: LimitOffsetPaginatedQueryKey(limit: 20),
            keyAdapter: { key, filter in key.appending(.string(filter)) },
            behavior: .startImmediately("a"),
            client: client
        ) { filter, page in try await api.search(filter, offset: page.offset, limit: page.limit) }
        let firstItems = try await directory.refetch(request: "a").value  // the first page's items
        let moreItems = try await directory.fetchNextPage().value  // the items of every page loaded
        directory.refetch(request: "b")
        #expect(firstItems.count == 20 && moreItems.count == 40)

        struct DirectoryRenderer: PagedListRenderer {
            func loadingView() -> String { "Loading…" }
            func failureView(for error: any Error) -> String { "⚠️ \(error)" }
            func itemView(for profile: Profile) -> String { "• \(profile.name)" }
        }
        print(DirectoryRenderer().view(for: directory))
        print(DirectoryRenderer().view(for: feed))

        _ = loaded
        await client.waitUntilIdle()
        directory.fetchNextPage()
        await client.waitUntilIdle()
        #expect(directory.state.value?.first?.name == "b0")
        #expect(feed.state.value?.pages.isEmpty == false)
    }

    @Test("parallel, dependent and streamed queries")
    func composition() async throws {
        let client = QueryClient()
        let dashboard = Queries(
            [
                QueriesMember(key: ["profile", 1]) { try await api.profile(1) },
                QueriesMember(key: "profiles") { try await api.profiles() },
            ],
            client: client
        ) { results in
            (
                results.value(for: ["profile", 1], as: Profile.self)?.name,
                results.value(for: "profiles", as: [Profile].self)?.count
            )
        }
        let dashboardLog = dashboard.combinedPublisher.sink { print($0) }
        dashboard.setMembers([QueriesMember(key: "profiles") { try await api.profiles() }])

        let author = Query<Int, Profile>(
            key: "author", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(7), client: client
        ) {
            try await api.profile($0)
        }
        let authorPosts = Query<String, [Profile]>(
            key: "posts-by", keyAdapter: { $0.appending(.string($1)) }, client: client
        ) {
            try await api.search($0, offset: 0, limit: 10)
        }
        authorPosts.follow(author.valuePublisher) { profile in profile.name }

        let ticker = StreamedQuery<Int>(key: "ticker", behavior: .startImmediately(()), client: client) {
            AsyncStream { continuation in
                for tick in 1...3 { continuation.yield(tick) }
                continuation.finish()
            }
        }
        let tickerLog = ticker.statePublisher.sink { state in print(state.value ?? []) }

        await client.waitUntilIdle()
        #expect(dashboard.combined.1 == 2)
        #expect(authorPosts.state.value?.count == 10)
        #expect(ticker.state.value == [1, 2, 3])
        dashboardLog.cancel()
        tickerLog.cancel()
    }

    @Test("persistence: providers, policies, events, hydration")
    func persistence() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-cache")
        let disk = JSONFileQueryCache(directory: folder, byteQuota: 50_000_000)
        let persistedClient = QueryClient(
            cache: disk,
            cacheConfig: QueryCacheConfig(invalidationPolicy: .expiresAfter(24 * 3600), usagePolicy: .useAndThenFetch)
        )
        let me = Query<Void, Profile>(key: "me", behavior: .startImmediately(()), client: persistedClient) {
            try await api.profile(42)
        }
        if me.snapshot.isRestored { print("showing the saved copy while fetching") }

        let settings = Query<Void, Profile>(
            key: "settings",
            cache: TwoLevelQueryCache(memory: InMemoryQueryCache(capacity: 100), disk: disk),
            cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching),
            client: persistedClient
        ) { try await api.profile(1) }

        // Compiled, not run: the global default can be set once per process, and the tests use none.
        func startUp() throws {
            try QueryPersistenceDefaults.configure(cache: disk, config: QueryCacheConfig(usagePolicy: .useIfFetchFails))
        }

        let diskTrouble = persistedClient.events.sink { event in
            if case .persistenceFailed(let key, let error) = event { print("cache trouble at \(key): \(error)") }
        }

        _ = try await me.value()
        _ = try await settings.value()
        await persistedClient.waitUntilIdle()
        persistedClient.setQueryData(Profile(id: 42, name: "Ada"), for: "me")
        await persistedClient.flush()  // every queued save is on disk (or reported as persistenceFailed)
        let onDisk = try disk.get(for: "me", as: Profile.self)
        #expect(onDisk?.name == "Ada")
        let saved = try JSONEncoder().encode(persistedClient.dehydrate())
        let restoredClient = QueryClient()
        restoredClient.hydrate(try JSONDecoder().decode(DehydratedState.self, from: saved))
        #expect(try restoredClient.getQueryData("me", as: Profile.self)?.id == 42)
        #expect(try disk.get(for: "me", as: Profile.self)?.id == 42)
        diskTrouble.cancel()
        try disk.removeAll()
    }

    @Test("options")
    func options() {
        let options = QueryOptions<[Profile]>(
            staleTime: .seconds(60),
            retry: .skippingClientErrors,
            select: { $0.sorted { $0.name < $1.name } },
            placeholderData: .value([])
        )
        #expect(options.staleTime == .seconds(60))
    }

    @Test("testing with LoftTesting")
    func testing() async {
        let test = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.fail(ExampleError.offline), .fail(ExampleError.offline), .answer(1))
        let counter = Query(
            key: "counter", behavior: .startImmediately(()), client: test.client, fetcher: fetcher.fetch)
        await test.until { counter.state.error != nil }  // no retry: the first failure is the query's
        let retried = Query(
            key: "retried", behavior: .startImmediately(()), options: QueryOptions(retry: .count(1)),
            client: test.client, fetcher: fetcher.fetch)
        await test.waitUntilIdle()  // its first attempt failed; its retry waits on the clock
        await test.advance(by: .seconds(1))  // its own retry's back-off, in virtual time
        await test.until { retried.state.value == 1 }
        assert(test.fetchReasons(for: "retried") == [.firstUse])
        test.setOnline(false)
        #expect(counter.state.error is ExampleError)
        #expect(retried.state.value == 1)
        #expect(fetcher.callCount == 3)

        let host = ScriptedHostSignals()
        test.client.follow(host.signals)
        host.send(.online(false))  // as the network going away would
        assert(!test.client.isOnline)
        host.send(.memoryPressure(.critical))  // drops every entry nobody observes
        #expect(!test.client.isOnline)
        #expect(test.client.existingEntry(for: "counter") != nil, "observed: kept")
        test.client.stopFollowing()
    }

    @Test("following the host")
    func followingTheHost() {
        let app = QueryClient(memoryBudget: .entries(10_000))
        app.follow(.host)  // connectivity and memory pressure, live; focus too on Apple platforms
        app.stopFollowing()  // at shutdown
        #expect(!app.isFollowingHost)
        #expect(app.follow(.host), "it can follow again")
        app.stopFollowing()
    }
}

@Suite(.timeLimit(.minutes(1))) struct ReadmeExamplesTests {
    @Test("subjects and subscriptions")
    func subjects() {
        let temperature = PassthroughSubject<Int, Never>()
        var subscriptions = Set<Subscription>()
        temperature.sink { print("now \($0)°") }.store(in: &subscriptions)
        temperature.send(21)  // prints "now 21°"
        subscriptions.removeAll()  // cancels
        temperature.send(22)  // nobody is listening
        #expect(temperature.subscriberCount == 0)
    }

    @Test("current value subject")
    func currentValue() {
        let user = CurrentValueSubject<String, Never>("guest")
        let header = user.sink { print("hello, \($0)") }  // prints "hello, guest" at once
        user.value = "ada"  // prints "hello, ada"
        header.cancel()
        #expect(user.subscriberCount == 0)
    }

    @Test("completion")
    func completion() {
        let printed = PrintedLines()
        @Sendable func print(_ items: Any...) { printed.record(items) }
        let download = PassthroughSubject<Int, DownloadError>()
        let progress = download.sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { print("failed: \(error)") }
            },
            receiveValue: { print("\($0)%") }
        )
        download.send(50)
        download.send(completion: .failure(.offline))  // prints "failed: offline"
        _ = progress
        #expect(printed.all == ["50%", "failed: offline"])
    }

    @Test("operators")
    func operators() {
        let printed = PrintedLines()
        @Sendable func print(_ items: Any...) { printed.record(items) }
        let total = [3, 3, 8, 1, 8, 12].publisher
            .removeDuplicates()
            .filter { $0 > 2 }
            .map { $0 * 10 }
            .scan(0, +)
            .sink { print("running total \($0)") }  // 30, 110, 190, 310
        _ = total
        #expect(printed.all == ["running total 30", "running total 110", "running total 190", "running total 310"])
    }

    @Test("combineLatest")
    func combineLatest() {
        let printed = PrintedLines()
        @Sendable func print(_ items: Any...) { printed.record(items) }
        let name = PassthroughSubject<String, Never>()
        let count = PassthroughSubject<Int, Never>()
        let badge = name.combineLatest(count)
            .map { "\($0) has \($1) new messages" }
            .sink { print($0) }
        name.send("ada")
        count.send(2)  // prints "ada has 2 new messages"
        _ = badge
        #expect(printed.all == ["ada has 2 new messages"])
    }

    @Test("sources")
    func sources() async {
        let printed = PrintedLines()
        @Sendable func print(_ items: Any...) { printed.record(items) }
        let answer = Future<Int, Never> { promise in
            promise(.success(42))
        }
        let fromAsync = AsyncFuture { () async throws -> String in
            "fetched"
        }
        let both = answer.sink { print($0) }  // prints 42
        let later = fromAsync.sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
        _ = (both, later)
        #expect(printed.all.first == "42")
        await printed.waitFor(2)
        #expect(printed.all == ["42", "fetched"], "the async future's value arrives once its task ran")
    }

    @Test("query defaults and filters")
    func defaultsAndFilters() async {
        let client = QueryClient(scheduler: TestScheduler())
        client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60)), for: "settings")
        let live = QueryDefaults(retry: .never, pollingBehavior: .pollEvery(.seconds(30)))
        client.setQueryDefaults(live, for: ["settings", "live"])
        // ["settings", "live", 1]: fresh for 60 s (from "settings"); no retries, and polled (from the longer prefix).
        client.setOnline(false)
        let theme: QueryKey = ["settings", "theme"]
        let settings = Query<Void, String>(key: theme, behavior: .startImmediately(()), client: client) { "dark" }
        let paused = client.isFetching(filter: QueryFilter(fetchStatus: .paused))
        client.setOnline(true)
        await client.invalidateQueries(["todos", ["status": "done"]], filter: QueryFilter(type: .active)).settled()
        client.removeQueries("todos", filter: .inactive)
        client.cancelQueries("todos", revert: false)
        await client.waitUntilIdle()
        #expect(paused == 1)
        #expect(settings.state.value == "dark")
        #expect(client.defaults(for: ["settings", "live", 1]).staleTime == .seconds(60))
        #expect(client.defaults(for: ["settings", "live", 1]).pollingBehavior == .pollEvery(.seconds(30)))
    }

    @Test("virtual time")
    func virtualTime() {
        let scheduler = TestScheduler()
        let search = PassthroughSubject<String, Never>()
        let debounced = search.debounce(for: .milliseconds(300), scheduler: scheduler)
        let results = debounced.sink { print("search for \($0)") }
        search.send("lo")
        search.send("loft")
        scheduler.advance(by: .milliseconds(300))  // prints "search for loft"
        _ = results
        #expect(scheduler.pendingCount == 0)
    }

    @Test("async values")
    func asyncValues() async {
        let printed = PrintedLines()
        @Sendable func print(_ items: Any...) { printed.record(items) }
        func printAll() async {
            for await value in [1, 2, 3].publisher.values {
                print(value)
            }
        }
        await printAll()
        #expect(printed.all == ["1", "2", "3"])
    }

    @Test("Loft re-exports Signals: one import is enough")
    func reexport() {
        let subject: any Signals.Publisher<Int, Never> = Just(1)
        _ = subject
        #expect(subject is Just<Int>)
    }

    @Test("sharing a client's changes with other clients")
    func sharingChanges() throws {
        let client = QueryClient(scheduler: TestScheduler())
        let other = QueryClient(defaults: QueryDefaults(staleTime: .infinity), scheduler: TestScheduler())
        other.setQueryData(User(id: 1, name: "Ada"), for: ["users", 1])
        let published = PublisherRecorder(client.sharedChanges)
        let echoed = PublisherRecorder(other.sharedChanges)
        #expect(try !other.snapshot(for: ["users", 1], as: User.self).isStale)

        let forward = client.sharedChanges.sink { change in other.apply(change) }
        client.invalidateQueries(["users"], exact: false)  // other's ["users", …] are stale too
        other.changesMissed(from: "a link that was down")  // everything other holds is stale

        #expect(try other.snapshot(for: ["users", 1], as: User.self).isStale)
        #expect(published.values == [SharedChange(.invalidate(.active), [.prefix(["users"])])])
        #expect(echoed.values.isEmpty)
        forward.cancel()
    }
}
