import Foundation

/// One image to load: where from, what to make of it, how urgently, and how to use the caches.
///
/// A value type; safe to use from any thread. Features are options on the request (as in Nuke),
/// not flags on the downloader.
public struct ImageRequest: Sendable, Hashable {
    /// How the caches are used.
    public enum CachePolicy: String, Sendable, Hashable, Codable {
        /// HTTP semantics: fresh entries are served without a request, stale ones revalidated
        /// (If-None-Match / If-Modified-Since); a stale entry is served, flagged, when the network fails.
        case useProtocolCachePolicy
        /// Serve any cached entry, fresh or stale; load only when there is none.
        case returnCacheDataElseLoad
        /// Offline: serve what the caches hold, never touch the network.
        case returnCacheDataDontLoad
        /// Always load from the network (the result still refreshes the caches).
        case reloadIgnoringCacheData
    }

    /// Scheduling priority; the highest of all waiters applies to a shared download.
    public enum Priority: Int, Sendable, Hashable, Comparable, Codable {
        case veryLow = 0, low, normal, high, veryHigh

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

        var operationQueuePriority: Operation.QueuePriority {
            switch self {
            case .veryLow: .veryLow
            case .low: .low
            case .normal: .normal
            case .high: .high
            case .veryHigh: .veryHigh
            }
        }

        var transferPriority: Float { Float(rawValue) / 4 }
    }

    /// The image's URL (http or https).
    public var url: URL
    /// The thumbnail to make, or nil to keep the original (which is still decoded, to prove it sound).
    public var spec: AvatarSpec?
    /// Scheduling priority.
    public var priority: Priority
    /// Extra header fields, such as per-account `Authorization`.
    public var headers: HTTPHeaders
    /// How the caches are used.
    public var cachePolicy: CachePolicy

    /// Creates a request.
    public init(
        url: URL,
        spec: AvatarSpec? = nil,
        priority: Priority = .normal,
        headers: HTTPHeaders = [:],
        cachePolicy: CachePolicy = .useProtocolCachePolicy
    ) {
        self.url = url
        self.spec = spec
        self.priority = priority
        self.headers = headers
        self.cachePolicy = cachePolicy
    }

    /// The key of the original bytes in the disk cache: the URL.
    var dataCacheKey: String { url.absoluteString }

    /// The key of the processed image in the memory cache: URL and spec.
    var imageCacheKey: String { "\(url.absoluteString)#\(spec?.identifier ?? "original")" }

    /// Identical in-flight requests (URL, spec and extra headers) share one download and decode.
    var coalescingKey: String {
        headers.fields.isEmpty ? imageCacheKey : "\(imageCacheKey)#\(ContentDigest.fnv1a64(Array(headers.description.utf8)))"
    }
}
