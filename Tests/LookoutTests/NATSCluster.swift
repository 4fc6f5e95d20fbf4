import Foundation
import Testing

/// A real three-node NATS cluster (Debian's nats-server 2.9) on free loopback ports, in a scratch
/// folder: cluster routes between the nodes, JetStream on (file store), and an MQTT listener on
/// each, whose sessions, queued QoS 1 messages and retained messages live in JetStream streams
/// replicated on every node (`stream_replicas: 3`), so they survive the loss of any one node.
///
/// The tests start and kill the processes themselves; the package's systemd service is not used.
final class NATSCluster {
    struct Node {
        let name: String
        let mqttPort: Int
        let monitorPort: Int
        let configuration: String
        var url: String { "mqtt://127.0.0.1:\(mqttPort)" }
    }

    let nodes: [Node]
    let folder: ScratchFolder
    private var processes: [BackgroundProcess?]

    init(size: Int = 3, streamReplicas: Int = 3) throws {
        folder = try ScratchFolder()
        // Every port first: each node's configuration names all the cluster ports.
        let clusterPorts = try (0..<size).map { _ in try TestPort.lease() }
        let routes = clusterPorts.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", ")
        var nodes: [Node] = []
        for index in 0..<size {
            let name = "lookout-test-\(index + 1)"
            let store = folder.path + "/" + name
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
            let node = Node(name: name, mqttPort: try TestPort.lease(), monitorPort: try TestPort.lease(),
                            configuration: folder.path + "/\(name).conf")
            let text = """
                server_name: \(name)
                listen: 127.0.0.1:-1
                http: 127.0.0.1:\(node.monitorPort)
                jetstream { store_dir: "\(store)", max_memory_store: 256MB, max_file_store: 1GB }
                cluster { name: lookout-test, listen: 127.0.0.1:\(clusterPorts[index]), routes: [\(routes)] }
                mqtt { listen: 127.0.0.1:\(node.mqttPort), stream_replicas: \(streamReplicas) }
                """
            try text.write(toFile: node.configuration, atomically: true, encoding: .utf8)
            nodes.append(node)
        }
        self.nodes = nodes
        processes = Array(repeating: nil, count: size)
    }

    /// The brokers of the fabric in one `--mqtt` value: every node's address, the prefix on the last.
    func brokerList(prefix: String) -> String {
        nodes.map(\.url).joined(separator: ",") + "/" + prefix
    }

    /// Starts every node that is not running and waits until the cluster serves MQTT on each.
    func start() throws {
        for index in nodes.indices where processes[index]?.isRunning != true {
            processes[index] = try BackgroundProcess("/usr/sbin/nats-server", ["-c", nodes[index].configuration])
        }
        try waitUntilReady()
    }

    /// Kills the node at `index` as a power cut would (SIGKILL: no goodbye to its peers or clients).
    func kill(_ index: Int) {
        guard let process = processes[index] else { return }
        process.signal(SIGKILL)
        process.waitForExit(timeout: 30)
        processes[index] = nil
    }

    /// Kills every node.
    func killAll() {
        for index in nodes.indices { kill(index) }
    }

    /// Starts the node at `index` again on its own store, and waits until the cluster serves MQTT
    /// on every running node.
    func restart(_ index: Int) throws {
        precondition(processes[index] == nil, "restart a node that was killed")
        processes[index] = try BackgroundProcess("/usr/sbin/nats-server", ["-c", nodes[index].configuration])
        try waitUntilReady()
    }

    func stop() {
        for process in processes.compactMap({ $0 }) { process.signal(SIGTERM) }
        for process in processes.compactMap({ $0 }) { process.waitForExit(timeout: 30) }
        processes = processes.map { _ in nil }
    }

    deinit { stop() }

    /// The node (index) an MQTT client with this client ID is connected to now, from each
    /// running node's connection list (`/connz`); nil when none has it.
    func node(holding clientID: String) -> Int? {
        nodes.indices.first { index in
            guard processes[index]?.isRunning == true,
                  let list = try? monitor(index, "connz?limit=100000")?["connections"] as? [[String: Any]] else { return false }
            return list.contains { $0["mqtt_client"] as? String == clientID }
        }
    }

    /// The running nodes' standard error (nats-server logs there), for failure messages.
    var logs: String {
        nodes.indices.compactMap { index in
            processes[index].map { "\(nodes[index].name): " + $0.errors.lines.suffix(8).joined(separator: "\n  ") }
        }.joined(separator: "\n")
    }

    /// A monitoring endpoint's JSON answer; nil while the node does not answer.
    func monitor(_ index: Int, _ endpoint: String) throws -> [String: Any]? {
        let answer = try httpGet("http://127.0.0.1:\(nodes[index].monitorPort)/\(endpoint)")
        return answer.status == 200 ? answer.json : nil
    }

    /// Every running node: its JetStream knows a meta leader for the full cluster (the Raft group
    /// that places streams), and an MQTT client can connect and have a QoS 1 message
    /// acknowledged. The first MQTT client on a node looks up (or creates) the account's MQTT
    /// streams, and a node refuses MQTT clients until they answer: the probe is retried.
    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(180)
        for index in nodes.indices {
            guard let process = processes[index] else { continue }
            // A leader is enough here: the MQTT probe below needs the MQTT streams, which a node
            // reaches only with the cluster's quorum. (Waiting for `cluster_size` to be the full
            // count as well timed out once under CI's load after every node had restarted.)
            var meta: [String: Any] = [:]
            let joined = try eventually(timeout: deadline.timeIntervalSinceNow, every: 0.2) {
                guard process.isRunning, let jetStream = try monitor(index, "jsz"),
                      let cluster = jetStream["meta_cluster"] as? [String: Any] else { return false }
                meta = cluster
                return !(cluster["leader"] as? String ?? "").isEmpty
            }
            try #require(joined, "\(nodes[index].name) has no JetStream meta leader (meta_cluster \(meta)):\n\(logs)")
            let accepted = try eventually(timeout: deadline.timeIntervalSinceNow, every: 0.2) { try process.isRunning && mqttProbe(port: nodes[index].mqttPort) }
            try #require(accepted, "\(nodes[index].name) does not accept MQTT clients:\n\(logs)")
        }
    }

    /// Publishes one QoS 1 message with mosquitto_pub: true when the broker acknowledged it (the
    /// tool exits 0 only then), false when it refused or did not answer within 15 s.
    private func mqttProbe(port: Int) throws -> Bool {
        let probe = try BackgroundProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-q", "1",
                                                                     "-t", "lookout-test/probe", "-m", "probe"])
        if !eventually(timeout: 15, { !probe.isRunning }) { probe.signal(SIGKILL) }
        return probe.waitForExit(timeout: 10) == 0
    }
}
