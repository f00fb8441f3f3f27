/// The messages the service sends the app backend (DESIGN.md §6). Stable: receivers switch on them.
public enum WebhookKind: String, Sendable, CaseIterable {
    /// End every session of the subject now.
    case sessionsTerminate = "account.sessions.terminate"
    /// Relay e-mail forwarding for the subject turned on or off.
    case emailForwardingChanged = "account.email_forwarding.changed"
    /// Erase the subject's data held by the receiving target (erasure jobs).
    case erasureRequested = "account.erasure.requested"
}
