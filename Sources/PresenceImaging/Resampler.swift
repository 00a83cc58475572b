import Foundation
import PresenceLocking

/// Separable Lanczos-3 resampling on premultiplied alpha (so transparent pixels never bleed dark
/// fringes into their neighbours), with the filter widened on downscales so they do not alias.
///
/// Safe to use from any thread; its only state is a cache of weight tables, guarded by a lock.
public enum Resampler {
    /// Where each output sample reads from and with what weights; weights of one sample sum to 1.
    struct Contributions {
        var starts: [Int]
        var counts: [Int]
        var weights: [Float]
        var stride: Int
    }

    static let lobes = 3.0

    private struct ContributionsKey: Hashable {
        let start, length, limit, outputLength: Int
    }

    /// Weight tables are the same for every image of the same geometry (avatars mostly are).
    private static let contributionsCache = Locked<[ContributionsKey: Contributions]>([:])

    static func lanczos(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-9 { return 1 }
        if x >= lobes { return 0 }
        let pix = Double.pi * x
        return lobes * sin(pix) * sin(pix / lobes) / (pix * pix)
    }

    /// Contributions for mapping `length` source samples starting at `start` onto `outputLength`
    /// samples; taps outside `0..<limit` are dropped and the rest renormalised.
    static func contributions(start: Int, length: Int, limit: Int, outputLength: Int) -> Contributions {
        let key = ContributionsKey(start: start, length: length, limit: limit, outputLength: outputLength)
        if let cached = contributionsCache.withLock({ $0[key] }) { return cached }
        let computed = computeContributions(start: start, length: length, limit: limit, outputLength: outputLength)
        contributionsCache.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
            cache[key] = computed
        }
        return computed
    }

    private static func computeContributions(start: Int, length: Int, limit: Int, outputLength: Int) -> Contributions {
        let scale = Double(length) / Double(outputLength)
        let filterScale = max(1, scale)
        let support = lobes * filterScale
        let stride = Int(ceil(support)) * 2 + 2
        var result = Contributions(
            starts: [Int](repeating: 0, count: outputLength),
            counts: [Int](repeating: 0, count: outputLength),
            weights: [Float](repeating: 0, count: outputLength * stride),
            stride: stride
        )
        for index in 0..<outputLength {
            let center = Double(start) + (Double(index) + 0.5) * scale
            let first = max(0, Int(floor(center - support)))
            let last = min(limit, Int(ceil(center + support)))
            var weights: [Double] = []
            for sample in first..<last {
                weights.append(lanczos((Double(sample) + 0.5 - center) / filterScale))
            }
            // Trim zero weights at both ends.
            var lower = 0
            var upper = weights.count
            while lower < upper, weights[lower] == 0 { lower += 1 }
            while upper > lower, weights[upper - 1] == 0 { upper -= 1 }
            let kept = weights[lower..<upper].prefix(stride)
            let total = kept.reduce(0, +)
            result.starts[index] = first + lower
            result.counts[index] = kept.count
            for (tap, weight) in kept.enumerated() {
                result.weights[index * stride + tap] = Float(total == 0 ? 0 : weight / total)
            }
        }
        return result
    }

    /// Resamples the `crop` rectangle of `image` to `width` × `height`. Output has straight alpha.
    public static func resample(
        _ image: DecodedImage,
        crop: (x: Int, y: Int, width: Int, height: Int),
        toWidth width: Int,
        height: Int
    ) -> DecodedImage {
        let horizontal = contributions(start: crop.x, length: crop.width, limit: image.width, outputLength: width)
        let vertical = contributions(start: crop.y, length: crop.height, limit: image.height, outputLength: height)
        let firstRow = vertical.starts.min() ?? 0
        let lastRow = zip(vertical.starts, vertical.counts).map { $0 + $1 }.max() ?? 0
        let firstColumn = horizontal.starts.min() ?? 0
        let lastColumn = zip(horizontal.starts, horizontal.counts).map { $0 + $1 }.max() ?? 0
        let rows = lastRow - firstRow
        let columns = lastColumn - firstColumn

        // Pass 1: each needed source row, premultiplied, filtered horizontally. One SIMD4 lane
        // per channel, so each tap is a single vector multiply-add.
        var intermediate = [SIMD4<Float>](repeating: .zero, count: rows * width)
        var premultiplied = [SIMD4<Float>](repeating: .zero, count: columns)
        image.pixels.withUnsafeBufferPointer { source in
            premultiplied.withUnsafeMutableBufferPointer { row in
                intermediate.withUnsafeMutableBufferPointer { output in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<rows {
                            let sourceRow = (firstRow + y) * image.bytesPerRow + firstColumn * 4
                            for x in 0..<columns {
                                let offset = sourceRow + x * 4
                                let alpha = Float(source[offset + 3]) * (1 / 255)
                                row[x] = SIMD4(Float(source[offset]), Float(source[offset + 1]), Float(source[offset + 2]), 1) * alpha
                            }
                            let outRow = y * width
                            for x in 0..<width {
                                // Four independent accumulators: one would make every add wait
                                // for the previous one.
                                var sums = (SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero)
                                let start = horizontal.starts[x] - firstColumn
                                let weightBase = x * horizontal.stride
                                let count = horizontal.counts[x]
                                var tap = 0
                                while tap + 4 <= count {
                                    sums.0 += row[start + tap] * weights[weightBase + tap]
                                    sums.1 += row[start + tap + 1] * weights[weightBase + tap + 1]
                                    sums.2 += row[start + tap + 2] * weights[weightBase + tap + 2]
                                    sums.3 += row[start + tap + 3] * weights[weightBase + tap + 3]
                                    tap += 4
                                }
                                while tap < count {
                                    sums.0 += row[start + tap] * weights[weightBase + tap]
                                    tap += 1
                                }
                                output[outRow + x] = (sums.0 + sums.1) + (sums.2 + sums.3)
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: vertical filtering, then back to straight 8-bit alpha.
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var accumulator = [SIMD4<Float>](repeating: .zero, count: width)
        intermediate.withUnsafeBufferPointer { input in
            accumulator.withUnsafeMutableBufferPointer { sum in
                pixels.withUnsafeMutableBufferPointer { output in
                    vertical.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<height {
                            for x in 0..<width { sum[x] = .zero }
                            let start = vertical.starts[y] - firstRow
                            for tap in 0..<vertical.counts[y] {
                                let weight = weights[y * vertical.stride + tap]
                                let row = (start + tap) * width
                                for x in 0..<width { sum[x] += input[row + x] * weight }
                            }
                            let outRow = y * width * 4
                            for x in 0..<width {
                                let value = sum[x]
                                let alpha = min(1, max(0, value.w))
                                let unpremultiply: Float = alpha > 1e-6 ? 1 / alpha : 0
                                output[outRow + x * 4] = clampToByte(value.x * unpremultiply)
                                output[outRow + x * 4 + 1] = clampToByte(value.y * unpremultiply)
                                output[outRow + x * 4 + 2] = clampToByte(value.z * unpremultiply)
                                output[outRow + x * 4 + 3] = clampToByte(alpha * 255)
                            }
                        }
                    }
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }

    @inline(__always)
    static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(min(255, max(0, value + 0.5)))
    }
}
