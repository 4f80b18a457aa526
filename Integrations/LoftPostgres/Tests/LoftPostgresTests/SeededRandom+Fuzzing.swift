import LoftTesting

/// What the fuzz-style tests draw from LoftTesting's `SeededRandom` (the same numbers on every run).
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
