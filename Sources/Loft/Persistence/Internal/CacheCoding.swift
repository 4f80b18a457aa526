#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How every provider turns values into JSON and back, with typed errors.
package enum CacheCoding {
    package static func encode<Value: Encodable>(_ value: Value, key: QueryKey) throws(CacheError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .encodingFailed(key: key, type: "\(Value.self)", reason: "\(error)")
        }
    }

    package static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, key: QueryKey, storedType: String
    ) throws(CacheError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .undecodableValue(
                key: key, storedType: storedType, expectedType: "\(Value.self)", reason: CacheError.reason(for: error))
        }
    }
}
