import ArgumentParser
import Foundation
import Presence

/// `presence check`: say what each file is, or why it is refused.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that files are sound PNG or JPEG images (fully decoded, CRCs verified).",
        discussion: "Exit status 0 only when every file is a sound image."
    )

    @Argument(help: "The files to check.")
    var files: [String]

    @Flag(help: "Print one JSON object per file on standard output.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to check.") }
    }

    func run() throws {
        let decoder = ImageDecoder()
        var allSound = true
        for path in files {
            let verdict: Verdict
            if let data = FileManager.default.contents(atPath: path) {
                do {
                    verdict = .sound(try decoder.decodeWithInfo(data).info)
                } catch {
                    verdict = .refused("refused: \(error)")
                }
            } else {
                verdict = .refused(FileProblem.describe(path))
            }
            if case .refused = verdict { allSound = false }
            if json {
                var object: [String: Any] = ["file": path]
                switch verdict {
                case let .sound(info):
                    object["sound"] = true
                    object["format"] = info.format.rawValue
                    object["width"] = info.orientedWidth
                    object["height"] = info.orientedHeight
                    object["description"] = info.description
                case let .refused(reason):
                    object["sound"] = false
                    object["reason"] = reason
                }
                let line = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                Console.out(String(decoding: line, as: UTF8.self))
            } else {
                switch verdict {
                case let .sound(info): Console.out("\(path): \(info)")
                case let .refused(reason): Console.out("\(path): \(reason)")
                }
            }
        }
        if !allSound { throw ExitStatus(code: 1) }
    }
}

/// What `check` concluded about one file.
private enum Verdict {
    case sound(ImageInfo)
    case refused(String)
}
