import Foundation

/// What the disk cache keeps about one response besides its bytes: HTTP validators and freshness.
///
/// A value type; safe to use from any thread.
public struct CacheMetadata: Sendable, Hashable, Codable {
    /// The URL the bytes came from (checked on read, so a hash collision can never serve the wrong image).
    public var url: String
    /// The `ETag` to revalidate with.
    public var entityTag: String?
    /// The `Last-Modified` to revalidate with.
    public var lastModified: String?
    /// `Cache-Control: max-age`, in seconds.
    public var maxAge: TimeInterval?
    /// `Cache-Control: no-cache`: always revalidate before use.
    public var mustRevalidate: Bool
    /// When the response was received (or last revalidated).
    public var storedAt: Date
    /// The body's length, checked on read.
    public var bodyLength: Int
    /// The body's digest, checked on read.
    public var bodyDigest: String

    /// Whether the entry may be served without asking the server, at `now`.
    public func isFresh(at now: Date = Date()) -> Bool {
        guard !mustRevalidate, let maxAge else { return false }
        return now.timeIntervalSince(storedAt) < maxAge
    }

    /// Whether a revalidation request can be made.
    public var canRevalidate: Bool { entityTag != nil || lastModified != nil }

    /// Metadata for a fresh response, or nil when it must not be stored (`no-store`).
    static func from(_ response: HTTPResponse, body: Data, now: Date = Date()) -> CacheMetadata? {
        let directives = CacheControl(response.headers["Cache-Control"])
        guard !directives.noStore else { return nil }
        return CacheMetadata(
            url: response.url.absoluteString, entityTag: response.entityTag, lastModified: response.lastModified,
            maxAge: directives.maxAge, mustRevalidate: directives.noCache, storedAt: now,
            bodyLength: body.count, bodyDigest: ContentDigest.fnv1a64(body)
        )
    }

    /// This metadata refreshed by a 304: new validators and freshness where the server sent them.
    func refreshed(by response: HTTPResponse, now: Date = Date()) -> CacheMetadata {
        var copy = self
        let directives = CacheControl(response.headers["Cache-Control"])
        copy.storedAt = now
        if let tag = response.entityTag { copy.entityTag = tag }
        if let modified = response.lastModified { copy.lastModified = modified }
        if response.headers["Cache-Control"] != nil {
            copy.maxAge = directives.maxAge
            copy.mustRevalidate = directives.noCache
        }
        return copy
    }
}

/// The parts of `Cache-Control` a client cache needs.
struct CacheControl {
    var maxAge: TimeInterval?
    var noCache = false
    var noStore = false

    init(_ header: String?) {
        for directive in (header ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "max-age": maxAge = parts.count > 1 ? TimeInterval(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) : nil
            case "no-cache": noCache = true
            case "no-store": noStore = true
            default: break
            }
        }
    }
}

/// One disk cache entry: metadata and the original bytes.
public struct CacheEntry: Sendable, Hashable {
    /// Validators and freshness.
    public var metadata: CacheMetadata
    /// The original response body.
    public var data: Data
}
