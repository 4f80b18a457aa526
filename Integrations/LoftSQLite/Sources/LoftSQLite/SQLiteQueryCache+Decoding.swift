import Foundation
import Loft

extension SQLiteQueryCache {
    /// `data` decoded as `Value`.
    ///
    /// - Throws: `CacheError.undecodableValue`, naming the stored type and the coding path.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data, key: QueryKey, storedType: String)
        throws(CacheError) -> Value
    {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .undecodableValue(
                key: key, storedType: storedType, expectedType: "\(Value.self)", reason: CacheError.reason(for: error))
        }
    }
}
