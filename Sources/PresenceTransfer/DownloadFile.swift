import Foundation

/// A download's temporary file, written with plain POSIX calls.
///
/// Only on the network thread.
final class DownloadFile {
    let url: URL
    private var descriptor: Int32

    /// Creates a new, empty, uniquely named file in `directory`.
    init(creatingIn directory: URL) throws(TransferError) {
        // mkstemps replaces the six template characters before the 4-character suffix.
        let pattern = "presence-download-" + String(repeating: "X", count: 6) + ".tmp"
        var template = Array(directory.appendingPathComponent(pattern).path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else {
            throw .cannotWriteFile(path: directory.path, reason: String(cString: strerror(errno)))
        }
        descriptor = fd
        url = URL(fileURLWithPath: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Opens an existing partial file to append to it.
    init(resuming path: String) throws(TransferError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else {
            throw .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
        }
        descriptor = fd
        url = URL(fileURLWithPath: path)
    }

    /// Appends `count` bytes; returns an error when the disk refuses them.
    func write(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) -> TransferError? {
        var offset = 0
        while offset < count {
            let written = Foundation.write(descriptor, pointer + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return .cannotWriteFile(path: url.path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        return nil
    }

    /// Empties the file (the server sent the whole body instead of the rest).
    func truncate() {
        _ = ftruncate(descriptor, 0)
    }

    func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
        descriptor = -1
    }

    func remove() {
        close()
        unlink(url.path)
    }
}
