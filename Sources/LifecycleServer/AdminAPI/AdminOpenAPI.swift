/// The OpenAPI 3.1 description of the admin API: `Sources/LifecycleServer/AdminAPI/admin.openapi.json`,
/// compiled into the executable (SwiftPM `embedInCode`), so an installed `lifecycle` needs no resource bundle
/// beside it, and served as is at `GET /openapi.json`. The file is the one source of truth; a test checks it
/// against ``AdminRoute/all``.
enum AdminOpenAPI {
    /// The document's bytes. Optional for the route's sake, which answers `openapi_missing` without it.
    static let document: [UInt8]? = PackageResources.admin_openapi_json
}
