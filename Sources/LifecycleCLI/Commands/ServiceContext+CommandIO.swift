import LifecycleCore
import LifecycleEngine
import LifecycleStore

extension ServiceContext {
    /// The context of a command other than `serve`: its clock (``CommandIO/clock()``), its environment (master
    /// key, secrets), and the structured log only when asked for (``CommandIO/logLevel``); without it the
    /// command's one-line error is all it prints.
    static func open(configuration: ServiceConfiguration, io: CommandIO) async throws -> ServiceContext {
        try await open(
            configuration: configuration, clock: try io.clock(), logSink: io.commandLogSink, logLevel: io.logLevel,
            environment: io.environment)
    }

    /// The store and vault of a command that needs nothing more (`migrate`, `keys`), with the clock,
    /// environment and structured log of ``open(configuration:io:)``: what ``openStore(_:log:clock:environment:)``
    /// does on the way (sealing what an older release kept in the clear) is logged only when asked for.
    static func openStore(_ configuration: ServiceConfiguration, io: CommandIO) async throws -> (
        store: any Store, vault: SubjectKeyVault, log: EventLog, clock: any LifecycleClock
    ) {
        let clock = try io.clock()
        let pseudonymizer = KeyedSubjectPseudonymizer(
            key: try SecretFile.readOrCreate(path: configuration.pseudonymKeyFile))
        let log = EventLog(
            level: io.logLevel ?? configuration.logLevel, pseudonymizer: pseudonymizer, clock: clock,
            sink: io.commandLogSink)
        let (store, vault) = try await openStore(configuration, log: log, clock: clock, environment: io.environment)
        return (store, vault, log, clock)
    }
}
