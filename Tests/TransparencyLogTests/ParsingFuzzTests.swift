import LifecycleCrypto
import Testing

@testable import TransparencyLog

/// Every parser of outside input survives random and mutated bytes: a wrong file is an error, never a trap.
@Suite("Parsers never trap on any bytes")
struct ParsingFuzzTests {
    /// Valid inputs of every kind, to mutate from.
    static func seeds() throws -> [[UInt8]] {
        let vectors = try NoteVectors.load()
        var log = try LogFixture()
        try log.append(300)
        let receipt = try log.publisher.receipt(index: 7, extra: log.entries[7]).bytes
        return [
            Array((vectors.text + "\n" + vectors.peterSignature + vectors.enochSignature).utf8),
            try log.read("checkpoint"), receipt, Array(vectors.peterVerifierKey.utf8),
            Array("tile/2/x001/x234/067.p/17".utf8), try log.read("tile/entries/001.p/44"),
            try log.read("tile/0/001.p/44"), Array(vectors.sumdbCheckpoints[0].utf8),
        ]
    }

    @Test("valid seeds are accepted by the parser they belong to")
    func seedsParse() throws {
        let outcomes = try Self.seeds().map(TransparencyLogParsing.parseAll)
        #expect(outcomes[0].note)
        #expect(outcomes[1].note && outcomes[1].checkpoint)
        #expect(outcomes[2].proof)
        #expect(outcomes[3].verifierKey)
        #expect(outcomes[4].tilePath)
        #expect(outcomes[7].checkpoint)
    }

    @Test("20,000 random and mutated inputs go through every parser without a trap")
    func mutations() throws {
        var random = SplitMix64(seed: 0x7106)
        let seeds = try Self.seeds()
        let interesting: [UInt8] = [
            0x00, 0x0A, 0x20, 0x2B, 0x2D, 0x2E, 0x2F, 0x3D, 0x30, 0x39, 0x78, 0xE2, 0x80, 0x94, 0xFF,
        ]
        var accepted = TransparencyLogParsing.Outcome()
        for round in 0..<20_000 {
            var input: [UInt8]
            if round % 10 == 0 {
                input = random.bytes(Int.random(in: 0...300, using: &random))
            } else {
                input = seeds[round % seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    guard !input.isEmpty else { break }
                    let position = Int.random(in: 0..<input.count, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: input[position] = interesting.randomElement(using: &random)!
                    case 1: input.remove(at: position)
                    case 2: input.insert(interesting.randomElement(using: &random)!, at: position)
                    default: input = Array(input[..<position])
                    }
                }
            }
            let outcome = TransparencyLogParsing.parseAll(input)
            accepted.note = accepted.note || outcome.note
            accepted.proof = accepted.proof || outcome.proof
        }
        // Mutations that keep the format are still parsed, so the fuzzing reaches past the first check.
        #expect(accepted.note && accepted.proof)
    }

    @Test("a mutated receipt never verifies for the entry it was issued for unless it is byte-identical in effect")
    func mutatedReceiptsFail() throws {
        var log = try LogFixture()
        try log.append(40)
        let receipt = try log.publisher.receipt(index: 11).bytes
        let entry = log.entries[11]
        var random = SplitMix64(seed: 11)
        var verified = 0
        for _ in 0..<500 {
            var mutated = receipt
            let position = Int.random(in: 0..<mutated.count, using: &random)
            mutated[position] ^= UInt8.random(in: 1...255, using: &random)
            if (try? log.auditor.verifyReceipt(mutated, entry: entry)) != nil { verified += 1 }
        }
        #expect(verified == 0)
    }
}
