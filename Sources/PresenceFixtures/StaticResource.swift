import Foundation
import PresenceImaging

/// A body registered with the server, answered with validators, conditional requests and ranges.
///
/// A value type; safe to use from any thread.
public struct StaticResource: Sendable {
    /// The body.
    public var body: [UInt8]
    /// The `Content-Type` sent with it.
    public var contentType: String
    /// The strong entity tag, quoted.
    public var entityTag: String
    /// The `Last-Modified` date (whole seconds).
    public var lastModified: Date
    /// `Cache-Control` to send, if any (e.g. `max-age=60`).
    public var cacheControl: String?

    /// Creates a resource; the entity tag is derived from the bytes unless given.
    public init(
        body: [UInt8],
        contentType: String = "application/octet-stream",
        entityTag: String? = nil,
        lastModified: Date = Date(timeIntervalSince1970: 1_700_000_000),
        cacheControl: String? = nil
    ) {
        self.body = body
        self.contentType = contentType
        self.entityTag = entityTag ?? "\"\(Self.fingerprint(body))\""
        self.lastModified = Date(timeIntervalSince1970: lastModified.timeIntervalSince1970.rounded(.down))
        self.cacheControl = cacheControl
    }

    /// A 64-bit FNV-1a digest of `bytes` in hex: stable across runs and processes.
    public static func fingerprint<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        ContentDigest.fnv1a64(bytes)
    }
}

/// A parsed single `Range: bytes=` request.
enum ByteRange {
    /// Resolves `header` against a body of `length` bytes; nil when absent or unsatisfiable.
    static func resolve(_ header: String, length: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), length > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return nil }
        let parts = spec.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard let start = Int(parts[0]), start < length else { return nil }
        let end = parts[1].isEmpty ? length - 1 : min(Int(parts[1]) ?? -1, length - 1)
        guard end >= start else { return nil }
        return start...end
    }
}
