import CZlib
import PresenceLocking

/// gzip compression for the `gzip` option and the gzip-bomb route.
///
/// Thread-safe: stateless functions, and a bomb cache guarded by its lock.
enum Gzip {
    /// Compresses `bytes` into one gzip member.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var output: [UInt8] = []
        withDeflater(level: level) { deflate in
            var input = bytes
            input.withUnsafeMutableBufferPointer { buffer in
                deflate(buffer, true, &output)
            }
        }
        return output
    }

    private static let bombs = Locked<[Int64: [UInt8]]>([:])

    /// A gzip body that inflates to `size` zero bytes (made once per size, then cached).
    static func bomb(inflatingTo size: Int64) -> [UInt8] {
        if let cached = bombs.withLock({ $0[size] }) { return cached }
        var output: [UInt8] = []
        // Level 1: zeros still compress about a thousandfold, at a fraction of level 9's cost.
        withDeflater(level: 1) { deflate in
            var zeros = [UInt8](repeating: 0, count: 1 << 20)
            var remaining = size
            zeros.withUnsafeMutableBufferPointer { buffer in
                while remaining > 0 {
                    let count = Int(min(remaining, Int64(buffer.count)))
                    remaining -= Int64(count)
                    deflate(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]), remaining == 0, &output)
                }
            }
        }
        bombs.withLock { $0[size] = output }
        return output
    }

    private static func withDeflater(
        level: Int32,
        _ body: ((UnsafeMutableBufferPointer<UInt8>, Bool, inout [UInt8]) -> Void) -> Void
    ) {
        var stream = z_stream()
        guard presence_deflate_init_gzip(&stream, level) == Z_OK else { return }
        defer { deflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        body { input, finish, output in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    _ = deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
            } while stream.avail_out == 0 || (finish && stream.avail_in > 0)
        }
    }
}
