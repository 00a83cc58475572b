import ArgumentParser
import Foundation
import Presence
import PresenceLocking

/// `presence get`: one transfer through the engine, streamed to a file or discarded, with its
/// cost (time, bytes, peak memory of this process).
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch one URL through the transfer engine and report its cost (like curl, with limits).",
        discussion: "The body streams to --output or is discarded; it is never held in memory. Exit status 1 on failure."
    )

    @Argument(help: "The http(s) URL to fetch.")
    var url: String

    @Option(name: .shortAndLong, help: "Write the body here (atomically). Default: discard it.")
    var output: String?

    @Option(help: "Stop and fail when the body exceeds this many bytes.")
    var maxBytes: Int64 = 64 << 20

    @Option(help: "Seconds without data before failing.")
    var timeout: Double = 30

    @Flag(help: "Print the outcome as JSON on standard output.")
    var json = false

    func validate() throws {
        guard URL(string: url)?.scheme != nil else { throw ValidationError("\(url) is not a URL.") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive.") }
    }

    func run() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumResponseBytes = maxBytes
        configuration.timeoutIntervalForRequest = timeout
        let finished = AsyncStream<Void>.makeStream()
        let delegate = CompletionSignal { finished.continuation.yield() }
        let session = Session(configuration: configuration, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let request = Request(url: URL(string: url)!)
        let started = Date()
        let task: SessionTask = output == nil ? session.dataTask(with: request) : session.downloadTask(with: request)
        task.resume()
        for await _ in finished.stream { break }
        let seconds = Date().timeIntervalSince(started)
        if let error = task.error {
            report(status: task.response?.statusCode, bytes: task.countOfBytesReceived, seconds: seconds, error: "\(error)")
            throw ExitStatus(code: 1)
        }
        if let output, let file = delegate.file {
            do {
                try AtomicFile.write(Data(contentsOf: file, options: .alwaysMapped), to: URL(fileURLWithPath: output))
            } catch {
                throw CommandFailure(message: "cannot write \(output): \(error.localizedDescription)", exitCode: 1)
            }
        }
        let status = task.response?.statusCode ?? 0
        report(status: status, bytes: task.countOfBytesReceived, seconds: seconds, error: (200...299).contains(status) ? nil : "HTTP \(status)")
        if !(200...299).contains(status) { throw ExitStatus(code: 1) }
    }

    private func report(status: Int?, bytes: Int64, seconds: Double, error: String?) {
        let peak = ProcessProbe.peakResidentBytes()
        if json {
            var object: [String: Any] = ["bytes": bytes, "seconds": seconds, "peakResidentBytes": peak]
            if let status { object["status"] = status }
            if let error { object["error"] = error }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            Console.out(String(decoding: data, as: UTF8.self))
        } else {
            let rate = seconds > 0 ? Format.bytes(Int(Double(bytes) / seconds)) + "/s" : "-"
            let summary = "\(status.map { "HTTP \($0), " } ?? "")\(Format.bytes(Int(bytes))) in \(Format.duration(seconds)) (\(rate)), peak memory \(Format.bytes(peak))"
            if let error { Console.error("\(url): \(error) (\(summary))") } else { Console.out(summary) }
        }
    }
}

/// Signals when the one task completes and keeps its downloaded file until the process is done.
///
/// Thread-safe: `kept`'s lock guards the only state.
private final class CompletionSignal: SessionDownloadDelegate {
    private let onComplete: @Sendable () -> Void
    private let kept = Locked<URL?>(nil)

    init(onComplete: @escaping @Sendable () -> Void) {
        self.onComplete = onComplete
    }

    var file: URL? { kept.withLock { $0 } }

    func session(_ session: Session, downloadTask: SessionDownloadTask, didFinishDownloadingTo location: URL) {
        let keep = location.deletingLastPathComponent().appendingPathComponent("presence-get-\(UUID().uuidString).tmp")
        if (try? FileManager.default.moveItem(at: location, to: keep)) != nil { kept.withLock { $0 = keep } }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        onComplete()
    }

    deinit {
        if let file = kept.withLock({ $0 }) { try? FileManager.default.removeItem(at: file) }
    }
}
