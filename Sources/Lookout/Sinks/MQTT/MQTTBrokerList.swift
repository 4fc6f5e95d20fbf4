/// The brokers of one MQTT fabric (a cluster, or a broker and its standby), in the order a
/// connection tries them: `mqtt://a:1883,mqtt://b:1883/prefix`.
///
/// Every address publishes the same topics, so the topic prefix is one: the path of the addresses
/// that give one (they must agree), else the default. Commas split addresses only where the next
/// one begins (`,mqtt://`), so a password may hold a comma; a comma anywhere else (in a host, a
/// port or a topic prefix) is refused as an address written without its scheme
/// (`mqtt://a:1883,b:1883/p`), never taken as part of a host name.
public struct MQTTBrokerList: Sendable, Equatable {
    public let addresses: [MQTTBrokerAddress]

    /// Addresses past this are refused: a fabric is a few nodes, not a fleet.
    public static let maximumCount = 16

    public init(_ text: String) throws(MQTTError) {
        try self.init(Self.split(text))
    }

    /// One address per item, each `mqtt[s]://...`; the list as a whole is checked as `init(_:)` does.
    public init(_ texts: [String]) throws(MQTTError) {
        let whole = Self.redacted(texts.joined(separator: ","))
        guard !texts.isEmpty else { throw .invalidURL(whole, reason: "no broker address") }
        guard texts.count <= Self.maximumCount else {
            throw .invalidURL(whole, reason: "\(texts.count) brokers; at most \(Self.maximumCount)")
        }
        var parsed: [(address: MQTTBrokerAddress, givesPrefix: Bool)] = []
        for text in texts {
            let address = try MQTTBrokerAddress(text)
            parsed.append((address, Self.pathGiven(text)))
        }
        let prefixes = Set(parsed.filter(\.givesPrefix).map(\.address.topicPrefix))
        guard prefixes.count <= 1 else {
            throw .invalidURL(whole, reason: "the addresses give different topic prefixes (\(prefixes.sorted().joined(separator: ", "))); one fabric has one")
        }
        guard Set(parsed.map(\.address.usesTLS)).count == 1 else {
            throw .invalidURL(whole, reason: "mqtt:// and mqtts:// addresses are mixed; the brokers of one fabric take the same")
        }
        let prefix = prefixes.first ?? parsed[0].address.topicPrefix
        var seen = Set<String>()
        addresses = try parsed.map { entry throws(MQTTError) in
            var address = entry.address
            address.topicPrefix = prefix
            guard seen.insert("\(address.host.lowercased()):\(address.port)").inserted else {
                throw .invalidURL(whole, reason: "\(address.redacted) is given twice")
            }
            return address
        }
    }

    /// The first broker, the one tried first.
    public var first: MQTTBrokerAddress { addresses[0] }

    public var topicPrefix: String { first.topicPrefix }

    /// The addresses without passwords, comma-separated, for messages.
    public var redacted: String { addresses.map(\.redacted).joined(separator: ",") }

    /// `text`, addresses as given (parsed or not), with anything that may be a password replaced
    /// by `***` (`MQTTBrokerAddress.redacted(_:)` for each): what a refusal quotes.
    public static func redacted(_ text: String) -> String {
        split(text).map(MQTTBrokerAddress.redacted).joined(separator: ",")
    }

    /// `text` cut where each address begins.
    public static func split(_ text: String) -> [String] {
        var items: [String] = []
        var current = Substring(text)
        while let cut = Self.nextStart(in: current) {
            items.append(String(current[..<cut]))
            current = current[current.index(after: cut)...]
        }
        items.append(String(current))
        return items
    }

    /// The comma before the next address (`scheme://`, so that a wrong scheme is named as such), if any.
    private static func nextStart(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while let comma = text[index...].firstIndex(of: ",") {
            let rest = text[text.index(after: comma)...]
            let scheme = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "." || $0 == "-") }
            if scheme.first?.isLetter == true, rest.dropFirst(scheme.count).hasPrefix("://") { return comma }
            index = text.index(after: comma)
        }
        return nil
    }

    /// Whether the address has a path (a topic prefix of its own), not only a host.
    private static func pathGiven(_ text: String) -> Bool {
        let rest = text.drop { $0 != "/" }.dropFirst(2) // after "scheme://"
        guard let slash = rest.firstIndex(of: "/") else { return false }
        return rest[rest.index(after: slash)...].contains { $0 != "/" }
    }
}
