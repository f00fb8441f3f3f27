import COpenSSL
import CShims
import Foundation
import HTTP1
import HTTPServer

/// Issues throw-away X.509 certificates with OpenSSL: a local CA and server certificates it signs, with
/// exactly the flaws a test or a local setup needs (expired, weak key, SHA-1, wrong name). Nothing is
/// persisted except where the caller writes the PEM text. Never for production certificates.
public enum DevelopmentCertificates {
    public enum KeyKind: Sendable, Hashable {
        case rsa(bits: Int)
        /// NIST P-256.
        case ecP256
    }

    public enum Digest: Sendable, Hashable {
        case sha256
        /// Only to reproduce a certificate ATS refuses.
        case sha1
    }

    /// What to put in a certificate.
    public struct Request: Sendable {
        public var commonName: String
        /// DNS subjectAltNames.
        public var dnsNames: [String]
        /// IP subjectAltNames (textual).
        public var ipAddresses: [String]
        public var key: KeyKind
        public var digest: Digest
        /// Validity start and end relative to now, in seconds (negative is in the past).
        public var validFrom: TimeInterval
        public var validUntil: TimeInterval
        public var isAuthority: Bool

        public init(
            commonName: String, dnsNames: [String] = [], ipAddresses: [String] = [], key: KeyKind = .ecP256,
            digest: Digest = .sha256, validFrom: TimeInterval = -3_600, validUntil: TimeInterval = 90 * 86_400,
            isAuthority: Bool = false
        ) {
            self.commonName = commonName
            self.dnsNames = dnsNames
            self.ipAddresses = ipAddresses
            self.key = key
            self.digest = digest
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.isAuthority = isAuthority
        }
    }

    /// A certificate and its private key, PEM encoded.
    public struct Issued: Sendable {
        public var certificatePEM: String
        public var privateKeyPEM: String
    }

    public struct IssueError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// A self-signed CA certificate.
    public static func authority(commonName: String = "Development CA") throws(IssueError) -> Issued {
        try issue(
            Request(commonName: commonName, validUntil: 365 * 86_400, isAuthority: true), signedBy: nil)
    }

    /// A certificate for `request`, signed by `issuer` (self-signed when nil).
    public static func issue(_ request: Request, signedBy issuer: Issued?) throws(IssueError) -> Issued {
        OpenSSLErrors.clear()
        let key = try generateKey(request.key)
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw failure("X509_new") }
        defer { X509_free(certificate) }

        var issuerCertificate: OpaquePointer?
        var issuerKey: OpaquePointer?
        defer {
            if let issuerCertificate { X509_free(issuerCertificate) }
            if let issuerKey { EVP_PKEY_free(issuerKey) }
        }
        if let issuer {
            issuerCertificate = try readCertificate(issuer.certificatePEM)
            issuerKey = try readKey(issuer.privateKeyPEM)
        }

        _ = X509_set_version(certificate, 2)
        _ = ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(UInt32.random(in: 1...UInt32.max >> 1)))
        _ = X509_gmtime_adj(X509_getm_notBefore(certificate), Int(request.validFrom))
        _ = X509_gmtime_adj(X509_getm_notAfter(certificate), Int(request.validUntil))
        _ = X509_set_pubkey(certificate, key)
        let subject = X509_get_subject_name(certificate)
        _ = X509_NAME_add_entry_by_txt(subject, "CN", shim_MBSTRING_ASC, request.commonName, -1, -1, 0)
        _ = X509_set_issuer_name(
            certificate, issuerCertificate.map { X509_get_subject_name($0) } ?? subject)

        var extensions: [(Int32, String)] = []
        if request.isAuthority {
            extensions.append((NID_basic_constraints, "critical,CA:TRUE"))
            extensions.append((NID_key_usage, "critical,keyCertSign,cRLSign"))
        } else {
            extensions.append((NID_basic_constraints, "critical,CA:FALSE"))
            extensions.append((NID_ext_key_usage, "serverAuth"))
            let names = request.dnsNames.map { "DNS:\($0)" } + request.ipAddresses.map { "IP:\($0)" }
            if !names.isEmpty { extensions.append((NID_subject_alt_name, names.joined(separator: ","))) }
        }
        extensions.append((NID_subject_key_identifier, "hash"))
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate ?? certificate, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw failure("extension \(value)")
            }
            _ = X509_add_ext(certificate, ext, -1)
            X509_EXTENSION_free(ext)
        }
        let digest = request.digest == .sha1 ? EVP_sha1() : EVP_sha256()
        guard X509_sign(certificate, issuerKey ?? key, digest) > 0 else { throw failure("X509_sign") }
        return Issued(
            certificatePEM: try pem { PEM_write_bio_X509($0, certificate) },
            privateKeyPEM: try pem {
                PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil)
            })
    }

    private static func generateKey(_ kind: KeyKind) throws(IssueError) -> OpaquePointer {
        let id = if case .rsa = kind { EVP_PKEY_RSA } else { EVP_PKEY_EC }
        guard let context = EVP_PKEY_CTX_new_id(id, nil) else { throw failure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw failure("keygen init") }
        switch kind {
        case .rsa(let bits):
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else { throw failure("RSA bits") }
        case .ecP256:
            guard EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1 else {
                throw failure("EC curve")
            }
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(context, &key) == 1, let key else { throw failure("keygen") }
        return key
    }

    private static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T?) throws(IssueError) -> T {
        let bytes = Array(text.utf8)
        let result: T? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
        guard let result else { throw failure("read PEM") }
        return result
    }

    private static func readCertificate(_ pem: String) throws(IssueError) -> OpaquePointer {
        try withMemoryBIO(pem) { PEM_read_bio_X509($0, nil, nil, nil) }
    }

    private static func readKey(_ pem: String) throws(IssueError) -> OpaquePointer {
        try withMemoryBIO(pem) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) throws(IssueError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw failure("PEM write") }
        var data: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw failure("PEM read back") }
        return String(
            decoding: UnsafeRawBufferPointer(start: data, count: Int(length)).bindMemory(to: UInt8.self), as: UTF8.self)
    }

    private static func failure(_ step: String) -> IssueError {
        IssueError(description: "cannot issue a development certificate (\(step)): \(OpenSSLErrors.drain())")
    }
}
