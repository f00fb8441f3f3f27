import AppleNotifications

/// Taking the JWS out of what is POSTed to the notification endpoint (JSON, form or bare token).
///
/// Properties: the endpoint path and the CLI path agree whenever the endpoint accepts; a JWS the endpoint
/// extracted comes back unchanged from the body Apple would send for it; refusals carry one of the two
/// body codes.
enum NotificationBodyTarget {
    static let target = FuzzTarget(
        name: "notification-body",
        summary: "notification body: HTTP and CLI paths agree, encode-extract round trip, only body error codes",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let http = NotificationBody.extractJWS(fromHTTPBody: bytes)
        let cli = NotificationBody.extractJWS(fromBodyOrToken: bytes)
        switch http {
        case .success(let jws):
            try require(!jws.isEmpty, "an empty JWS was extracted")
            guard case .success(let other) = cli, other == jws else {
                throw PropertyFailure("the CLI path disagrees with the endpoint on an accepted body")
            }
            let encoded = NotificationBody.encode(jws: jws)
            guard case .success(let roundTrip) = NotificationBody.extractJWS(fromHTTPBody: encoded) else {
                throw PropertyFailure("the body Apple would send for an extracted JWS is refused")
            }
            try require(roundTrip == jws, "the JWS changed through encode-extract")
        case .failure(let error):
            try require(
                error.code == .malformedBody || error.code == .missingPayload, "refused with \(error.code)")
        }
        if case .failure(let error) = cli {
            try require(
                error.code == .malformedBody || error.code == .missingPayload, "CLI refused with \(error.code)")
        }
    }
}
