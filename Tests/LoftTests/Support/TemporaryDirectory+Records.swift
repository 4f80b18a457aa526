import Foundation

@testable import Loft

extension TemporaryDirectory {
    /// The bytes of the `JSONFileQueryCache` record files in the folder, as the file system counts them.
    func recordBytes() throws -> Int {
        try names.filter(CacheFileName.isRecord).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
    }
}
