/// Small text helpers for the renderers, so that rendering needs no Foundation.
extension String {
    /// This string padded with spaces on the right to `width` characters (unchanged when longer).
    package func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension Int {
    /// This number with at least two digits: `05`.
    package var twoDigits: String {
        self < 10 && self >= 0 ? "0\(self)" : String(self)
    }
}
