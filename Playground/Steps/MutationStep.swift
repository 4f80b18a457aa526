import Loft

let mutationStep = TourStep(title: "A mutation creates a user and invalidates the list by its tag") { tour in
    // The users query declares the tag "users"; the mutation names it, and on success the list refetches.
    let createUser = Mutation<String, User>(
        client: tour.client, options: MutationOptions(invalidates: { _, _ in [.tag("users")] })
    ) { name in try await tour.api.createUser(named: name) }
    var lines = ["mutation: \(CreateUserRenderer().view(for: createUser.state))"]
    do {
        _ = try await createUser.mutate("Linus")
        let snapshot = await settled(tour.users)
        lines.append("mutation: \(CreateUserRenderer().view(for: createUser.state))")
        lines.append("list after invalidation: \(UsersRenderer().view(for: snapshot))")
    } catch {
        lines.append("mutation: \(CreateUserRenderer().view(for: createUser.state))")
        lines.append("list unchanged: \(UsersRenderer().view(for: tour.users.state))")
    }
    return lines
}
