import Foundation
import LifecycleFuzzing
import Testing

/// Every fuzz target's properties in the normal suite: each checked-in corpus input (`Fuzz/Corpus/<target>/`,
/// seeds plus whatever `make fuzz` found worth keeping) and a short seeded run of random mutations of them.
/// A regression in any parser of outside input fails here, without libFuzzer.
@Suite("Fuzz targets over their corpus and a seeded random run")
struct FuzzCorpusTests {
    static let corpusRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    /// Mutations per target in the random run: enough to leave the seeds, small enough for CI (seconds).
    static let mutationCount = 3_000

    static func corpus(_ target: FuzzTarget) throws -> [[UInt8]] {
        let directory = corpusRoot.appendingPathComponent(target.name)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    @Test("every target has a seed corpus", arguments: FuzzTarget.all.map(\.name))
    func hasCorpus(name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        #expect(try Self.corpus(target).count >= 3, "Fuzz/Corpus/\(name) needs seeds")
    }

    @Test("every corpus input satisfies the target's properties", arguments: FuzzTarget.all.map(\.name))
    func corpusHolds(name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        for input in try Self.corpus(target) {
            #expect(throws: Never.self, "\(name): \(String(decoding: input.prefix(120), as: UTF8.self))") {
                try target.check(input)
            }
        }
    }

    @Test(
        "seeded random mutations of the corpus satisfy the target's properties", arguments: FuzzTarget.all.map(\.name))
    func mutationsHold(name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let corpus = try Self.corpus(target)
        try #require(!corpus.isEmpty)
        var random = FuzzRandom(bytes: Array(name.utf8))
        var failures = 0
        for _ in 0..<Self.mutationCount {
            let input = Mutator.mutate(corpus, random: &random)
            do {
                try target.check(input)
            } catch {
                failures += 1
                if failures <= 3 {
                    Issue.record("\(name): \(error) for input \(Array(input.prefix(200)))")
                }
            }
        }
        #expect(failures == 0)
    }
}

/// A few of libFuzzer's mutations (bit flip, byte set, insert, erase, duplicate, splice), driven by a seeded
/// generator so a failing run repeats exactly.
enum Mutator {
    static let interesting: [UInt8] =
        Array("\0\r\n\t \"\\.,:;=&%{}[]-+0123456789eE/?#@!~".utf8) + [0x7F, 0x80, 0xC3, 0xFF]

    static func mutate(_ corpus: [[UInt8]], random: inout FuzzRandom) -> [UInt8] {
        var bytes = corpus[Int(random.next() % UInt64(corpus.count))]
        for _ in 0..<(1 + Int(random.next() % 4)) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            switch random.next() % 6 {
            case 0 where !bytes.isEmpty: bytes[position] ^= 1 << UInt8(random.next() % 8)
            case 1 where !bytes.isEmpty: bytes[position] = interesting[Int(random.next() % UInt64(interesting.count))]
            case 2: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: position)
            case 3 where !bytes.isEmpty:
                let length = 1 + Int(random.next() % UInt64(min(8, bytes.count - position)))
                bytes.removeSubrange(position..<(position + length))
            case 4 where !bytes.isEmpty:
                let length = 1 + Int(random.next() % UInt64(min(16, bytes.count - position)))
                bytes.insert(contentsOf: bytes[position..<(position + length)], at: position)
            default:
                let other = corpus[Int(random.next() % UInt64(corpus.count))]
                let cut = other.isEmpty ? 0 : Int(random.next() % UInt64(other.count))
                bytes = Array(bytes.prefix(position)) + other[cut...]
            }
        }
        return bytes
    }
}
