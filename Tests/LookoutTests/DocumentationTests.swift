import Foundation
import Testing

/// The README and docs/ name only what exists: every `lookout` option they write is one the built
/// binary has (for the subcommand they write it for), every web route is in docs/openapi.yaml or
/// registered by the web server, and every relative link reaches a file (and a heading).
@Suite("Documentation")
struct DocumentationTests {
    /// Options of other programs written in a code span that starts with an option, where the text
    /// around says whose they are.
    static let foreignOptions: Set<String> = [
        "instance",   // scripts/install --instance NAME (docs/service.md)
        "gs1",        // zint --gs1 (docs/accuracy.md)
        "layer",      // scripts/test --layer NAME (docs/testing.md)
        "as-ean13",   // scripts/corpus.d/small_upce.py --as-ean13 (docs/accuracy.md)
        "cover",      // scripts/corpus.d/covered_symbols.py --cover (docs/accuracy.md)
    ]

    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// The options of every command of the built binary, from ArgumentParser's own description of
    /// it, by command path ("", "run", "config check"), and the subcommands of each.
    struct Commands {
        var options: [String: Set<String>] = [:]
        var subcommands: [String: Set<String>] = [:]

        init(dump: [String: Any], path: [String] = []) {
            let key = path.joined(separator: " ")
            var names: Set<String> = ["help"]
            for argument in dump["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let text = name["name"] as? String { names.insert(text) }
                }
            }
            options[key] = names
            for sub in dump["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String else { continue }
                subcommands[key, default: []].insert(name)
                let child = Commands(dump: sub, path: path + [name])
                options.merge(child.options) { $0.union($1) }
                subcommands.merge(child.subcommands) { $0.union($1) }
            }
        }

        /// What `lookout COMMAND --name` may name: the command's options; with no subcommand, the
        /// root's and the default command's (`run`); with none said (a table), any command's.
        func allows(_ name: String, for command: [String]?) -> Bool {
            guard let command else { return options.values.contains { $0.contains(name) } }
            let own = options[command.joined(separator: " ")] ?? []
            return own.contains(name) || (command.isEmpty && (options["run"] ?? []).contains(name))
        }
    }

    static func commands() throws -> Commands {
        let result = try lookout(["--experimental-dump-help"])
        try #require(result.status == 0, "lookout --experimental-dump-help: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let root = try #require(json["command"] as? [String: Any], "no command in the help dump")
        var commands = Commands(dump: root)
        // ArgumentParser's own options of the root command.
        commands.options["", default: []].formUnion(["version", "experimental-dump-help", "generate-completion-script"])
        // run's options that only the key table declares are in its help, not in ArgumentParser's dump.
        let help = try lookout(["run", "--help"])
        try #require(help.status == 0)
        for line in String(decoding: help.stdout, as: UTF8.self).split(separator: "\n") {
            guard let match = line.firstMatch(of: /^  (?:-[a-zA-Z], )?--([a-z][a-z0-9-]+)(?:\/--(no-[a-z0-9-]+))?/) else { continue }
            commands.options["run", default: []].insert(String(match.output.1))
            if let inverse = match.output.2 { commands.options["run", default: []].insert(String(inverse)) }
        }
        return commands
    }

    static func mentions(subcommands: [String: Set<String>]) throws -> [DocumentationMentions] {
        try #require(documents.count > 10, "README.md and docs/*.md: found \(documents)")
        return try documents.map { file in
            let text = try String(contentsOfFile: Fixtures.packageRoot + "/" + file, encoding: .utf8)
            return DocumentationMentions(markdown: text, file: file, subcommands: subcommands)
        }
    }

    @Test func everyOptionTheDocsNameIsAnOptionOfLookout() throws {
        let commands = try Self.commands()
        try #require((commands.options["run"]?.count ?? 0) > 50, "run's options from the help dump: \(commands.options["run"] ?? [])")
        #expect(commands.subcommands[""]?.isSuperset(of: ["run", "scan", "devices", "config"]) == true, "subcommands: \(commands.subcommands[""] ?? [])")
        let options = try Self.mentions(subcommands: commands.subcommands).flatMap(\.options)
        #expect(options.count > 300, "options found in the docs: \(options.count)")
        #expect(Set(options.map(\.name)).isSuperset(of: ["input", "mqtt", "http", "record", "on-code", "no-snapshot-boxes"]))
        let missing = options.filter { !Self.foreignOptions.contains($0.name) && !commands.allows($0.name, for: $0.command) }
        #expect(missing.isEmpty, """
            options the docs name that lookout does not have:
            \(missing.map { "\($0.file):\($0.line): --\($0.name) (\((["lookout"] + ($0.command ?? ["(any command)"])).joined(separator: " ")))" }.joined(separator: "\n"))
            """)
    }

    /// Routes the web server registers (`router.get("/api/status")`), read from its source.
    static func registeredRoutes() throws -> Set<String> {
        let source = try String(contentsOfFile: Fixtures.packageRoot + "/Sources/LookoutHTTP/WebServer.swift", encoding: .utf8)
        return Set(source.matches(of: /router\.(?:get|head|post|put|patch|delete)\("([^"]+)"/).map { String($0.output.1) })
    }

    /// The paths of docs/openapi.yaml (`  /api/status:` under `paths:`).
    static func documentedRoutes() throws -> Set<String> {
        let yaml = try String(contentsOfFile: Fixtures.packageRoot + "/docs/openapi.yaml", encoding: .utf8)
        return Set(yaml.matches(of: /(?m)^  (\/[^\s:]*):\s*$/).map { String($0.output.1) })
    }

    /// `/snapshots/NAME` names `/snapshots/{name}`: a parameter is any one segment.
    static func route(_ written: String, matches pattern: String) -> Bool {
        let a = written.split(separator: "/", omittingEmptySubsequences: false)
        let b = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { written, pattern in
            written == pattern || (pattern.hasPrefix("{") && pattern.hasSuffix("}")
                && !written.isEmpty && (written.allSatisfy { $0.isUppercase } || written.hasPrefix("{") || written.hasPrefix("<")))
        }
    }

    @Test func everyRouteTheDocsNameIsServed() throws {
        let registered = try Self.registeredRoutes()
        let documented = try Self.documentedRoutes()
        try #require(registered.count >= 10, "routes registered in WebServer.swift: \(registered)")
        try #require(documented.count >= 10, "paths in docs/openapi.yaml: \(documented)")
        #expect(registered == documented, "routes served but not in openapi.yaml, or the other way: \(registered.symmetricDifference(documented).sorted())")
        let routes = try Self.mentions(subcommands: [:]).flatMap(\.routes)
        #expect(routes.count > 20, "routes found in the docs: \(routes.count)")
        #expect(Set(routes.map(\.path)).isSuperset(of: ["/api/status", "/healthz", "/metrics", "/snapshots/NAME"]))
        let known = registered.union(documented)
        let missing = routes.filter { route in !known.contains { Self.route(route.path, matches: $0) } }
        #expect(missing.isEmpty, """
            routes the docs name that the web server does not serve:
            \(missing.map { "\($0.file):\($0.line): \($0.path)" }.joined(separator: "\n"))
            """)
    }

    @Test func everyRelativeLinkInTheDocsReachesAFileAndHeading() throws {
        let mentions = try Self.mentions(subcommands: [:])
        var anchorsByFile: [String: Set<String>] = [:]
        for (file, mention) in zip(Self.documents, mentions) { anchorsByFile[file] = mention.anchors }
        let links = mentions.flatMap(\.links)
        #expect(links.count > 50, "relative links found in the docs: \(links.count)")
        var broken: [String] = []
        for link in links {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let folder = (link.file as NSString).deletingLastPathComponent
            let file = parts[0].isEmpty ? link.file : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: Fixtures.packageRoot + "/" + file, isDirectory: &isFolder) else {
                broken.append("\(link.file):\(link.line): \(link.target): no file \(file)")
                continue
            }
            if parts.count == 2, file.hasSuffix(".md"), !(anchorsByFile[file] ?? []).contains(parts[1]) {
                broken.append("\(link.file):\(link.line): \(link.target): no heading #\(parts[1]) in \(file)")
            }
        }
        #expect(broken.isEmpty, "links in the docs that lead nowhere:\n\(broken.joined(separator: "\n"))")
    }
}
