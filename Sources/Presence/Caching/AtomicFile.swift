import Foundation

/// Writes files so that readers see either the old file or the whole new one: the bytes go to a
/// uniquely named temporary file in the same folder, are flushed, then renamed over the target.
/// A crash or Ctrl-C leaves at most a `.presence-tmp-*` file, never a half-written target.
///
/// Stateless; safe to use from any thread.
public enum AtomicFile {
    /// The prefix of temporary files, so that folders can be cleaned of leftovers.
    public static let temporaryPrefix = ".presence-tmp-"

    /// Writes `data` to `url` atomically, creating nothing else.
    public static func write(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent("\(temporaryPrefix)\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError.error(.fileWriteUnknown, url: temporary, errno: errno) }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        guard failure == 0, rename(temporary.path, url.path) == 0 else {
            let code = failure != 0 ? failure : errno
            unlink(temporary.path)
            throw CocoaError.error(.fileWriteUnknown, url: url, errno: code)
        }
    }
}

extension CocoaError {
    static func error(_ code: CocoaError.Code, url: URL, errno: Int32) -> CocoaError {
        CocoaError(code, userInfo: [
            NSFilePathErrorKey: url.path,
            NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(errno)),
            NSLocalizedDescriptionKey: "\(url.path): \(String(cString: strerror(errno)))",
        ])
    }
}
