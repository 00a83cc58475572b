import Foundation
import Testing
@testable import PresenceImaging

@Suite("Hostile input: truncation, corruption, bombs", .timeLimit(.minutes(5)))
struct HostileInputTests {
    static let corpus: [URL] = corpusFiles("pngsuite") + corpusFiles("libjpeg-turbo-testimages")
        + corpusFiles("jpeg-decoder-reftest", extensions: ["jpg"]) + corpusFiles("image-png-edgecases")
        + corpusFiles("libpng-testpngs")

    @Test("truncating every corpus file at 10 points gives an error or an image, never a crash")
    func truncation() async throws {
        try await offThePool {
            var errors = 0
            var truncations = 0
            for file in Self.corpus {
                let bytes = try [UInt8](Data(contentsOf: file))
                guard bytes.count > 20 else { continue }
                for cut in 1...10 {
                    let length = bytes.count * cut / 11
                    let prefix = Array(bytes.prefix(length))
                    do {
                        _ = try ImageDecoder().decode(prefix)
                    } catch {
                        errors += 1
                        if case ImageError.truncated = error { truncations += 1 }
                    }
                }
            }
            #expect(errors > Self.corpus.count * 8, "most truncated files must be refused")
            #expect(truncations > Self.corpus.count * 5, "and most of them as truncated")
        }
    }

    @Test("a JPEG cut short is truncated, not a grey half-image")
    func truncatedJPEGIsAnError() async throws {
        try await offThePool {
            let jpeg = try [UInt8](ImageEncoder.jpeg(gradientImage(width: 300, height: 200), quality: 90))
            for fraction in [0.3, 0.6, 0.9] {
                let cut = Array(jpeg.prefix(Int(Double(jpeg.count) * fraction)))
                #expect(throws: ImageError.truncated("Premature end of JPEG file")) { try ImageDecoder().decode(cut) }
            }
        }
    }

    @Test("seeded random byte flips give an error or an image, never a crash or hang")
    func byteFlips() async throws {
        try await offThePool {
            var generator = SeededGenerator(state: 20261122)
            let files = Self.corpus.filter { (try? Data(contentsOf: $0).count) ?? 0 > 64 }
            var outcomes = (images: 0, errors: 0)
            for _ in 0..<400 {
                let file = files.randomElement(using: &generator)!
                var bytes = try [UInt8](Data(contentsOf: file))
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
                do {
                    _ = try ImageDecoder().decode(bytes)
                    outcomes.images += 1
                } catch {
                    outcomes.errors += 1
                }
            }
            #expect(outcomes.images + outcomes.errors == 400)
            #expect(outcomes.errors > 100, "CRC checks catch most PNG flips")
        }
    }

    @Test("a PNG claiming 100,000 × 100,000 pixels is refused from its header, fast, without a big allocation")
    func pngBomb() async throws {
        try await offThePool {
            let bomb = pngFile(chunks: [ihdr(width: 100_000, height: 100_000), ("IDAT", [0x78, 0x9C, 0x03, 0x00]), ("IEND", [])])
            let before = Date()
            #expect(throws: ImageError.tooLarge(width: 100_000, height: 100_000, limit: "the 16384×16384 limit")) {
                try ImageDecoder().decode(bomb)
            }
            #expect(throws: ImageError.self) { try ImageDecoder().info(for: bomb) }
            // Within the per-side limits but over the pixel budget.
            let wide = pngFile(chunks: [ihdr(width: 16_000, height: 16_000), ("IEND", [])])
            #expect(throws: ImageError.tooLarge(width: 16_000, height: 16_000, limit: "the 40000000-pixel limit")) {
                try ImageDecoder().decode(wide)
            }
            #expect(Date().timeIntervalSince(before) < 1)
        }
    }

    @Test("a JPEG whose frame header claims 60,000 × 60,000 is refused before decoding")
    func jpegBomb() async throws {
        try await offThePool {
            var jpeg = try [UInt8](ImageEncoder.jpeg(gradientImage(width: 16, height: 16), quality: 80))
            // Patch the SOF0 frame's height and width.
            let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
            jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60
            jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60
            #expect(throws: ImageError.tooLarge(width: 60_000, height: 60_000, limit: "the 16384×16384 limit")) {
                try ImageDecoder().decode(jpeg)
            }
        }
    }

    @Test("progressive JPEGs with more scans than the limit are refused")
    func scanLimit() async throws {
        try await offThePool {
            let progressive = try ImageEncoder.jpeg(gradientImage(width: 64, height: 64), quality: 90, progressive: true)
            var limits = DecodingLimits()
            limits.maximumProgressiveScans = 3
            #expect(throws: ImageError.limitExceeded("more than 3 progressive scans")) {
                try ImageDecoder(limits: limits).decode(progressive)
            }
            #expect(try ImageDecoder().decode(progressive).width == 64)
        }
    }

    @Test("input over the byte limit is refused before decoding")
    func inputLimit() async throws {
        try await offThePool {
            var limits = DecodingLimits()
            limits.maximumInputBytes = 100
            #expect(throws: ImageError.inputTooLarge(bytes: 101, limit: 100)) { try ImageDecoder(limits: limits).decode([UInt8](repeating: 0xFF, count: 101)) }
        }
    }
}
