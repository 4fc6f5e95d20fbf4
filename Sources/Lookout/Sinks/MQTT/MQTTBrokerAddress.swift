/// Where to publish: `mqtt[s]://[user[:password]@]host[:port]/prefix`, parsed and checked.
///
/// The prefix roots every topic Lookout publishes (`<prefix>/available`, `<prefix>/events`...).
public struct MQTTBrokerAddress: Sendable, Equatable {
    public var usesTLS: Bool
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    public var topicPrefix: String

    public init(_ text: String) throws(MQTTError) {
        func invalid(_ reason: String) -> MQTTError { .invalidURL(Self.redacted(text), reason: reason) }
        var rest = Substring(text)
        if rest.hasPrefix("mqtt://") {
            usesTLS = false
            rest = rest.dropFirst("mqtt://".count)
        } else if rest.hasPrefix("mqtts://") {
            usesTLS = true
            rest = rest.dropFirst("mqtts://".count)
        } else {
            throw invalid("it must start with mqtt:// or mqtts://")
        }
        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            topicPrefix = String(rest[rest.index(after: slash)...])
        } else {
            authority = rest
            topicPrefix = ""
        }
        var hostPort = authority
        username = nil
        password = nil
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                username = try Self.percentDecoded(userInfo[..<colon], in: text)
                password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], in: text)
            } else {
                username = try Self.percentDecoded(userInfo, in: text)
            }
            if username?.isEmpty == true { throw invalid("the user name is empty") }
        }
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            // An IPv6 literal: [::1]:1883
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("unclosed [ in the host") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        guard !host.isEmpty else { throw invalid("no host") }
        // Only a comma before the next `scheme://` separates addresses (MQTTBrokerList), and one in
        // the user name or password is part of it: any other is an address written without its scheme.
        if let comma = hostPort.firstIndex(of: ",") ?? rest[authority.endIndex...].firstIndex(of: ",") {
            let after = text[text.index(after: comma)...].prefix { $0 != "," }
            throw invalid("a comma outside the user name and password must begin the next address, with its scheme: '\(Self.redacted(String(after)))' has none (mqtt://a:1883,mqtt://b:1883/prefix; a topic prefix holds no comma)")
        }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw invalid("the port must be a number from 1 to 65535")
            }
            port = value
        } else {
            port = usesTLS ? 8883 : 1883
        }
        while topicPrefix.hasSuffix("/") { topicPrefix.removeLast() }
        if topicPrefix.isEmpty { topicPrefix = "lookout" }
        if topicPrefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
            throw invalid("the topic prefix cannot hold the wildcards + or #")
        }
        if topicPrefix.hasPrefix("/") || topicPrefix.contains("//") {
            throw invalid("the topic prefix has an empty level")
        }
    }

    /// The address without the password, for messages.
    public var redacted: String {
        let user = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(user)\(hostText):\(port)/\(topicPrefix)"
    }

    /// `text`, an address as given (parsed or not, with or without its scheme), with anything that
    /// may be its password replaced by `***`: what a refusal quotes. The password is what follows
    /// the first `:` of the user info, up to the last `@` before the path, or up to the last `@` of
    /// all when the path holds one (a password with an unencoded `/`): a refusal may hide more than
    /// the password, never less.
    public static func redacted(_ text: String) -> String {
        let rest = text.firstRange(of: "://").map { text[$0.upperBound...] } ?? text[...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") ?? rest.lastIndex(of: "@"),
              let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[...colon]) + "***" + String(text[at...])
    }

    private static func percentDecoded(_ text: Substring, in url: String) throws(MQTTError) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex, utf8.index(after: first) != utf8.endIndex,
                      let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)]) else {
                    throw .invalidURL(redacted(url), reason: "a % in the user name or password is not followed by two hex digits")
                }
                bytes.append(high << 4 | low)
                index = utf8.index(first, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
