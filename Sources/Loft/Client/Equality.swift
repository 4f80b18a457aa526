/// Whether two type-erased values are equal: true only when both are the same `Equatable` type and `==`.
///
/// Structural sharing uses it: a refetched value equal to the old one keeps the old one and notifies nobody.
package func areEqual(_ lhs: (any Sendable)?, _ rhs: (any Sendable)?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let lhs?, let rhs?):
        guard let lhs = lhs as? any Equatable else { return false }
        return lhs.isEqual(to: rhs)
    default: return false
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
