import Foundation
import PresenceLocking

/// Original response bytes with their HTTP validators, in a folder the caller names.
///
/// Content addressed (file names are digests of the key), written atomically, kept under a size
/// limit by trimming least recently used entries, and it survives restarts (the index is rebuilt
/// from the folder). Every read checks the entry's header, URL, length and digest: a corrupt or
/// partial entry is deleted and reported as a miss, never served.
///
/// Thread-safe: every method may be called from any thread; `index`'s lock guards the in-memory
/// index, and files are replaced only by atomic renames.
public final class DiskCache: Sendable {
    private static let magic = Data("PRESENCE-CACHE 1\n".utf8)
    private static let fileExtension = "entry"

    private struct IndexEntry {
        var size: Int
        var lastAccess: Date
    }

    /// The cache's folder.
    public let directory: URL
    /// The most bytes kept on disk; the least recently used entries are deleted beyond it.
    public let sizeLimit: Int
    private let index = Locked<[String: IndexEntry]>([:])

    /// Opens (or creates) the cache in `directory` and indexes what is already there.
    public init(directory: URL, sizeLimit: Int = 256 << 20) throws {
        self.directory = directory
        self.sizeLimit = sizeLimit
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        var entries: [String: IndexEntry] = [:]
        for file in files {
            let name = file.lastPathComponent
            if name.hasPrefix(AtomicFile.temporaryPrefix) {
                try? FileManager.default.removeItem(at: file)  // left by a crash mid-write
                continue
            }
            guard file.pathExtension == Self.fileExtension else { continue }
            let values = try? file.resourceValues(forKeys: Set(keys))
            entries[name] = IndexEntry(size: values?.fileSize ?? 0, lastAccess: values?.contentModificationDate ?? .distantPast)
        }
        index.withLock { $0 = entries }
    }

    /// The entry for `key`, or nil when absent, corrupt or partial (then it is deleted).
    public func entry(for key: String) -> CacheEntry? {
        let name = fileName(for: key)
        let url = directory.appendingPathComponent(name)
        guard let bytes = try? Data(contentsOf: url) else {
            index.withLock { _ = $0.removeValue(forKey: name) }
            return nil
        }
        guard let entry = Self.parse(bytes), entry.metadata.url == key else {
            remove(fileNamed: name)
            return nil
        }
        let now = Date()
        index.withLock { $0[name] = IndexEntry(size: bytes.count, lastAccess: now) }
        _ = utimes(url.path, nil)  // recency survives restarts through the modification date
        return entry
    }

    /// Stores `data` with `metadata` for `key`, atomically, then trims to the size limit.
    public func store(_ data: Data, metadata: CacheMetadata, for key: String) throws {
        var metadata = metadata
        metadata.url = key
        metadata.bodyLength = data.count
        metadata.bodyDigest = ContentDigest.fnv1a64(data)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        var file = Self.magic
        file.append(try encoder.encode(metadata))
        file.append(0x0A)
        file.append(data)
        guard file.count <= sizeLimit else { return }
        let name = fileName(for: key)
        try AtomicFile.write(file, to: directory.appendingPathComponent(name))
        index.withLock { $0[name] = IndexEntry(size: file.count, lastAccess: Date()) }
        trim()
    }

    /// Removes the entry for `key`.
    public func removeEntry(for key: String) {
        remove(fileNamed: fileName(for: key))
    }

    /// Removes every entry.
    public func removeAll() {
        let names = index.withLock { s in
            defer { s.removeAll() }
            return Array(s.keys)
        }
        for name in names { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    /// Bytes on disk, as indexed.
    public var totalSize: Int { index.withLock { $0.values.reduce(0) { $0 + $1.size } } }

    /// Entries on disk, as indexed.
    public var count: Int { index.withLock { $0.count } }

    /// The file that holds `key`'s entry.
    public func fileURL(for key: String) -> URL {
        directory.appendingPathComponent(fileName(for: key))
    }

    // MARK: Internals

    private func fileName(for key: String) -> String {
        "\(ContentDigest.fnv1a64(Array(key.utf8))).\(Self.fileExtension)"
    }

    private func remove(fileNamed name: String) {
        index.withLock { _ = $0.removeValue(forKey: name) }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    private func trim() {
        let victims: [String] = index.withLock { s in
            var total = s.values.reduce(0) { $0 + $1.size }
            guard total > sizeLimit else { return [] }
            var removed: [String] = []
            for (name, entry) in s.sorted(by: { $0.value.lastAccess < $1.value.lastAccess }) {
                guard total > sizeLimit else { break }
                total -= entry.size
                s.removeValue(forKey: name)
                removed.append(name)
            }
            return removed
        }
        for name in victims { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    static func parse(_ bytes: Data) -> CacheEntry? {
        guard bytes.starts(with: magic) else { return nil }
        let afterMagic = bytes.index(bytes.startIndex, offsetBy: magic.count)
        guard let newline = bytes[afterMagic...].firstIndex(of: 0x0A) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let metadata = try? decoder.decode(CacheMetadata.self, from: bytes[afterMagic..<newline]) else { return nil }
        let body = Data(bytes[bytes.index(after: newline)...])
        guard body.count == metadata.bodyLength, ContentDigest.fnv1a64(body) == metadata.bodyDigest else { return nil }
        return CacheEntry(metadata: metadata, data: body)
    }
}
