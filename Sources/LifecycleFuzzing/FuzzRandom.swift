/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so a property that needs random
/// choices (where to split a byte stream) makes the same ones for the same input, and a failure found by
/// the fuzzer reproduces from its input alone.
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// Seeded from the bytes themselves (FNV-1a), so the choices are a function of the input.
    public init(bytes: some Sequence<UInt8>) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = hash
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` places to cut an input of `length` bytes, from 0 to `length`, in ascending order (repeats
    /// allowed: an empty piece is a read that brought nothing).
    public mutating func cuts(count: Int, length: Int) -> [Int] {
        (0..<count).map { _ in Int(next() % UInt64(length + 1)) }.sorted()
    }
}
