import ArgumentParser
import Foundation
import Presence
import PresenceLocking

/// `presence thumb`: one thumbnail, or many in process with a measured rate.
struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make avatar thumbnails: `thumb IN OUT`, or `thumb IN... --out DIR [--jobs N]`.",
        discussion: "With --out, every input is thumbnailed in process on --jobs threads and the rate is printed."
    )

    @Argument(help: "IN OUT for one thumbnail; the input files when --out is given.")
    var paths: [String]

    @Option(name: .shortAndLong, help: "Folder for many thumbnails (then every path is an input).")
    var out: String?

    @Option(name: .shortAndLong, help: "Threads for many thumbnails (1: a single thread).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var thumbnail: ThumbnailOptions

    func validate() throws {
        if out == nil, paths.count != 2 {
            throw ValidationError("Give IN and OUT, or several inputs with --out DIR.")
        }
        if out != nil, paths.isEmpty { throw ValidationError("Name at least one input.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
    }

    func run() throws {
        if let out {
            try batch(into: URL(fileURLWithPath: out))
        } else {
            try single(from: paths[0], to: paths[1])
        }
    }

    private func single(from input: String, to output: String) throws {
        let lower = output.lowercased()
        let spec = thumbnail.spec(defaultFormat: lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") ? .jpeg : .png)
        guard let data = FileManager.default.contents(atPath: input) else {
            throw CommandFailure(message: "cannot read \(input): \(FileProblem.describe(input))")
        }
        let made: Thumbnail
        do {
            made = try Thumbnailer().thumbnail(from: data, spec: spec)
        } catch {
            throw CommandFailure(message: "\(input): \(error)", exitCode: 1)
        }
        do {
            try AtomicFile.write(made.data, to: URL(fileURLWithPath: output))
        } catch {
            throw CommandFailure(message: "cannot write \(output): \(error.localizedDescription)")
        }
        Console.out("\(output): \(spec.size)×\(spec.size) \(spec.output.fileExtension.uppercased()) from \(made.source)")
    }

    private func batch(into folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot create \(folder.path): \(error.localizedDescription)")
        }
        let spec = thumbnail.spec()
        var namer = FileNamer()
        let names = paths.enumerated().map { index, path in
            namer.name(for: FollowerEntry(index: index, screenName: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent),
                       fileExtension: spec.output.fileExtension)
        }
        let failures = Locked<[String]>([])
        let next = Locked(0)
        let thumbnailer = Thumbnailer()
        let paths = self.paths
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: min(jobs, paths.count)) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < paths.count else { return }
                do {
                    guard let data = FileManager.default.contents(atPath: paths[index]) else { throw ImageError.empty }
                    let made = try thumbnailer.thumbnail(from: data, spec: spec)
                    try AtomicFile.write(made.data, to: folder.appendingPathComponent(names[index]))
                } catch {
                    failures.withLock { $0.append("\(paths[index]): \(error)") }
                }
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let failed = failures.withLock { $0 }
        for failure in failed { Console.error(failure) }
        let made = paths.count - failed.count
        Console.out("\(made) thumbnails in \(Format.duration(elapsed)) on \(min(jobs, paths.count)) thread(s): "
            + "\(Format.rate(Double(paths.count) / max(elapsed, 1e-9))) images/s → \(folder.path)")
        if !failed.isEmpty { throw ExitStatus(code: 1) }
    }
}
