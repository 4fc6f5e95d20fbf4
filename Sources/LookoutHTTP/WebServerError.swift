import Foundation

/// Why the web server could not start.
public enum WebServerError: Error, CustomStringConvertible {
    case cannotListen(address: WebServerAddress, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        }
    }
}
