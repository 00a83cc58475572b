import Foundation

/// Separable Lanczos-3 resampling on premultiplied alpha (so transparent pixels never bleed dark
/// fringes into their neighbours), with the filter widened on downscales so they do not alias.
///
/// Stateless; safe to use from any thread.
public enum Resampler {
    /// Where each output sample reads from and with what weights; weights of one sample sum to 1.
    struct Contributions {
        var starts: [Int]
        var counts: [Int]
        var weights: [Float]
        var stride: Int
    }

    static let lobes = 3.0

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

        // Pass 1: each needed source row, premultiplied, filtered horizontally.
        var intermediate = [Float](repeating: 0, count: rows * width * 4)
        var premultiplied = [Float](repeating: 0, count: columns * 4)
        image.pixels.withUnsafeBufferPointer { source in
            premultiplied.withUnsafeMutableBufferPointer { row in
                intermediate.withUnsafeMutableBufferPointer { output in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<rows {
                            let sourceRow = (firstRow + y) * image.bytesPerRow + firstColumn * 4
                            for x in 0..<columns {
                                let offset = sourceRow + x * 4
                                let alpha = Float(source[offset + 3]) * (1 / 255)
                                row[x * 4] = Float(source[offset]) * alpha
                                row[x * 4 + 1] = Float(source[offset + 1]) * alpha
                                row[x * 4 + 2] = Float(source[offset + 2]) * alpha
                                row[x * 4 + 3] = alpha
                            }
                            let outRow = y * width * 4
                            for x in 0..<width {
                                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                                let start = horizontal.starts[x] - firstColumn
                                let taps = horizontal.counts[x]
                                let weightBase = x * horizontal.stride
                                for tap in 0..<taps {
                                    let weight = weights[weightBase + tap]
                                    let input = (start + tap) * 4
                                    r += row[input] * weight
                                    g += row[input + 1] * weight
                                    b += row[input + 2] * weight
                                    a += row[input + 3] * weight
                                }
                                output[outRow + x * 4] = r
                                output[outRow + x * 4 + 1] = g
                                output[outRow + x * 4 + 2] = b
                                output[outRow + x * 4 + 3] = a
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: vertical filtering, then back to straight 8-bit alpha.
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var accumulator = [Float](repeating: 0, count: width * 4)
        intermediate.withUnsafeBufferPointer { input in
            accumulator.withUnsafeMutableBufferPointer { sum in
                pixels.withUnsafeMutableBufferPointer { output in
                    vertical.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<height {
                            for index in 0..<sum.count { sum[index] = 0 }
                            let start = vertical.starts[y] - firstRow
                            for tap in 0..<vertical.counts[y] {
                                let weight = weights[y * vertical.stride + tap]
                                let row = (start + tap) * width * 4
                                for index in 0..<(width * 4) { sum[index] += input[row + index] * weight }
                            }
                            let outRow = y * width * 4
                            for x in 0..<width {
                                let alpha = min(1, max(0, sum[x * 4 + 3]))
                                let unpremultiply: Float = alpha > 1e-6 ? 1 / alpha : 0
                                output[outRow + x * 4] = clampToByte(sum[x * 4] * unpremultiply)
                                output[outRow + x * 4 + 1] = clampToByte(sum[x * 4 + 1] * unpremultiply)
                                output[outRow + x * 4 + 2] = clampToByte(sum[x * 4 + 2] * unpremultiply)
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
