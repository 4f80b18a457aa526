/// An item as the upstream serves it: its name changes with each `PUT`, and its version counts the changes.
public struct Item: Codable, Sendable, Equatable {
    /// The item's number.
    public var id: Int
    /// Its name.
    public var name: String
    /// How many times it was renamed, plus one.
    public var version: Int

    /// An item.
    public init(id: Int, name: String, version: Int) {
        self.id = id
        self.name = name
        self.version = version
    }
}

/// A change of an item's name (`PUT /items/:id`).
public struct ItemChange: Codable, Sendable, Equatable {
    /// The item to rename.
    public var id: Int
    /// Its new name.
    public var name: String

    /// A change of item `id` to `name`.
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
