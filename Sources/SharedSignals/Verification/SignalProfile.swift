/// Which transmitter's rules a SET is checked under. The checks are those of RFC 8417 and SSF 1.0 §4; a
/// profile only relaxes what a known transmitter is documented to do differently.
public enum SignalProfile: String, Hashable, Sendable, CaseIterable {
    /// An OpenID Shared Signals Framework 1.0 transmitter (Okta, Keycloak, SailPoint, …): header `typ`
    /// `secevent+jwt` required (RFC 8417 §2.3 explicit typing, required by SSF 1.0), `exp` checked when present.
    case ssf = "ssf"
    /// Google's Cross-Account Protection (RISC): Google documents `exp` as not to be checked, sends no `typ`
    /// (or `JWT`), names the subject inside the event as `subject` with `subject_type`, and puts the app's
    /// OAuth client ID in `aud`.
    case googleRISC = "google-risc"

    /// Google's RISC issuer (`https://accounts.google.com/.well-known/risc-configuration`).
    public static let googleIssuer = "https://accounts.google.com/"
    /// The `jwks_uri` of Google's RISC configuration.
    public static let googleKeysURL = "https://www.googleapis.com/oauth2/v3/certs"

    /// Whether a header `typ` is acceptable: RFC 7515 §4.1.9 compares media types case-insensitively and
    /// allows the `application/` prefix to be left out.
    func accepts(type: String?) -> Bool {
        let normalized = type?.lowercased()
        switch self {
        case .ssf:
            return normalized == "secevent+jwt" || normalized == "application/secevent+jwt"
        case .googleRISC:
            return normalized == nil || normalized == "jwt" || normalized == "secevent+jwt"
                || normalized == "application/secevent+jwt"
        }
    }

    /// Whether `exp`, when present, is checked.
    var checksExpiry: Bool {
        switch self {
        case .ssf: true
        case .googleRISC: false
        }
    }
}
