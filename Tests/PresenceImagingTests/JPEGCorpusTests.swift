import Foundation
import Testing
@testable import PresenceImaging

@Suite("JPEG corpora")
struct JPEGCorpusTests {
    @Test("libjpeg-turbo's test images decode; 12-bit ones are refused as unsupported")
    func libjpegTurboImages() async throws {
        try await offThePool {
            let files = corpusFiles("libjpeg-turbo-testimages")
            #expect(files.count >= 10)
            for file in files {
                let bytes = try Data(contentsOf: file)
                if file.lastPathComponent.contains("12") {
                    #expect(throws: ImageError.unsupportedFeature("Unsupported JPEG data precision 12")) { try ImageDecoder().decode(bytes) }
                } else {
                    let image = try ImageDecoder().decode(bytes)
                    #expect(image.width > 0 && image.height > 0, "\(file.lastPathComponent)")
                }
            }
        }
    }

    @Test("baseline, progressive, arithmetic and grayscale versions of one picture look alike")
    func variantsAgree() async throws {
        try await offThePool {
            let folder = corporaURL.appendingPathComponent("libjpeg-turbo-testimages")
            let original = try ImageDecoder().decode(Data(contentsOf: folder.appendingPathComponent("testorig.jpg")))
            for name in ["testimgp.jpg", "testimgari.jpg", "testimgint.jpg"] {
                let variant = try ImageDecoder().decode(Data(contentsOf: folder.appendingPathComponent(name)))
                #expect(meanDifference(original, variant) < 3, "\(name)")
            }
        }
    }

    @Test("jpeg-decoder's reference images: ours match the reference PNG within a small tolerance")
    func referenceImages() async throws {
        try await offThePool {
            let root = corporaURL.appendingPathComponent("jpeg-decoder-reftest")
            let disabled = Set((try? String(contentsOf: root.appendingPathComponent("disabled.list"), encoding: .utf8))?
                .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") } ?? [])
            var compared = 0
            for file in corpusFiles("jpeg-decoder-reftest", extensions: ["jpg", "jpeg"]) {
                let relative = String(file.path.dropFirst(root.path.count + 1))
                let bytes = try Data(contentsOf: file)
                if relative.hasPrefix("lossless/") {
                    #expect(throws: ImageError.self) { try ImageDecoder().decode(bytes) }
                    continue
                }
                let result = Result { try ImageDecoder().decode(bytes) }
                let referenceURL = file.deletingPathExtension().appendingPathExtension("png")
                guard !disabled.contains(relative), FileManager.default.fileExists(atPath: referenceURL.path) else { continue }
                let ours = try result.get()
                let reference = try ImageDecoder().decode(Data(contentsOf: referenceURL))
                #expect(ours.width == reference.width && ours.height == reference.height, "\(relative)")
                if ours.width == reference.width, ours.height == reference.height {
                    #expect(meanDifference(ours, reference) < 4, "\(relative)")
                    compared += 1
                }
            }
            #expect(compared >= 10)
        }
    }

    @Test("CMYK and YCCK (Adobe inverted) decode to plausible colour")
    func cmyk() async throws {
        try await offThePool {
            let root = corporaURL.appendingPathComponent("jpeg-decoder-reftest")
            for name in ["mozilla/jpg-cmyk-1.jpg", "mozilla/jpg-cmyk-2.jpg", "ycck.jpg"] {
                let url = root.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let info = try ImageDecoder().info(for: Data(contentsOf: url))
                #expect(info.colorModel == "CMYK" || info.colorModel == "YCCK")
                let image = try ImageDecoder().decode(Data(contentsOf: url))
                let reference = url.deletingPathExtension().appendingPathExtension("png")
                if FileManager.default.fileExists(atPath: reference.path) {
                    #expect(meanDifference(image, try ImageDecoder().decode(Data(contentsOf: reference))) < 6, "\(name)")
                }
            }
        }
    }

    @Test("EXIF orientations 1-8 all come out upright and identical")
    func exifOrientation() async throws {
        try await offThePool {
            let folder = corporaURL.appendingPathComponent("exif-orientation-examples")
            for kind in ["Landscape", "Portrait"] {
                let upright = try ImageDecoder().decode(Data(contentsOf: folder.appendingPathComponent("\(kind)_1.jpg")), targetShortSide: 100)
                #expect(kind == "Landscape" ? upright.width > upright.height : upright.height > upright.width)
                for orientation in 0...8 {
                    let bytes = try Data(contentsOf: folder.appendingPathComponent("\(kind)_\(orientation).jpg"))
                    let info = try ImageDecoder().info(for: bytes)
                    #expect(info.orientation == max(1, orientation))
                    let image = try ImageDecoder().decode(bytes, targetShortSide: 100)
                    #expect(image.width == upright.width && image.height == upright.height, "\(kind) \(orientation)")
                    if image.width == upright.width, image.height == upright.height {
                        #expect(meanDifference(image, upright) < 6, "\(kind)_\(orientation) differs from upright")
                    }
                }
            }
        }
    }

    @Test("shrink-on-load picks the smallest DCT scale still at least twice the target")
    func shrinkOnLoad() async throws {
        try await offThePool {
            #expect(ImageDecoder.shrinkOnLoadDenominator(shortSide: 1200, target: 96) == 4)
            #expect(ImageDecoder.shrinkOnLoadDenominator(shortSide: 1200, target: 48) == 8)
            #expect(ImageDecoder.shrinkOnLoadDenominator(shortSide: 400, target: 96) == 2)
            #expect(ImageDecoder.shrinkOnLoadDenominator(shortSide: 150, target: 96) == 1)
            #expect(ImageDecoder.shrinkOnLoadDenominator(shortSide: 1200, target: nil) == 1)
            let jpeg = try ImageEncoder.jpeg(gradientImage(width: 1600, height: 1200), quality: 90)
            let decoded = try ImageDecoder().decode(jpeg, targetShortSide: 96)
            #expect(decoded.width == 400 && decoded.height == 300)
            let full = try ImageDecoder().decode(jpeg)
            #expect(full.width == 1600)
            // Odd sizes round up, as libjpeg does (jdiv_round_up).
            let odd = try ImageEncoder.jpeg(gradientImage(width: 1601, height: 1203), quality: 90)
            let oddQuarter = try ImageDecoder().decode(odd, targetShortSide: 96)
            #expect(oddQuarter.width == 401 && oddQuarter.height == 301)
            let oddEighth = try ImageDecoder().decode(odd, targetShortSide: 48)
            #expect(oddEighth.width == 201 && oddEighth.height == 151)
        }
    }
}
