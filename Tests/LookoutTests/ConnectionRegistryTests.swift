@testable import LookoutHTTP
import Testing

/// Which connection gives way when a new client arrives at the web server's limits.
@Suite("Connection registry")
struct ConnectionRegistryTests {
    private func registry(maximum: Int, perClient: Int) -> ConnectionRegistry<Int> {
        var limits = ConnectionLimits()
        limits.maximumConnections = maximum
        limits.maximumConnectionsPerClient = perClient
        return ConnectionRegistry(limits: limits)
    }

    @Test func aNewClientTakesThePlaceOfTheLongestWaitingConnection() throws {
        let connections = registry(maximum: 4, perClient: 4)
        var ids: [Int] = []
        for handle in 0..<4 {
            let admission = connections.admit(client: "10.0.0.\(handle)", handle: handle, now: UInt64(handle))
            #expect(admission.evicted.isEmpty)
            ids.append(try #require(admission.id))
        }
        // The first is being answered: the second has waited longest.
        connections.setAnswering(ids[0], true, now: 10)
        let admission = connections.admit(client: "10.0.0.9", handle: 9, now: 20)
        #expect(admission.id != nil)
        #expect(admission.evicted == [1])
        #expect(connections.count == 4)
    }

    @Test func oneClientNeverHoldsMoreThanItsShare() throws {
        let connections = registry(maximum: 10, perClient: 3)
        for handle in 0..<3 { #expect(connections.admit(client: "a", handle: handle, now: UInt64(handle)).evicted.isEmpty) }
        let fourth = connections.admit(client: "a", handle: 3, now: 5)
        #expect(fourth.evicted == [0], "its own oldest gives way")
        let other = connections.admit(client: "b", handle: 4, now: 6)
        #expect(other.evicted.isEmpty)
        #expect(connections.count == 4)
    }

    @Test func whenEveryConnectionIsAnsweredTheNewOneIsRefused() throws {
        let connections = registry(maximum: 2, perClient: 2)
        for handle in 0..<2 {
            let id = try #require(connections.admit(client: "c\(handle)", handle: handle, now: 0).id)
            connections.setAnswering(id, true, now: 1)
        }
        let refused = connections.admit(client: "d", handle: 5, now: 2)
        #expect(refused.id == nil)
        #expect(refused.evicted.isEmpty)
        #expect(connections.count == 2)
    }

    @Test func aClosedConnectionFreesItsPlace() throws {
        let connections = registry(maximum: 1, perClient: 1)
        let id = try #require(connections.admit(client: "a", handle: 0, now: 0).id)
        connections.setAnswering(id, true, now: 0)
        #expect(connections.admit(client: "b", handle: 1, now: 1).id == nil)
        connections.remove(id)
        #expect(connections.admit(client: "b", handle: 1, now: 2).id != nil)
    }
}
