import LifecycleCore

extension FindingCode {
    /// The finding in plain words for the report's glossary. An exhaustive switch: a new code cannot reach a
    /// report without a definition.
    var meaning: String {
        switch self {
        case .retainedAfterDeletion: "the app still holds a deleted account past its erasure deadline"
        case .erasureOverdue: "an erasure deadline passed and the erasure is not completed"
        case .erasureFailed: "an erasure job failed after its retries"
        case .unverifiedErasure: "an erasure ran but nothing proves it"
        case .sessionAfterRevocation: "the app reports live sessions for a revoked or deleted account"
        case .unknownToService: "the app holds an account the service never heard of; it is registered as linked"
        case .orphanNotification: "the service has events for an account the app does not hold, and it is not deleted"
        case .notificationGap: "a window in which no instance of the service was receiving; notifications may be lost"
        case .credentialsInvalid:
            "Apple's refresh-token check says the user's credentials are invalid: a revocation may never have arrived"
        case .revocationUnverified:
            "an in-app deletion's Apple token revocation was accepted but never proved; the user should revoke in Settings"
        case .identifierRecycled:
            "an identity provider says the identifier of this account now names another person: never merge the two"
        case .unsortedInput: "the app's records were not sorted, so the comparison stopped and found nothing reliable"
        }
    }
}
