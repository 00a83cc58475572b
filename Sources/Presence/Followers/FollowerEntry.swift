import Foundation

/// One user of a follower list: who, and where their avatar is, or why the entry is unusable.
///
/// A value type; safe to use from any thread.
public struct FollowerEntry: Sendable, Hashable, Codable {
    /// Position in the list, from 0.
    public var index: Int
    /// The user id (`id_str` / `id`), when the list has one.
    public var id: String?
    /// The screen name (`screen_name` / `username`), when the list has one.
    public var screenName: String?
    /// The avatar's URL.
    public var imageURL: URL?
    /// Why this entry cannot be fetched (malformed entry), or nil.
    public var problem: String?

    /// Creates an entry.
    public init(index: Int, id: String? = nil, screenName: String? = nil, imageURL: URL? = nil, problem: String? = nil) {
        self.index = index
        self.id = id
        self.screenName = screenName
        self.imageURL = imageURL
        self.problem = problem
    }
}

/// Twitter-style avatar sizes, chosen by the suffix of the file name
/// (`…/abc_normal.jpg` is 48 px, `_bigger` 73, `_200x200`, `_400x400`, no suffix the original upload).
public enum AvatarVariant: String, Sendable, Hashable, Codable, CaseIterable {
    /// The URL as the list gives it.
    case asListed = "as-listed"
    /// 48×48.
    case normal
    /// 73×73.
    case bigger
    /// 200×200.
    case size200 = "200x200"
    /// 400×400.
    case size400 = "400x400"
    /// The original upload.
    case original

    private static let knownSuffixes = ["_normal", "_bigger", "_mini", "_200x200", "_400x400"]

    /// `url` rewritten to this variant; URLs without a known suffix are returned unchanged.
    public func apply(to url: URL) -> URL {
        guard self != .asListed, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var path = components.percentEncodedPath
        guard let slash = path.lastIndex(of: "/") else { return url }
        let file = path[path.index(after: slash)...]
        let dot = file.lastIndex(of: ".")
        let stem = dot.map { file[..<$0] } ?? file
        let fileExtension = dot.map { String(file[$0...]) } ?? ""
        guard let suffix = Self.knownSuffixes.first(where: { stem.hasSuffix($0) }) else { return url }
        let base = stem.dropLast(suffix.count)
        let newSuffix = switch self {
        case .asListed: suffix
        case .normal: "_normal"
        case .bigger: "_bigger"
        case .size200: "_200x200"
        case .size400: "_400x400"
        case .original: ""
        }
        path = String(path[...slash]) + base + newSuffix + fileExtension
        components.percentEncodedPath = path
        return components.url ?? url
    }
}
