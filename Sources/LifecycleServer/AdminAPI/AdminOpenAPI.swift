import Foundation

/// The OpenAPI 3.1 description of the admin API: `Sources/LifecycleServer/AdminAPI/admin.openapi.json`,
/// shipped as a SwiftPM resource and served as is at `GET /openapi.json`. The file is the one source of
/// truth; a test checks it against ``AdminRoute/all``.
enum AdminOpenAPI {
    static let resourceName = "admin.openapi"

    /// The document's bytes, nil when the resource bundle was not installed next to the executable.
    static let document: [UInt8]? = {
        guard let url = Bundle.module.url(forResource: resourceName, withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return Array(data)
    }()
}
