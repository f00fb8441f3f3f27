import LifecycleCore

/// Who and what a transition is about, carried to the effect recorder so the messages it writes can say
/// why they were sent.
public struct TransitionContext: Sendable {
    public var app: String
    public var subject: String
    public var input: AccountInput
    /// `notification`, `replay`, `admin` or `reconciler`.
    public var source: String
    public var notificationID: Int64?

    package init(app: String, subject: String, input: AccountInput, source: String, notificationID: Int64? = nil) {
        self.app = app
        self.subject = subject
        self.input = input
        self.source = source
        self.notificationID = notificationID
    }
}
