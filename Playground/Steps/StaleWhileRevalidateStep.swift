import Loft

let staleWhileRevalidateStep = TourStep(
    title: "Stale-while-revalidate: stale data shows at once while a background refetch runs"
) { tour in
    let screen = Query<Void, [User]>(key: "users", behavior: .startImmediately(()), client: tour.client) {
        try await tour.api.users()
    }
    let immediately = UsersRenderer().view(for: screen.snapshot)
    let snapshot = await settled(screen)
    return [
        "on appear: \(immediately)",
        "a moment later: \(UsersRenderer().view(for: snapshot))",
    ]
}
