import LifecycleCore
import LifecycleEngine
import LifecycleServer

/// An admin API operation run in this process against the configured store, for a command given no `--url`:
/// it opens the service's context, runs `body` and answers what the route would — the document, or the
/// ``AdminError`` the route turns into its refusal — closing the context either way. Any other error (the
/// configuration is invalid, the store cannot open) is thrown: the command could not run.
enum LocalAdminOperation {
    static func run(
        configFile: String, io: CommandIO, _ body: (ServiceContext) async throws -> JSONValue
    ) async throws -> Result<JSONValue, AdminError> {
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        let result: Result<JSONValue, AdminError>
        do {
            result = .success(try await body(context))
        } catch let error as AdminError {
            result = .failure(error)
        } catch {
            await context.close()
            throw error
        }
        await context.close()
        return result
    }
}
