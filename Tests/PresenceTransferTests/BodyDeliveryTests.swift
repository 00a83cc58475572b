import Foundation
import PresenceFixtures
import PresenceTransfer
import Testing

@Suite("Body delivery through delegate chunks")
struct BodyDeliveryTests {
    static let size = 300_000
    static let expected = Data(PatternBytes.make(count: size, seed: 5))

    @Test("chunks add up to the body exactly", arguments: ["", "chunked=1", "gzip=1", "rate=1500000", "chunked=1&gzip=1"])
    func chunksMatchBody(options: String) async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let url = URL(string: "\(server.baseURL)/bytes/\(Self.size)?seed=5&\(options)")!
                let task = session.dataTask(with: url)
                task.resume()
                await delegate.waitForCompletions(1)
                let record = delegate.record(task.taskIdentifier)
                #expect(record.error == nil)
                #expect(record.response?.statusCode == 200)
                #expect(record.chunks.count > 1, "a 300 kB body arrives in several chunks")
                #expect(StaticResource.fingerprint(delegate.body(task.taskIdentifier)) == StaticResource.fingerprint(Self.expected))
                #expect(task.countOfBytesReceived == Int64(Self.size))
                #expect(task.currentState == .completed)
                #expect(record.events.first == "response" && record.events.last == "complete")
            }
        }
    }

    @Test("download progress is monotonic and ends at the total", arguments: ["", "chunked=1", "gzip=1", "rate=2000000"])
    func downloadProgress(options: String) async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let task = session.downloadTask(with: URL(string: "\(server.baseURL)/bytes/\(Self.size)?seed=5&\(options)")!)
                task.resume()
                await delegate.waitForCompletions(1)
                let record = delegate.record(task.taskIdentifier)
                #expect(record.error == nil)
                #expect(record.downloadedBytes == Self.expected)
                let totals = record.progress.map(\.total)
                #expect(!totals.isEmpty)
                #expect(totals == totals.sorted())
                #expect(totals.last == Int64(Self.size))
                #expect(record.progress.map(\.written).reduce(0, +) == Int64(Self.size))
                if options.isEmpty || options.hasPrefix("rate") {
                    #expect(record.progress.allSatisfy { $0.expected == Int64(Self.size) })
                }
            }
        }
    }

    @Test("the temporary file is removed once the finished callback returns")
    func temporaryFileRemoved() async throws {
        try await withServer { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("presence-dl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = SessionConfiguration()
            configuration.temporaryDirectory = directory
            try await withRecordingSession(configuration: configuration) { session, delegate in
                let task = session.downloadTask(with: server.url("/bytes/5000"))
                task.resume()
                await delegate.waitForCompletions(1)
                #expect(delegate.record(task.taskIdentifier).downloadedBytes?.count == 5000)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(leftovers.isEmpty)
            }
        }
    }
}
