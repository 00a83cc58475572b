import Foundation
import Presence

/// Reads a follower list from a file, standard input (`-`) or an http(s) URL.
enum ListLoader {
    static func load(_ source: String, timeout: Double) async throws(CommandFailure) -> FollowerList {
        let data = try await read(source, timeout: timeout)
        do {
            return try FollowerList.parse(data)
        } catch {
            throw CommandFailure(message: "\(source == "-" ? "standard input" : source): \(error)")
        }
    }

    private static func read(_ source: String, timeout: Double) async throws(CommandFailure) -> Data {
        if source == "-" {
            return FileHandle.standardInput.readDataToEndOfFile()
        }
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            var request = Request(url: url)
            request.timeoutInterval = timeout
            do {
                let (data, response) = try await Session.shared.data(for: request)
                try response.validateStatus(body: data)
                return data
            } catch {
                throw CommandFailure(message: "cannot fetch the list \(source): \(error)")
            }
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: source))
        } catch {
            throw CommandFailure(message: "cannot read \(source): \(FileProblem.describe(source))")
        }
    }
}

/// Why a path cannot be read, in the words of the operating system.
enum FileProblem {
    static func describe(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a folder" }
        let descriptor = open(path, O_RDONLY)
        if descriptor < 0 { return String(cString: strerror(errno)) }
        close(descriptor)
        return "unreadable"
    }
}
