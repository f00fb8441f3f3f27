import AppleAccountAPI
import LifecycleCore

extension AppleRESTClient {
    /// The REST client of one app as the configuration describes it: its credentials, the base URL and
    /// timeout of `apple`, the system trust store. `observer` sees every finished call (metrics).
    public static func forService(
        credentials: AppleCredentials, apple: AppleConfiguration, now: @escaping @Sendable () -> Instant,
        observer: (@Sendable (AppleRequestRecord) -> Void)? = nil
    ) throws(ConfigurationError) -> AppleRESTClient {
        let minter: ClientSecretMinter
        do throws(AppleCredentialsError) {
            minter = try ClientSecretMinter(credentials: credentials, now: now)
        } catch {
            throw ConfigurationError(file: "", field: error.field, problem: error.description, fix: "")
        }
        let configuration = AppleRESTConfiguration(
            baseURL: apple.restBaseURL, timeout: .seconds(apple.restTimeoutSeconds))
        return AppleRESTClient(secrets: minter, configuration: configuration, observer: observer)
    }
}
