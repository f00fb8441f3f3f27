/// Colours of the event types in the report's charts: a diverging ColorBrewer scheme (RdBu) that stays
/// distinguishable for common colour-vision deficiencies and in greyscale print, deletions warm,
/// revocations cool, e-mail changes grey.
enum ReportChartPalette {
    static func colour(for type: String) -> String {
        switch type {
        case "account-deleted": "#b2182b"
        case "in-app-deletion": "#ef8a62"
        case "consent-revoked": "#2166ac"
        case "credentials-invalid": "#67a9cf"
        case "email-disabled": "#636363"
        case "email-enabled": "#bdbdbd"
        default: "#999999"
        }
    }
}
