import Lookout

/// The texts a refusal of a configuration file must not show, each with what it shows instead:
/// the value of every `${VAR}` whose name looks secret (`looksSecret(_:)`), and of every `${VAR}`
/// written in the value of a secret key (`ConfigurationKey.holdsSecret(_:)`), shown as `${VAR}`,
/// as written. Every message about the file that quotes a value (a refusal of `config check`,
/// `run` or a reload) goes through `apply(_:)`; secrets written literally in a secret key are
/// hidden by the key itself (`ConfigurationKey.shown(_:)`).
public struct SecretRedaction: Sendable {
    /// Longest first, so that a secret holding another is replaced whole.
    private var replacements: [(secret: String, shown: String)] = []

    public init() {}

    /// The parts of a variable's name that make it a secret's (in any case): `MQTT_PASSWORD`,
    /// `HTTP_TOKEN`, `API_KEY`, `CREDENTIALS_DIRECTORY`...
    public static let secretNameParts = ["PASS", "PWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "AUTH", "PRIVATE", "COOKIE"]

    /// True when a variable's name looks like a secret's: it holds one of `secretNameParts`. `PWD`
    /// and `OLDPWD` (the working directory) are not secrets.
    public static func looksSecret(_ name: String) -> Bool {
        let upper = name.uppercased()
        if upper == "PWD" || upper == "OLDPWD" { return false }
        return secretNameParts.contains { upper.contains($0) }
    }

    /// Hides `secret` as `shown` (also as a message quotes it, control characters escaped).
    mutating func add(_ secret: String, shownAs shown: String) {
        for text in Set([secret, secret.escapedForDisplay]) where !text.isEmpty && !replacements.contains(where: { $0.secret == text }) {
            replacements.append((text, shown))
        }
        replacements.sort { $0.secret.unicodeScalars.count > $1.secret.unicodeScalars.count }
    }

    public var isEmpty: Bool { replacements.isEmpty }

    /// `text` with every secret replaced by what it shows instead, in one pass: what replaced a
    /// secret is never looked at again.
    public func apply(_ text: String) -> String {
        guard !replacements.isEmpty else { return text }
        let scalars = Array(text.unicodeScalars)
        let secrets = replacements.map { (Array($0.secret.unicodeScalars), $0.shown) }
        var result = String.UnicodeScalarView()
        var index = 0
        scan: while index < scalars.count {
            for (secret, shown) in secrets where scalars.count - index >= secret.count && scalars[index..<index + secret.count].elementsEqual(secret) {
                result.append(contentsOf: shown.unicodeScalars)
                index += secret.count
                continue scan
            }
            result.append(scalars[index])
            index += 1
        }
        return String(result)
    }
}

extension ConfigurationProblem {
    /// The problem with `secrets` hidden in its message.
    func hiding(_ secrets: SecretRedaction) -> ConfigurationProblem {
        var problem = self
        problem.message = secrets.apply(message)
        return problem
    }
}
