import Foundation
import PresenceFixtures
import PresenceTransfer
import Testing

@Suite("Connection limits, reuse and threads")
struct ConnectionLimitTests {
    @Test("500 tasks with 8 connections per host: all finish, never more than 8 in flight, connections reused")
    func fiveHundredTasks() async throws {
        try await withServer { server in
            var configuration = SessionConfiguration()
            configuration.httpMaximumConnectionsPerHost = 8
            try await withRecordingSession(configuration: configuration) { session, delegate in
                var tasks: [SessionDataTask] = []
                for index in 0..<500 {
                    let task = session.dataTask(with: server.url("/bytes/\(2000 + index)", ["gate": "five-hundred", "seed": "\(index)"]))
                    tasks.append(task)
                    task.resume()
                }
                // Held by the gate: 8 arrive, and no more while they wait.
                #expect(await eventually(timeout: 30) { server.responsesWaiting(atGate: "five-hundred") == 8 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(server.responsesWaiting(atGate: "five-hundred") == 8)
                server.openGate("five-hundred")
                await delegate.waitForCompletions(500, timeout: 60)
                for (index, task) in tasks.enumerated() {
                    #expect(delegate.record(task.taskIdentifier).error == nil)
                    #expect(delegate.body(task.taskIdentifier).count == 2000 + index)
                }
                let stats = server.stats
                #expect(stats.requestsServed == 500)
                #expect(stats.maxInFlight == 8)
                #expect(stats.connectionsAccepted <= 16, "connections: \(stats.connectionsAccepted)")
            }
        }
    }

    /// Threads while `count` transfers are all in flight at once on one session.
    func threadsWhileInFlight(_ count: Int, server: FixtureServer) async throws -> (threads: Int, inFlight: Int) {
        var configuration = SessionConfiguration()
        configuration.httpMaximumConnectionsPerHost = count
        var sample = (threads: 0, inFlight: 0)
        try await withRecordingSession(configuration: configuration) { session, delegate in
            server.resetStats()
            let gate = "threads-\(count)"
            for index in 0..<count {
                session.dataTask(with: server.url("/bytes/100", ["gate": gate, "seed": "\(index)"])).resume()
            }
            _ = await eventually(timeout: 60) { server.responsesWaiting(atGate: gate) >= count }
            sample = (threadCount(), server.stats.inFlight)
            server.openGate(gate)
            await delegate.waitForCompletions(count, timeout: 60)
        }
        return sample
    }

    @Test("no thread per transfer: the thread count is flat between 1 and 500 transfers in flight")
    func threadCountIsFlat() async throws {
        try await withServer { server in
            let one = try await threadsWhileInFlight(1, server: server)
            let many = try await threadsWhileInFlight(500, server: server)
            #expect(one.inFlight == 1)
            #expect(many.inFlight == 500, "all 500 must be in flight for the comparison to mean anything")
            // A thread per transfer would add ~500; other tests running in parallel add a few dozen at most.
            #expect(many.threads - one.threads < 60, "1 transfer: \(one.threads) threads, 500 transfers: \(many.threads)")
        }
    }

    @Test("a higher priority task waiting for a connection starts before lower ones")
    func priorityOrdersWaitingTasks() async throws {
        try await withServer { server in
            var configuration = SessionConfiguration()
            configuration.httpMaximumConnectionsPerHost = 1
            try await withRecordingSession(configuration: configuration) { session, delegate in
                let blocker = session.dataTask(with: server.url("/bytes/10", ["gate": "blocker"]))
                blocker.resume()
                #expect(await eventually { server.responsesWaiting(atGate: "blocker") == 1 })
                var low: [SessionDataTask] = []
                for index in 0..<4 {
                    let task = session.dataTask(with: server.url("/bytes/\(10 + index)"))
                    task.priority = SessionTask.lowPriority
                    task.resume()
                    low.append(task)
                }
                let high = session.dataTask(with: server.url("/bytes/99"))
                high.priority = SessionTask.highPriority
                high.resume()
                try await Task.sleep(for: .milliseconds(100))  // every start command reaches the network thread
                server.openGate("blocker")
                await delegate.waitForCompletions(6)
                let order = delegate.completionOrder
                #expect(order.first == blocker.taskIdentifier)
                #expect(order[1] == high.taskIdentifier, "order: \(order)")
                #expect(Array(order.dropFirst(2)) == low.map(\.taskIdentifier))
            }
        }
    }
}
