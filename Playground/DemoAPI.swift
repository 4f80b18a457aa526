import Loft

/// The built-in demo service: in-process, with simulated latency and failures. An actor, at the edge.
///
/// Its latency runs on the scheduler it is given (the client's), so the tour's timing is the library's: on a
/// `TestScheduler` the same service answers when the test advances time.
actor DemoAPI: TourAPI {
    nonisolated let name = "the built-in demo API (in-process, simulated latency)"
    private var storedUsers = [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")]
    private let storedRepos = [
        1: [Repo(name: "analytical-engine", stars: 1843), Repo(name: "notes", stars: 97)],
        2: [Repo(name: "cobol", stars: 1959), Repo(name: "compiler", stars: 52)],
    ]
    private var requests = 0
    private var ticks = 0
    private let latency: Duration
    private let scheduler: any Scheduler

    init(scheduler: any Scheduler, latency: Duration = .milliseconds(120)) {
        self.scheduler = scheduler
        self.latency = latency
    }

    func users() async throws -> [User] {
        try await respond { storedUsers }
    }

    func repos(of userID: Int) async throws -> [Repo] {
        try await respond { storedRepos[userID] ?? [] }
    }

    func createUser(named name: String) async throws -> User {
        try await respond {
            let user = User(id: (storedUsers.map(\.id).max() ?? 0) + 1, name: name)
            storedUsers.append(user)
            return user
        }
    }

    func flaky() async throws -> [User] {
        _ = try await respond { () }
        throw HTTPFailure(status: 503, url: "demo://flaky")
    }

    func serverTime() async throws -> Int {
        try await respond {
            ticks += 1
            return ticks
        }
    }

    func requestCount() -> Int {
        requests
    }

    private func respond<T>(_ body: () -> T) async throws -> T {
        requests += 1
        try await scheduler.wait(for: latency)
        return body()
    }
}
