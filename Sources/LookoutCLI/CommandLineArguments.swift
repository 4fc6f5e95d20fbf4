import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// The program's arguments as their bytes decode: Swift's `CommandLine.arguments` replaces bytes
/// that are not UTF-8 with U+FFFD, and a file so named could then never be opened. Here such
/// bytes are kept (see `String(platformPath:)`), and every path reaches the system as given.
enum CommandLineArguments {
    /// The arguments after the program's name.
    static func decoded() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            let length = strlen(argument)
            return argument.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(platformPath: UnsafeBufferPointer(start: $0, count: length))
            }
        }
    }
}
