import Loft

let mutationStep = TourStep(title: "A mutation creates a user and invalidates the list") { tour in
    let createUser = Mutation<String, User>(client: tour.client) { name in try await tour.api.createUser(named: name) }
    var lines = ["mutation: \(CreateUserRenderer().view(for: createUser.state))"]
    do {
        _ = try await createUser.mutate("Linus")
        await tour.client.invalidateQueries("users")
        let snapshot = await settled(tour.users)
        lines.append("mutation: \(CreateUserRenderer().view(for: createUser.state))")
        lines.append("list after invalidation: \(UsersRenderer().view(for: snapshot))")
    } catch {
        lines.append("mutation: \(CreateUserRenderer().view(for: createUser.state))")
        lines.append("list unchanged: \(UsersRenderer().view(for: tour.users.state))")
    }
    return lines
}
