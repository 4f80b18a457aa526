/// SplitMix64: the same numbers on every run.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededRandom {
    /// A number in `0..<count`.
    mutating func below(_ count: Int) -> Int {
        Int(next() % UInt64(count))
    }

    /// One of `elements`.
    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// `text` with one to four mutations, as a fuzzer makes them: a piece inserted, a character removed or
    /// replaced by a piece's first, or the rest cut off.
    mutating func mutation(of text: String, with pieces: [String]) -> String {
        var text = Array(text)
        for _ in 0...below(3) {
            let at = below(text.count + 1)
            switch below(4) {
            case 0: text.insert(contentsOf: pick(pieces), at: at)
            case 1 where at < text.count: text.remove(at: at)
            case 2 where at < text.count: text[at] = pick(pieces).first ?? " "
            default: text = Array(text.prefix(at))
            }
        }
        return String(text)
    }
}
