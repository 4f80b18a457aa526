import Loft

/// Renders the user list.
struct UsersRenderer: QueryRenderer {
    func idleView() -> String { "(not loaded)" }
    func loadingView() -> String { "⏳ loading users…" }
    func successView(for users: [User]) -> String { "👥 " + users.map(\.name).joined(separator: ", ") }
    func failureView(for error: any Error) -> String { "⚠️  could not load users: \(error)" }
}

/// Renders a user's repositories.
struct ReposRenderer: QueryRenderer {
    func loadingView() -> String { "⏳ loading repositories…" }
    func successView(for repos: [Repo]) -> String {
        "📦 " + repos.map { "\($0.name) ★\($0.stars)" }.joined(separator: ", ")
    }
    func failureView(for error: any Error) -> String { "⚠️  \(error)" }
}

/// Renders the server clock.
struct TimeRenderer: QueryRenderer {
    func loadingView() -> String { "⏳ asking the server for the time…" }
    func successView(for tick: Int) -> String { "🕑 server tick \(tick)" }
    func failureView(for error: any Error) -> String { "⚠️  \(error)" }
}

/// Renders the create-user mutation.
struct CreateUserRenderer: MutationRenderer {
    func loadingView() -> String { "⏳ creating user…" }
    func successView(for user: User) -> String { "✅ created \(user.name) (#\(user.id))" }
    func failureView(for error: any Error) -> String { "❌ could not create the user: \(error)" }
}
