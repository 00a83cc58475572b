import Foundation
import PresenceFixtures
import Testing

/// The output of one run of the `presence` executable.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// The built `presence` executable, beside the test bundle.
let presenceExecutable: URL = {
    let directory = Bundle.main.bundleURL
    let candidates = [directory.appendingPathComponent("presence"), directory.deletingLastPathComponent().appendingPathComponent("presence")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
}()

/// Runs `presence` with `arguments`, feeding `input` on standard input; sends SIGINT once
/// `interruptWhen` holds (polled every 20 ms). Terminates it if it runs longer than `timeout`.
func presence(
    _ arguments: [String], input: Data? = nil, in directory: URL? = nil,
    interruptWhen: (@Sendable () -> Bool)? = nil, timeout: TimeInterval = 120
) async throws -> Run {
    let process = Process()
    process.executableURL = presenceExecutable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("presence-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    let stdin = Pipe()
    process.standardInput = stdin
    let exited = AsyncStream<Void>.makeStream()
    process.terminationHandler = { _ in exited.continuation.yield() }
    try process.run()
    if let input { stdin.fileHandleForWriting.write(input) }
    try? stdin.fileHandleForWriting.close()
    let interrupter = Task {
        guard let interruptWhen else { return }
        while !interruptWhen() { try await Task.sleep(for: .milliseconds(20)) }
        process.interrupt()
    }
    let watchdog = Task {
        try await Task.sleep(for: .seconds(timeout))
        process.terminate()
    }
    for await _ in exited.stream { break }
    watchdog.cancel()
    interrupter.cancel()
    let run = Run(
        status: process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    )
    return run
}

func temporaryFolder(_ name: String = "presence-cli") -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

func world(_ server: FixtureServer, count: Int, faults: Int = 0, hostile: Int = 0, latency: Int = 0, seed: UInt64 = 3) -> FollowerWorld {
    var options = FollowerWorld.Options()
    options.count = count
    options.faultPercent = faults
    options.hostileNamePercent = hostile
    options.latencyMilliseconds = latency
    options.maximumSide = 200
    options.seed = seed
    return FollowerWorld(server: server, options: options)
}
