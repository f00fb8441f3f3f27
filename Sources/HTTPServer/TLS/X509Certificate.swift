import COpenSSL
import Foundation

/// Reads a certificate's facts out of an OpenSSL `X509` the caller keeps alive for the call.
enum X509Certificate {
    static func summary(of certificate: OpaquePointer) -> TLSCertificateSummary {
        let notBefore = date(from: X509_get0_notBefore(certificate)) ?? .distantFuture
        let notAfter = date(from: X509_get0_notAfter(certificate)) ?? .distantPast
        var keyType = TLSCertificateSummary.KeyType.other
        var keyBits = 0
        if let key = X509_get0_pubkey(certificate) {
            keyBits = Int(EVP_PKEY_get_bits(key))
            switch EVP_PKEY_get_base_id(key) {
            case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: keyType = .rsa
            case EVP_PKEY_EC: keyType = .ec
            case EVP_PKEY_ED25519: keyType = .ed25519
            default: keyType = .other
            }
        }
        let signatureNID = X509_get_signature_nid(certificate)
        var digestNID: Int32 = 0
        var publicKeyNID: Int32 = 0
        var digest: String?
        if OBJ_find_sigid_algs(signatureNID, &digestNID, &publicKeyNID) == 1, digestNID != NID_undef {
            digest = shortName(digestNID)
        }
        return TLSCertificateSummary(
            commonName: commonName(of: certificate), notBefore: notBefore, notAfter: notAfter, keyType: keyType,
            keyBits: keyBits, signatureAlgorithm: shortName(signatureNID) ?? "unknown", signatureDigest: digest)
    }

    /// Whether the certificate's names cover `host` (a DNS name or an IP literal), by RFC 6125 rules as OpenSSL
    /// implements them for `X509_VERIFY_PARAM_set1_host` / `X509_VERIFY_PARAM_set1_ip_asc`.
    static func matches(_ certificate: OpaquePointer, host: String) -> Bool {
        if isIPAddress(host) { return X509_check_ip_asc(certificate, host, 0) == 1 }
        return X509_check_host(certificate, host, host.utf8.count, 0, nil) == 1
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func shortName(_ nid: Int32) -> String? {
        guard let name = OBJ_nid2sn(nid) else { return nil }
        return String(cString: name)
    }

    private static func commonName(of certificate: OpaquePointer) -> String? {
        guard let subject = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(subject, index),
            let data = X509_NAME_ENTRY_get_data(entry), let bytes = ASN1_STRING_get0_data(data)
        else { return nil }
        let length = Int(ASN1_STRING_length(data))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    private static func date(from time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
