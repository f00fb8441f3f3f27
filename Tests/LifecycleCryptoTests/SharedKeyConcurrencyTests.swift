import Foundation
import LifecycleCrypto
import Synchronization
import Testing

/// One key object used from many threads at once, as `serve` verifies every notification with the one key
/// Apple signs them with: each signature made is right, each verification gives the answer a single thread
/// gets, and exporting the key gives the same bytes on every thread.
@Suite("one key shared by many threads")
struct SharedKeyConcurrencyTests {
    static let threads = 8
    static let rounds = 40

    /// Runs `body(thread, round)` on `threads` threads at once, each `rounds` times; the failures seen.
    static func everywhere(_ body: @escaping @Sendable (Int, Int) throws -> Bool) -> [String] {
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                do {
                    if try !body(thread, round) { failures.withLock { $0.append("thread \(thread) round \(round)") } }
                } catch {
                    failures.withLock { $0.append("thread \(thread) round \(round): \(error)") }
                }
            }
        }
        return failures.withLock { $0 }
    }

    static func message(_ thread: Int, _ round: Int) -> [UInt8] { Array("notification \(thread)/\(round)".utf8) }

    @Test("RSA: RS256 signatures (deterministic) and verifications from eight threads agree with one thread's")
    func rsa() throws {
        let key = try RSAPrivateKey.generate()
        let publicKey = key.publicKey
        let pem = try publicKey.pem()
        // PKCS #1 v1.5 is deterministic: each thread's signature must be the one a single thread made first.
        var expected: [[UInt8]] = []
        for thread in 0..<Self.threads {
            for round in 0..<Self.rounds { expected.append(try key.signRS256(Self.message(thread, round))) }
        }
        let single = expected
        let failures = Self.everywhere { thread, round in
            let message = Self.message(thread, round)
            let signature = try key.signRS256(message)
            guard signature == single[thread * Self.rounds + round] else { return false }
            var tampered = message
            tampered[0] ^= 1
            let exported = round == 0 ? try publicKey.pem() : pem
            return signature.count == 256 && publicKey.verifyRS256(signature: signature, message: message)
                && !publicKey.verifyRS256(signature: signature, message: tampered) && exported == pem
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("P-256 and Ed25519: signatures made and verified from eight threads at once")
    func ellipticCurves() throws {
        let p256 = try P256PrivateKey.generate()
        let p256Public = p256.publicKey
        let ed25519 = try Ed25519PrivateKey.generate()
        let edPublic = ed25519.publicKey
        let failures = Self.everywhere { thread, round in
            let message = Self.message(thread, round)
            var tampered = message
            tampered[tampered.count - 1] ^= 1
            let es256 = try p256.signES256(message)
            let eddsa = try ed25519.sign(message)
            return p256Public.verifyES256(signature: es256, message: message)
                && !p256Public.verifyES256(signature: es256, message: tampered)
                && edPublic.verify(signature: eddsa, message: message)
                && !edPublic.verify(signature: eddsa, message: tampered)
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
