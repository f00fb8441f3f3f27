@testable import LifecycleCore

/// Builds inputs with readable times: `at` is seconds since the epoch; receipt follows one second later.
func input(_ kind: AccountInputKind, at seconds: Int64, id: String? = nil) -> AccountInput {
    AccountInput(
        kind: kind, eventTime: Instant(secondsSinceEpoch: seconds),
        receivedAt: Instant(secondsSinceEpoch: seconds + 1), identity: id ?? "\(kind.rawValue)@\(seconds)")
}

/// Applies inputs in the order given and returns the machine and every outcome.
func run(_ inputs: [AccountInput], from start: AccountStateMachine = AccountStateMachine()) -> (
    AccountStateMachine, [AccountOutcome]
) {
    var machine = start
    var outcomes: [AccountOutcome] = []
    for item in inputs { outcomes.append(machine.apply(item)) }
    return (machine, outcomes)
}
