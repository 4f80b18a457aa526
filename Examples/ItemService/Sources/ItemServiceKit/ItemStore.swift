/// What the service's routes read and write through: Loft (`LoftItemStore`) or the cache a developer writes by
/// hand (`ActorItemStore`), so that both serve the same routes and are measured side by side.
public protocol ItemStore: Sendable {
    /// The item `id`: from the cache when it holds it, else from the upstream.
    func item(_ id: Int) async throws -> Item
    /// Renames an item at the upstream; the next read sees the change.
    func update(_ change: ItemChange) async throws -> Item
}
