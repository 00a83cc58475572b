import Benchmark
import Foundation
import PresenceFixtures
import PresenceImaging

/// The mixed avatar corpus of the thumbnail benchmark: 400×400 and 48×48 JPEG, 400×400 RGBA PNG,
/// 1600×1200 JPEG, four of each.
private func corpus() -> [Data] {
    var images: [Data] = []
    for index in 0..<4 {
        let seed = UInt64(index)
        images.append(try! ImageEncoder.jpeg(AvatarArtist.draw(size: 400, seed: seed, transparent: false), quality: 85))
        images.append(try! ImageEncoder.jpeg(AvatarArtist.draw(size: 48, seed: seed, transparent: false), quality: 85))
        images.append(try! ImageEncoder.png(AvatarArtist.draw(size: 400, seed: seed, transparent: true), keepAlpha: true))
        let large = AvatarArtist.draw(size: 1600, seed: seed, transparent: false)
        let rows = Array(large.pixels[(200 * large.bytesPerRow)..<(1400 * large.bytesPerRow)])
        images.append(try! ImageEncoder.jpeg(DecodedImage(width: 1600, height: 1200, pixels: rows), quality: 85))
    }
    return images
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(5), maxIterations: 200
    )
    let images = corpus()
    let thumbnailer = Thumbnailer()

    Benchmark("Thumbnail mixed corpus to 96 px PNG, one thread (16 images)") { benchmark in
        for _ in benchmark.scaledIterations {
            for image in images {
                blackHole(try thumbnailer.thumbnail(from: image, spec: .avatar(96)))
            }
        }
    }

    Benchmark("Check (full decode) mixed corpus (16 images)") { benchmark in
        for _ in benchmark.scaledIterations {
            for image in images {
                blackHole(try ImageDecoder().decode(image))
            }
        }
    }

    Benchmark("Refuse a 100,000 × 100,000 PNG header") { benchmark in
        var bomb: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        bomb += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        for _ in benchmark.scaledIterations {
            blackHole(try? ImageDecoder().info(for: bomb))
        }
    }
}
