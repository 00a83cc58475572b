import Foundation

/// Runs `presence bench-worker` in a child process and reads its measurement.
struct WorkerRunner: Sendable {
    let timeout: Double

    /// This executable, as the kernel knows it.
    static let executable: URL = {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path)
    }()

    func measure(_ arguments: [String]) async throws -> BenchMeasurement {
        let output = try await ChildProcess.run(Self.executable, ["bench-worker"] + arguments, timeout: timeout)
        guard output.status == 0, let line = output.stdout.split(separator: "\n").last,
              let measurement = try? JSONDecoder().decode(BenchMeasurement.self, from: Data(line.utf8)) else {
            throw CommandFailure(message: "benchmark worker \(arguments.joined(separator: " ")) failed (status \(output.status)): \(output.stderr.suffix(300))", exitCode: 1)
        }
        return measurement
    }
}

/// Runs a program to completion with a time limit, capturing its output through files.
enum ChildProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
        var childCPUSeconds: Double
    }

    static func run(_ executable: URL, _ arguments: [String], timeout: Double, environment: [String: String]? = nil) async throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("presence-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.yield() }
        let cpuBefore = ProcessProbe.cpuSeconds(ofChildren: true)
        let started = Date()
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        for await _ in exited.stream { break }
        watchdog.cancel()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self),
            seconds: Date().timeIntervalSince(started),
            childCPUSeconds: ProcessProbe.cpuSeconds(ofChildren: true) - cpuBefore
        )
    }
}
