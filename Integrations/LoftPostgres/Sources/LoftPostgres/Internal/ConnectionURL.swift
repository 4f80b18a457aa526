/// The parts of `postgres://user[:password]@host[:port][/database]`; percent-escapes in the user, the password
/// and the database are decoded.
struct ConnectionURL: Equatable {
    var username: String
    var password: String?
    var host: String
    var port: Int
    var database: String?

    init?(_ url: String) {
        var rest = Substring(url)
        guard let scheme = ["postgres://", "postgresql://"].first(where: { rest.hasPrefix($0) }) else { return nil }
        rest = rest.dropFirst(scheme.count)
        guard let at = rest.lastIndex(of: "@") else { return nil }
        let credentials = rest[..<at]
        rest = rest[rest.index(after: at)...]
        let user = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = user.first.flatMap({ Self.decoded($0) }), !name.isEmpty else { return nil }
        username = name
        if user.count == 2 {
            guard let secret = Self.decoded(user[1]) else { return nil }
            password = secret
        }
        let address: Substring
        if let slash = rest.firstIndex(of: "/") {
            address = rest[..<slash]
            let name = rest[rest.index(after: slash)...]
            if !name.isEmpty {
                guard let decoded = Self.decoded(name) else { return nil }
                database = decoded
            }
        } else {
            address = rest
        }
        let hostAndPort = address.split(separator: ":", omittingEmptySubsequences: false)
        guard let hostName = hostAndPort.first, !hostName.isEmpty, hostAndPort.count <= 2 else { return nil }
        host = String(hostName)
        if hostAndPort.count == 2 {
            guard let number = Int(hostAndPort[1]), (1...65_535).contains(number) else { return nil }
            port = number
        } else {
            port = 5432
        }
    }

    /// `text` with its `%XX` escapes decoded, or nil when an escape is malformed or the bytes are not UTF-8.
    private static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            let byte = text.utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = text.utf8.index(after: index)
                guard high < text.utf8.endIndex else { return nil }
                let low = text.utf8.index(after: high)
                guard low < text.utf8.endIndex,
                    let value = UInt8(String(decoding: [text.utf8[high], text.utf8[low]], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
                index = text.utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = text.utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
