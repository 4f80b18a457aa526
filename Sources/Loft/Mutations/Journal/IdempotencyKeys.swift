/// Makes the idempotency keys of a client's mutation calls: random UUIDs (version 4 in form, upper-case like
/// `UUID().uuidString`), unique within the process and, with 128 random bits behind each, across processes and
/// restarts.
///
/// The system's random source is read once, for the seed; each key then comes from two SplitMix64 streams
/// (each a bijection of its counter, so no key repeats within the process). A key is kept as its two words and
/// written out only when read (`IdempotencyKey.string`): most calls never show theirs to anyone.
struct IdempotencyKeys: Sendable {
    private var first: UInt64
    private var second: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        first = system.next()
        second = system.next()
    }

    /// The next key.
    mutating func next() -> IdempotencyKey {
        var high = Self.splitMix(&first)
        var low = Self.splitMix(&second)
        // Version 4 and the RFC 4122 variant, so that the key reads as the UUID it is.
        high = (high & ~0xF000) | 0x4000
        low = (low & ~(0xC000 << 48)) | (0x8000 << 48)
        return IdempotencyKey(.generated(high: high, low: low))
    }

    /// Advances `state` and returns its next output (Steele, Lea and Flood's SplitMix64).
    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// One call's idempotency key: made in this process (two words, written out when read), or restored after a
/// restart (the text it was saved as). Equal when their text is.
struct IdempotencyKey: Sendable, Hashable {
    enum Source: Sendable {
        case generated(high: UInt64, low: UInt64)
        case restored(String)
    }

    let source: Source

    init(_ source: Source) {
        self.source = source
    }

    /// The key as text, e.g. `"3F2B8C1A-9D4E-4B7A-8C21-0E5F6A7B8C9D"` (written without `String(format:)`).
    var string: String {
        switch source {
        case .restored(let text):
            return text
        case .generated(let high, let low):
            return String(unsafeUninitializedCapacity: 36) { buffer in
                let digits: StaticString = "0123456789ABCDEF"
                var position = 0
                for nibble in 0..<32 {
                    if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = nibble < 16 ? high : low
                    let digit = Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)
                    buffer[position] = digits.utf8Start[digit]
                    position += 1
                }
                return position
            }
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.source, rhs.source) {
        case (.generated(let leftHigh, let leftLow), .generated(let rightHigh, let rightLow)):
            leftHigh == rightHigh && leftLow == rightLow
        default:
            lhs.string == rhs.string
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(string)
    }
}
