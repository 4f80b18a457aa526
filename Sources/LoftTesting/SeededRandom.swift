/// Random numbers that are the same on every run (SplitMix64), for tests that walk a structure through many
/// random steps and compare it with a simple model: a failure names its seed, and the seed reproduces it.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let step = Int.random(in: 0..<10, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence of `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
