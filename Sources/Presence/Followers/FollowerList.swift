import Foundation

/// Why a follower list could not be read at all (single bad entries do not fail the list).
///
/// A value type; safe to use from any thread.
public enum FollowerListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON is malformed at `line`, `column` (1-based).
    case malformedJSON(line: Int, column: Int, detail: String)
    /// Valid JSON, but not a follower list Presence knows.
    case unrecognisedJSON(String)
    /// The list holds no entries.
    case empty
    /// The bytes are not UTF-8 text.
    case notText

    public var description: String {
        switch self {
        case let .malformedJSON(line, column, detail): "malformed JSON at line \(line), column \(column): \(detail)"
        case let .unrecognisedJSON(detail): "not a follower list: \(detail)"
        case .empty: "the list has no entries"
        case .notText: "the list is not UTF-8 text"
        }
    }
}

/// A follower list: Twitter API v1.1 (`followers/list`, `users/lookup`), v2, or plain URLs.
///
/// A value type; safe to use from any thread.
public struct FollowerList: Sendable, Hashable {
    /// The formats Presence reads.
    public enum Format: String, Sendable, Hashable, Codable {
        /// v1.1: `{"users": [...]}` or a bare array; `id_str`, `screen_name`, `profile_image_url_https`.
        case twitterV1
        /// v2: `{"data": [...]}`; `id`, `username`, `profile_image_url`.
        case twitterV2
        /// One URL a line; blank lines and `#` comments ignored.
        case urlList
    }

    /// Which format the list was in.
    public var format: Format
    /// Every entry, in list order; unusable ones carry a ``FollowerEntry/problem``.
    public var entries: [FollowerEntry]

    /// Reads a list, telling the format from its content.
    public static func parse(_ data: Data) throws(FollowerListError) -> FollowerList {
        guard let text = String(data: data, encoding: .utf8) else { throw .notText }
        let first = text.first { !$0.isWhitespace }
        let list: FollowerList
        if first == "{" || first == "[" {
            list = try parseJSON(data)
        } else {
            list = parseURLList(text)
        }
        guard !list.entries.isEmpty else { throw .empty }
        return list
    }

    // MARK: JSON

    private static func parseJSON(_ data: Data) throws(FollowerListError) -> FollowerList {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            let (line, column) = position(in: data, describedBy: detail)
            throw .malformedJSON(line: line, column: column, detail: detail)
        }
        if let array = object as? [Any] {
            return FollowerList(format: .twitterV1, entries: array.enumerated().map { v1Entry($1, index: $0) })
        }
        guard let dictionary = object as? [String: Any] else {
            throw .unrecognisedJSON("expected an object or an array at the top level")
        }
        if let users = dictionary["users"] as? [Any] {
            return FollowerList(format: .twitterV1, entries: users.enumerated().map { v1Entry($1, index: $0) })
        }
        if let data = dictionary["data"] as? [Any] {
            return FollowerList(format: .twitterV2, entries: data.enumerated().map { v2Entry($1, index: $0) })
        }
        if dictionary["errors"] != nil {
            throw .unrecognisedJSON("the API returned errors: \(String(describing: dictionary["errors"]!).prefix(160))")
        }
        throw .unrecognisedJSON("no \"users\" or \"data\" array (keys: \(dictionary.keys.sorted().joined(separator: ", ")))")
    }

    /// Line and column (1-based) of "around character N" in Foundation's message, counted in bytes.
    static func position(in data: Data, describedBy detail: String) -> (line: Int, column: Int) {
        var offset: Int?
        if let range = detail.range(of: "character ") {
            offset = Int(detail[range.upperBound...].prefix { $0.isNumber })
        }
        let bytes = [UInt8](data)
        let limit = min(offset ?? bytes.count, bytes.count)
        var line = 1, column = 1
        for byte in bytes[0..<limit] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    private static func string(_ value: Any?) -> String? {
        switch value {
        case let string as String: string.isEmpty ? nil : string
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    private static func v1Entry(_ value: Any, index: Int) -> FollowerEntry {
        guard let user = value as? [String: Any] else {
            return FollowerEntry(index: index, problem: "entry \(index + 1) is not a JSON object")
        }
        let id = string(user["id_str"]) ?? string(user["id"])
        let name = string(user["screen_name"])
        let rawURL = string(user["profile_image_url_https"]) ?? string(user["profile_image_url"])
        return entry(index: index, id: id, name: name, rawURL: rawURL, field: "profile_image_url_https")
    }

    private static func v2Entry(_ value: Any, index: Int) -> FollowerEntry {
        guard let user = value as? [String: Any] else {
            return FollowerEntry(index: index, problem: "entry \(index + 1) is not a JSON object")
        }
        return entry(index: index, id: string(user["id"]), name: string(user["username"]),
                     rawURL: string(user["profile_image_url"]), field: "profile_image_url")
    }

    private static func entry(index: Int, id: String?, name: String?, rawURL: String?, field: String) -> FollowerEntry {
        guard let rawURL else {
            return FollowerEntry(index: index, id: id, screenName: name, problem: "no \(field)")
        }
        switch validatedURL(rawURL) {
        case let .success(url): return FollowerEntry(index: index, id: id, screenName: name, imageURL: url)
        case let .failure(problem): return FollowerEntry(index: index, id: id, screenName: name, problem: problem.reason)
        }
    }

    struct URLProblem: Error { let reason: String }

    static func validatedURL(_ raw: String) -> Result<URL, URLProblem> {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            return .failure(URLProblem(reason: "not a URL: \(trimmed.prefix(80))"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(URLProblem(reason: "not an http(s) URL: \(trimmed.prefix(80))"))
        }
        guard let host = url.host, !host.isEmpty else {
            return .failure(URLProblem(reason: "URL has no host: \(trimmed.prefix(80))"))
        }
        return .success(url)
    }

    // MARK: URL lists

    private static func parseURLList(_ text: String) -> FollowerList {
        var entries: [FollowerEntry] = []
        for (lineNumber, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let index = entries.count
            switch validatedURL(trimmed) {
            case let .success(url):
                let stem = url.deletingPathExtension().lastPathComponent
                entries.append(FollowerEntry(index: index, screenName: stem.isEmpty ? nil : stem, imageURL: url))
            case let .failure(problem):
                entries.append(FollowerEntry(index: index, problem: "line \(lineNumber + 1): \(problem.reason)"))
            }
        }
        return FollowerList(format: .urlList, entries: entries)
    }
}
