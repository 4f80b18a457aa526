/// A record large enough that a write takes a while, and whose every byte says which round wrote it, so a mix
/// of two rounds is visible.
struct CrashRecord: Codable, Equatable {
    var round: Int
    var key: Int
    var body: String

    init(round: Int, key: Int) {
        self.round = round
        self.key = key
        let digit = Character(String(round % 10))
        body = String(repeating: digit, count: 200_000)
    }

    /// Whether the body is the one its round writes.
    var isWhole: Bool {
        body == CrashRecord(round: round, key: key).body
    }
}
