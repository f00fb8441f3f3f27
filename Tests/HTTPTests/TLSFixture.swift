import Foundation
import HTTP1
import HTTPServer
import LifecycleDevTools
import TestSupport

/// A throw-away CA and server certificates written as PEM files into a temporary directory, so every TLS test
/// runs against real OpenSSL with keys generated at test time.
final class TLSFixture: Sendable {
    let directory: TemporaryDirectory
    let authority: DevelopmentCertificates.Issued
    let caFile: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "tls-test")
        authority = try DevelopmentCertificates.authority(commonName: "Test Root CA")
        caFile = directory.file("ca.pem")
        try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
    }

    /// A server certificate for `localhost` and 127.0.0.1 unless `request` says otherwise, written as
    /// `<name>.crt` / `<name>.key`.
    func serverCertificate(
        _ name: String,
        _ request: DevelopmentCertificates.Request = DevelopmentCertificates.Request(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
    ) throws -> (certificate: String, key: String) {
        let issued = try DevelopmentCertificates.issue(request, signedBy: authority)
        let files = (directory.file("\(name).crt"), directory.file("\(name).key"))
        try issued.certificatePEM.write(toFile: files.0, atomically: true, encoding: .utf8)
        try issued.privateKeyPEM.write(toFile: files.1, atomically: true, encoding: .utf8)
        return files
    }

    /// A TLS server context for a fresh certificate.
    func context(
        _ name: String = "server",
        _ request: DevelopmentCertificates.Request = DevelopmentCertificates.Request(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
        validation: TLSServerContext.Validation = .enforced
    ) throws -> TLSServerContext {
        let files = try serverCertificate(name, request)
        return try TLSServerContext(
            certificateChainFile: files.certificate, privateKeyFile: files.key, validation: validation)
    }

    /// Client settings that trust only this fixture's CA.
    func client(serverName: String? = "localhost") -> TLSClientConfiguration {
        TLSClientConfiguration(serverName: serverName, trustedCAFile: caFile)
    }
}

/// Runs blocking client work on its own thread, off the cooperative pool the server's handlers use.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try body() }) }.start()
    }
    return try result.get()
}
