/// The reference of every key, as Markdown tables (docs/configuration.md holds it between
/// markers, kept equal to this by a test).
public enum ConfigurationReference {
    public static var markdown: String {
        var text = ""
        for section in ConfigurationSection.allCases {
            let keys = ConfigurationKey.all.filter { $0.section == section }
            text += "### \(section.rawValue)\n\n"
            text += "| key | per camera | default | allowed | what it does |\n|---|---|---|---|---|\n"
            for key in keys {
                let scope = key.scope == .global ? "no" : key.scope == .camera ? "yes" : "only"
                text += "| `\(key.name)` | \(scope) | \(cell(key.defaultText ?? "—")) | \(cell(key.allowed)) | \(cell(key.summary)) |\n"
            }
            text += "\n"
        }
        return text
    }

    private static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
