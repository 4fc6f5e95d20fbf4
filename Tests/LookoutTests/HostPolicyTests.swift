@testable import LookoutHTTP
import Testing

/// Which Host and Origin headers the web server answers (DNS rebinding, other sites' pages).
@Suite("Host policy")
struct HostPolicyTests {
    @Test func loopbackIsParsedNotMatchedByPrefix() {
        for host in ["localhost", "LocalHost.", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
        for host in ["127.0.0.1.nip.io", "127.evil.example", "128.0.0.1", "0.0.0.0", "::", "::2", "10.0.0.1", "localhost.evil",
                     "evil-localhost", "", "127.1", "::ffff:10.0.0.1"] {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
        #expect(WebServerAddress(host: "127.0.0.1.example.com", port: 80).isLoopback == false)
        #expect(WebServerAddress(host: "127.0.0.2", port: 80).isLoopback)
    }

    @Test func aLoopbackServerWithoutTokenAnswersLoopbackAndAllowedHostsOnly() {
        let policy = HostPolicy(allowedHosts: ["Lookout.LAN"], restrictsHost: true)
        #expect(policy.check(host: "localhost:8080", origin: nil) == .allowed)
        #expect(policy.check(host: "[::1]:8080", origin: nil) == .allowed)
        #expect(policy.check(host: "lookout.lan:8080", origin: nil) == .allowed)
        #expect(policy.check(host: nil, origin: nil) == .allowed, "HTTP/1.0 without Host: no browser")
        #expect(policy.check(host: "attacker.example:8080", origin: nil) == .wrongHost("attacker.example"))
        #expect(policy.check(host: "127.0.0.1.attacker.example", origin: nil) == .wrongHost("127.0.0.1.attacker.example"))
        let open = HostPolicy(restrictsHost: false)
        #expect(open.check(host: "camera.example", origin: nil) == .allowed)
    }

    @Test func anOriginMustBeThisServerOrAnAllowedHost() {
        let policy = HostPolicy(allowedHosts: ["dashboard.lan"], restrictsHost: false)
        #expect(policy.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080") == .allowed)
        #expect(policy.check(host: "camera.lan", origin: "http://camera.lan") == .allowed, "default port 80 on both")
        #expect(policy.check(host: "camera.lan", origin: "http://camera.lan:80") == .allowed)
        #expect(policy.check(host: "camera.lan", origin: "https://dashboard.lan") == .allowed)
        #expect(policy.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8081") == .crossOrigin("http://127.0.0.1:8081"))
        #expect(policy.check(host: "127.0.0.1:8080", origin: "https://127.0.0.1:8080") == .crossOrigin("https://127.0.0.1:8080"))
        #expect(policy.check(host: "127.0.0.1:8080", origin: "null") == .crossOrigin("null"))
        #expect(policy.check(host: nil, origin: "http://127.0.0.1") == .crossOrigin("http://127.0.0.1"))
    }

    @Test func authoritiesSplitIntoHostAndPort() throws {
        let v6 = try #require(HostPolicy.split("[::1]:8080"))
        #expect(v6.host == "::1" && v6.port == 8080)
        let name = try #require(HostPolicy.split("Example.COM."))
        #expect(name.host == "example.com" && name.port == nil)
        #expect(HostPolicy.split("host:port") == nil)
        #expect(HostPolicy.split("[::1") == nil)
        #expect(HostPolicy.split(":80") == nil)
    }
}
