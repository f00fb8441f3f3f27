import HTTP1
import HTTPServer
import LifecycleEngine

/// Builds the admin listener `lifecycle serve` runs next to the public one (DESIGN.md §4): its own
/// ``HTTPServer`` on `admin.host:admin.port` (default 127.0.0.1:8081), with the public listener's deadlines
/// and limits. Nil when `admin.enabled` is false. Its token is the configuration in force's
/// (``ActiveConfiguration/adminToken``), so a reload that changes the token file applies to the next request.
enum AdminListener {
    static func makeServer(context: ServiceContext, erasure: ErasureJobRunner) -> HTTPServer? {
        let admin = context.configuration.admin
        guard admin.enabled else { return nil }
        let routes = AdminRoutes(context: context, erasure: erasure)
        var configuration = ServiceRuntime.serverConfiguration(context.configuration.publicListener)
        configuration.host = admin.host
        configuration.port = admin.port
        configuration.responseObserver = ResponseCounter.observer(listener: "admin", metrics: context.metrics)
        return HTTPServer(configuration: configuration, handler: routes.handle)
    }

    /// The token an enabled admin listener needs, or nil when it is disabled.
    /// - Throws: one line when it is enabled without a token: it never starts (nor reloads) without one.
    static func token(
        for configuration: ServiceConfiguration, environment: [String: String]
    ) throws -> AdminBearerToken? {
        guard configuration.admin.enabled else { return nil }
        return try AdminBearerToken.load(configuration.admin, environment: environment)
    }
}
