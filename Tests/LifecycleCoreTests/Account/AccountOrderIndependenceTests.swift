import Testing

@testable import LifecycleCore

/// The state machine's promise to a store that receives notifications late, twice and out of order:
/// the final state depends only on which inputs arrived, never on their arrival order.
@Suite("Account state is independent of arrival order")
struct AccountOrderIndependenceTests {
    /// A random history over a few seconds (so equal event times happen), with redeliveries.
    static func randomInputs(_ rng: inout SplitMix64, allowDeletion: Bool) -> [AccountInput] {
        let kinds = AccountInputKind.allCases.filter { allowDeletion || $0.aspect != .existence }
        var inputs: [AccountInput] = []
        for index in 0..<Int.random(in: 1...10, using: &rng) {
            let kind = kinds.randomElement(using: &rng)!
            inputs.append(input(kind, at: Int64.random(in: 0...5, using: &rng), id: "i\(index)"))
        }
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            inputs.append(inputs.randomElement(using: &rng)!)
        }
        return inputs
    }

    /// What the state must be, from the rules alone: deleted if any deletion, else the newest access
    /// input decides revocation and the newest e-mail input decides forwarding.
    static func expectedState(_ inputs: [AccountInput]) -> AccountState {
        if inputs.contains(where: { $0.kind.aspect == .existence }) { return .deleted }
        // `sessions-revoked` is ordered with the access inputs but sets no access state.
        let access = inputs.filter { $0.kind.aspect == .access && $0.kind != .sessionsRevoked }.max {
            $0.orderKey < $1.orderKey
        }
        let revocations: Set<AccountInputKind> = [.consentRevoked, .credentialsInvalid, .accessSuspended]
        if let kind = access?.kind, revocations.contains(kind) { return .consentRevoked }
        let email = inputs.filter { $0.kind.aspect == .emailForwarding }.max { $0.orderKey < $1.orderKey }
        return email?.kind == .emailDisabled ? .emailOff : .linked
    }

    @Test("every permutation ends where applying the inputs sorted by event_time ends", arguments: [false, true])
    func permutations(allowDeletion: Bool) {
        var rng = SplitMix64(seed: allowDeletion ? 0xDE1E7E : 0x5EED)
        for _ in 0..<400 {
            let inputs = Self.randomInputs(&rng, allowDeletion: allowDeletion)
            let sorted = inputs.sorted { $0.orderKey < $1.orderKey }
            let (reference, _) = run(sorted)
            #expect(reference.state == Self.expectedState(inputs))
            for _ in 0..<12 {
                let (machine, outcomes) = run(inputs.shuffled(using: &rng))
                #expect(machine.state == reference.state)
                if reference.state != .deleted {
                    #expect(machine.record?.emailForwarding == reference.record?.emailForwarding)
                    #expect(machine.record?.lastApplied(.access) == reference.record?.lastApplied(.access))
                    #expect(machine.record?.lastAppliedEventTime == reference.record?.lastAppliedEventTime)
                }
                #expect(outcomes.count == inputs.count, "every input is recorded")
            }
        }
    }
}
