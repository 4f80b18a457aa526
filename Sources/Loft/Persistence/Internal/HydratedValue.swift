#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hydrated data whose type is not known yet: its JSON, decoded by the first typed read (`cast`).
package struct HydratedValue: Sendable {
    package var json: Data
    package var type: String

    package init(json: Data, type: String) {
        self.json = json
        self.type = type
    }

    /// The data decoded as a `T`, or nil when `T` is not `Decodable` or the JSON is not a `T`.
    package func decode<T>(as type: T.Type) -> T? {
        guard let decodable = T.self as? any Decodable.Type else { return nil }
        return decodeValue(decodable) as? T
    }

    private func decodeValue<Decoded: Decodable>(_ type: Decoded.Type) -> Decoded? {
        try? JSONDecoder().decode(Decoded.self, from: json)
    }
}
