import Foundation
import Testing
@testable import PresenceImaging

@Suite("Thumbnails")
struct ThumbnailTests {
    let thumbnailer = Thumbnailer()

    @Test("output is exactly size × size, from wide, tall, small and large sources", arguments: [48, 73, 96, 128, 200, 400])
    func exactSizes(size: Int) async throws {
        try await offThePool {
            for (width, height) in [(640, 480), (300, 900), (24, 24), (1600, 1200)] {
                let source = try ImageEncoder.png(gradientImage(width: width, height: height))
                let thumbnail = try thumbnailer.thumbnail(from: source, spec: .avatar(size))
                let decoded = try ImageDecoder().decode(thumbnail.data)
                #expect(decoded.width == size && decoded.height == size, "\(width)×\(height) → \(size)")
                #expect(thumbnail.source.width == width)
            }
        }
    }

    @Test("a flat colour stays that flat colour, downscaled and upscaled, PNG and JPEG")
    func flatColour() async throws {
        try await offThePool {
            let colour: (UInt8, UInt8, UInt8, UInt8) = (37, 140, 201, 255)
            for (sourceSize, size) in [(500, 96), (24, 96), (97, 96)] {
                let image = DecodedImage(width: sourceSize, height: sourceSize, filledWith: colour)
                let rendered = thumbnailer.render(image, spec: .avatar(size))
                for y in 0..<size {
                    for x in 0..<size {
                        let p = rendered.pixel(x: x, y: y)
                        #expect(abs(Int(p.r) - 37) <= 1 && abs(Int(p.g) - 140) <= 1 && abs(Int(p.b) - 201) <= 1 && p.a == 255)
                    }
                }
            }
            let jpeg = try thumbnailer.thumbnail(from: ImageEncoder.png(DecodedImage(width: 300, height: 300, filledWith: colour)),
                                                 spec: AvatarSpec(size: 96, output: .jpeg(quality: 95)))
            let decoded = try ImageDecoder().decode(jpeg.data)
            let centre = decoded.pixel(x: 48, y: 48)
            #expect(abs(Int(centre.r) - 37) <= 3 && abs(Int(centre.g) - 140) <= 3 && abs(Int(centre.b) - 201) <= 3)
        }
    }

    @Test("circle avatars: corners transparent, centre opaque, edge anti-aliased")
    func circle() async throws {
        try await offThePool {
            let source = try ImageEncoder.png(DecodedImage(width: 200, height: 200, filledWith: (200, 50, 50, 255)))
            let thumbnail = try thumbnailer.thumbnail(from: source, spec: .avatar(96, shape: .circle))
            let image = try ImageDecoder().decode(thumbnail.data)
            for (x, y) in [(0, 0), (95, 0), (0, 95), (95, 95), (5, 5)] {
                #expect(image.pixel(x: x, y: y).a == 0)
            }
            #expect(image.pixel(x: 48, y: 48).a == 255)
            #expect(image.pixel(x: 48, y: 2).a == 255)
            let edgeAlphas = (0..<96).map { Int(image.pixel(x: $0, y: 14).a) }
            #expect(edgeAlphas.contains { $0 > 0 && $0 < 255 }, "the edge has intermediate alpha")
        }
    }

    @Test("downscaling a sharp mid-grey edge rings by no more than a small bound")
    func ringingBound() {
        // Vertical stripes 40 px wide alternating 64 and 192, downscaled 5×.
        var image = DecodedImage(width: 400, height: 400, filledWith: (64, 64, 64, 255))
        for y in 0..<400 {
            for x in 0..<400 where (x / 40) % 2 == 1 {
                let offset = y * image.bytesPerRow + x * 4
                image.pixels[offset] = 192; image.pixels[offset + 1] = 192; image.pixels[offset + 2] = 192
            }
        }
        let rendered = thumbnailer.render(image, spec: .avatar(80))
        let values = (0..<80).map { Int(rendered.pixel(x: $0, y: 40).r) }
        #expect(values.min()! >= 64 - 12, "undershoot \(64 - values.min()!)")
        #expect(values.max()! <= 192 + 12, "overshoot \(values.max()! - 192)")
        #expect(values.max()! >= 185 && values.min()! <= 71, "the stripes survive")
    }

    @Test("no aliasing moiré: fine stripes downscaled far become an even grey")
    func noMoire() {
        var image = DecodedImage(width: 960, height: 960, filledWith: (0, 0, 0, 255))
        for y in 0..<960 {
            for x in 0..<960 where x % 2 == 0 {
                let offset = y * image.bytesPerRow + x * 4
                image.pixels[offset] = 255; image.pixels[offset + 1] = 255; image.pixels[offset + 2] = 255
            }
        }
        let rendered = thumbnailer.render(image, spec: .avatar(96))
        let values = (0..<96).map { Int(rendered.pixel(x: $0, y: 48).r) }
        // Interior columns are an even grey; the outermost ones see a kernel truncated at the border.
        #expect(values.dropFirst().dropLast().allSatisfy { abs($0 - 128) <= 2 }, "\(values)")
        #expect(abs(values.first! - 128) <= 8 && abs(values.last! - 128) <= 8, "\(values)")
    }

    @Test("premultiplied alpha: no dark fringe where an opaque shape meets transparent black")
    func noDarkFringe() {
        var image = DecodedImage(width: 200, height: 200, filledWith: (0, 0, 0, 0))
        for y in 50..<150 {
            for x in 50..<150 {
                let offset = y * image.bytesPerRow + x * 4
                image.pixels[offset] = 255; image.pixels[offset + 3] = 255
            }
        }
        let rendered = thumbnailer.render(image, spec: .avatar(37))
        var edgePixels = 0
        for y in 0..<37 {
            for x in 0..<37 {
                let p = rendered.pixel(x: x, y: y)
                guard p.a > 8 else { continue }
                edgePixels += p.a < 250 ? 1 : 0
                #expect(p.r >= 250 && p.g <= 3 && p.b <= 3, "(\(x),\(y)) = \(p)")
            }
        }
        #expect(edgePixels > 0)
    }

    @Test("metadata is stripped: no EXIF or text chunks in the output")
    func metadataStripped() async throws {
        try await offThePool {
            let source = try Data(contentsOf: corporaURL.appendingPathComponent("exif-orientation-examples/Landscape_6.jpg"))
            #expect(source.range(of: Data("Exif".utf8)) != nil)
            let jpeg = try thumbnailer.thumbnail(from: source, spec: AvatarSpec(size: 96, output: .jpeg(quality: 85)))
            #expect(jpeg.data.range(of: Data("Exif".utf8)) == nil)
            let png = try thumbnailer.thumbnail(from: source, spec: .avatar(96))
            for chunk in ["tEXt", "eXIf", "iTXt", "zTXt"] { #expect(png.data.range(of: Data(chunk.utf8)) == nil) }
            let text = try Data(contentsOf: corporaURL.appendingPathComponent("pngsuite/ct1n0g04.png"))
            #expect(try thumbnailer.thumbnail(from: text, spec: .avatar(32)).data.range(of: Data("tEXt".utf8)) == nil)
        }
    }

    @Test("opaque output is RGB PNG; transparent output keeps alpha; JPEG flattens onto the background")
    func outputChannels() async throws {
        try await offThePool {
            let opaque = try thumbnailer.thumbnail(from: ImageEncoder.png(gradientImage(width: 64, height: 64)), spec: .avatar(32))
            #expect(opaque.data[25] == 2, "colour type RGB")
            let circle = try thumbnailer.thumbnail(from: ImageEncoder.png(gradientImage(width: 64, height: 64)), spec: .avatar(32, shape: .circle))
            #expect(circle.data[25] == 6, "colour type RGBA")
            let jpeg = try thumbnailer.thumbnail(from: ImageEncoder.png(gradientImage(width: 64, height: 64)),
                                                 spec: AvatarSpec(size: 32, shape: .circle, output: .jpeg(quality: 90)))
            let corner = try ImageDecoder().decode(jpeg.data).pixel(x: 0, y: 0)
            #expect(corner.r > 245 && corner.g > 245 && corner.b > 245, "white background in the corner")
        }
    }

    @Test("invalid specifications are refused")
    func invalidSpecs() async throws {
        try await offThePool {
            let source = try ImageEncoder.png(gradientImage(width: 8, height: 8))
            #expect(throws: ImageError.self) { try thumbnailer.thumbnail(from: source, spec: .avatar(0)) }
            #expect(throws: ImageError.self) { try thumbnailer.thumbnail(from: source, spec: AvatarSpec(size: 8, output: .jpeg(quality: 0))) }
        }
    }
}
