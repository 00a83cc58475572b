import Foundation
@testable import PresenceImaging

/// The shared corpora folder: `$PRESENCE_CORPORA`, or `../shared/corpora` beside the package.
let corporaURL: URL = {
    if let override = ProcessInfo.processInfo.environment["PRESENCE_CORPORA"] {
        return URL(fileURLWithPath: override)
    }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpora")
}()

let resourcesURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources")

/// Every file with one of `extensions` below `folder` of the corpora, sorted.
func corpusFiles(_ folder: String, extensions: Set<String> = ["png", "jpg", "jpeg"]) -> [URL] {
    let root = corporaURL.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
    return walker.compactMap { $0 as? URL }
        .filter { extensions.contains($0.pathExtension.lowercased()) }
        .sorted { $0.path < $1.path }
}

func fnv1a64(_ bytes: [UInt8]) -> String {
    ContentDigest.fnv1a64(bytes)
}

/// Mean absolute difference per RGB channel between two images of the same size.
func meanDifference(_ a: DecodedImage, _ b: DecodedImage) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    var total = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
            total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
        }
    }
    return Double(total) / Double(a.width * a.height * 3)
}

/// A PNG file made of the given chunks, each with a correct CRC.
func pngFile(chunks: [(type: String, data: [UInt8])]) -> [UInt8] {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    for chunk in chunks {
        let length = UInt32(chunk.data.count)
        bytes += withUnsafeBytes(of: length.bigEndian, Array.init)
        let typed = Array(chunk.type.utf8) + chunk.data
        bytes += typed
        bytes += withUnsafeBytes(of: crc32(typed).bigEndian, Array.init)
    }
    return bytes
}

func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6) -> (type: String, data: [UInt8]) {
    ("IHDR", withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
        + [bitDepth, colorType, 0, 0, 0])
}

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

/// A deterministic generator for fuzzing.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A test image: horizontal colour gradient with a vertical luminance gradient.
func gradientImage(width: Int, height: Int, alpha: UInt8 = 255) -> DecodedImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let offset = (y * width + x) * 4
            pixels[offset] = UInt8(x * 255 / max(1, width - 1))
            pixels[offset + 1] = UInt8(y * 255 / max(1, height - 1))
            pixels[offset + 2] = UInt8((x + y) * 255 / max(1, width + height - 2))
            pixels[offset + 3] = alpha
        }
    }
    return DecodedImage(width: width, height: height, pixels: pixels)
}

/// One lane for CPU-heavy test work.
private let cpuHeavyLane = DispatchQueue(label: "presence.tests.cpu-heavy")

/// Runs CPU-heavy test work one at a time on its own serial queue, so it neither occupies Swift's
/// cooperative pool (two threads on a 2-core machine) nor starves the network threads that other
/// suites' tests depend on.
func offThePool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        cpuHeavyLane.async {
            continuation.resume(with: Swift.Result { try body() })
        }
    }
}
