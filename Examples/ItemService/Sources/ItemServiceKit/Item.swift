/// An item as the upstream serves it: its name changes with each `PUT`, and its version counts the changes.
public struct Item: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var version: Int

    public init(id: Int, name: String, version: Int) {
        self.id = id
        self.name = name
        self.version = version
    }
}

/// A change of an item's name (`PUT /items/:id`).
public struct ItemChange: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
