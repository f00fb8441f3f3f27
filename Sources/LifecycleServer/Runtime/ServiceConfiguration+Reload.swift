import LifecycleEngine

/// What a reload (SIGHUP) may change in a running process.
extension ServiceConfiguration {
    /// This configuration with the settings a running process cannot change kept as `running` has them —
    /// the store, both listeners' binding, limits and certificate files (the certificate's contents do reload),
    /// whether the admin listener runs, the JWKS source and its cache settings, the log pseudonym key, where
    /// the master keys come from (`secrets.masterKeyFile`: the file's contents do reload) — and the names of
    /// those that differ, so the reload can say a restart is needed for them.
    func keepingStartupSettings(of running: ServiceConfiguration) -> (
        configuration: ServiceConfiguration, kept: [String]
    ) {
        var next = self
        var kept: [String] = []
        if next.storage != running.storage {
            next.storage = running.storage
            kept.append("storage")
        }
        if next.publicListener != running.publicListener {
            next.publicListener = running.publicListener
            kept.append("public")
        }
        if (next.admin.enabled, next.admin.host, next.admin.port)
            != (running.admin.enabled, running.admin.host, running.admin.port)
        {
            next.admin.enabled = running.admin.enabled
            next.admin.host = running.admin.host
            next.admin.port = running.admin.port
            kept.append("admin.enabled/host/port")
        }
        if (next.apple.jwks, next.apple.jwksMinRefreshSeconds, next.apple.jwksFetchTimeoutSeconds)
            != (running.apple.jwks, running.apple.jwksMinRefreshSeconds, running.apple.jwksFetchTimeoutSeconds)
        {
            next.apple.jwks = running.apple.jwks
            next.apple.jwksMinRefreshSeconds = running.apple.jwksMinRefreshSeconds
            next.apple.jwksFetchTimeoutSeconds = running.apple.jwksFetchTimeoutSeconds
            kept.append("apple.jwks")
        }
        if next.pseudonymKeyFile != running.pseudonymKeyFile {
            next.pseudonymKeyFile = running.pseudonymKeyFile
            kept.append("pseudonymKeyFile")
        }
        if next.secrets.masterKeyFile != running.secrets.masterKeyFile {
            next.secrets.masterKeyFile = running.secrets.masterKeyFile
            kept.append("secrets.masterKeyFile")
        }
        return (next, kept)
    }
}
