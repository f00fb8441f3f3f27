import HTTP

/// Builds the admin listener `lifecycle serve` runs next to the public one (DESIGN.md §4): its own
/// ``HTTPServer`` on `admin.host:admin.port` (default 127.0.0.1:8081), with the public listener's deadlines
/// and limits. Nil when `admin.enabled` is false; throws (one line) when enabled without a token.
enum AdminListener {
    static func makeServer(
        context: ServiceContext, erasure: ErasureJobRunner, environment: [String: String]
    ) throws -> HTTPServer? {
        let admin = context.configuration.admin
        guard admin.enabled else { return nil }
        let token = try AdminBearerToken.load(admin, environment: environment)
        let routes = AdminRoutes(context: context, erasure: erasure, token: token)
        var configuration = ServiceRuntime.serverConfiguration(context.configuration.publicListener)
        configuration.host = admin.host
        configuration.port = admin.port
        return HTTPServer(configuration: configuration, handler: routes.handle)
    }
}
