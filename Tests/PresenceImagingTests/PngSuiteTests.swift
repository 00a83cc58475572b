import Foundation
import Testing
@testable import PresenceImaging

@Suite("PngSuite and PNG corpora")
struct PngSuiteTests {
    struct Reference: Decodable {
        let width: Int
        let height: Int
        let rgba_fnv1a64: String
    }

    static let references: [String: Reference] = {
        let url = resourcesURL.appendingPathComponent("pngsuite-reference.json")
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: Reference].self, from: data)) ?? [:]
    }()

    @Test("every valid PngSuite file decodes to exactly the pixels an independent decoder (pypng) produces")
    func validFilesMatchReference() async throws {
        try await offThePool {
            let files = corpusFiles("pngsuite").filter { !$0.lastPathComponent.hasPrefix("x") }
            #expect(files.count == 161)
            #expect(Self.references.count == 161)
            let decoder = ImageDecoder()
            for file in files {
                let name = file.lastPathComponent
                let reference = try #require(Self.references[name], "no reference for \(name)")
                let image = try decoder.decode(try Data(contentsOf: file))
                #expect(image.width == reference.width && image.height == reference.height, "\(name)")
                #expect(fnv1a64(image.pixels) == reference.rgba_fnv1a64, "\(name) pixels differ from pypng's")
            }
        }
    }

    @Test("every corrupt PngSuite file (x*) is refused with a typed error")
    func corruptFilesAreRefused() async throws {
        try await offThePool {
            let files = corpusFiles("pngsuite").filter { $0.lastPathComponent.hasPrefix("x") }
            #expect(files.count == 14)
            for file in files {
                let bytes = try Data(contentsOf: file)
                #expect(throws: ImageError.self, "\(file.lastPathComponent)") { try ImageDecoder().decode(bytes) }
            }
        }
    }

    @Test("specific corruptions get the right error")
    func specificErrors() async throws {
        try await offThePool {
            func error(_ name: String) throws -> ImageError? {
                let bytes = try Data(contentsOf: corporaURL.appendingPathComponent("pngsuite/\(name)"))
                do {
                    _ = try ImageDecoder().decode(bytes)
                    return nil
                } catch {
                    return error
                }
            }
            var errors: [String: ImageError?] = [:]
            for name in ["xhdn0g08.png", "xcsn0g01.png", "xc9n2c08.png", "xs2n0g01.png"] { errors[name] = try error(name) }
            #expect(errors["xhdn0g08.png"] == .corrupt("IHDR: CRC error"))
            #expect(errors["xcsn0g01.png"] == .corrupt("IDAT: CRC error"))
            #expect(errors["xc9n2c08.png"] == .corrupt("Invalid IHDR data"))
            #expect(errors["xs2n0g01.png"] == .unsupportedFormat(.unknown))
        }
    }

    @Test("libpng's crashers and bad palettes: an error or an image, never a crash; huge chunks refused")
    func libpngTestImages() async throws {
        try await offThePool {
            for file in corpusFiles("libpng-testpngs") {
                let name = file.lastPathComponent
                let bytes = try Data(contentsOf: file)
                let result = Result { try ImageDecoder().decode(bytes) }
                if name.hasPrefix("huge_") || ["badcrc.png", "badadler.png", "bad_iCCP.png"].contains(name) {
                    #expect(throws: ImageError.self, "\(name)") { try result.get() }
                }
                if file.path.contains("/badpal/") {
                    #expect((try? result.get()) != nil, "\(name) decodes, as libpng allows")
                }
            }
        }
    }

    @Test("image-png edge cases: x_ files are refused, the rest decode")
    func imagePngEdgeCases() async throws {
        try await offThePool {
            for file in corpusFiles("image-png-edgecases") {
                let bytes = try Data(contentsOf: file)
                let result = Result { try ImageDecoder().decode(bytes) }
                if file.lastPathComponent.hasPrefix("x_") {
                    #expect(throws: ImageError.self, "\(file.lastPathComponent)") { try result.get() }
                }
            }
        }
    }

    @Test("info reads the header without decoding")
    func infoFromHeader() async throws {
        try await offThePool {
            let interlaced = try ImageDecoder().info(for: Data(contentsOf: corporaURL.appendingPathComponent("pngsuite/basi6a16.png")))
            #expect(interlaced.format == .png)
            #expect(interlaced.width == 32 && interlaced.height == 32)
            #expect(interlaced.isInterlacedOrProgressive)
            #expect(interlaced.hasAlpha)
            #expect(interlaced.bitDepth == 16)
            let palette = try ImageDecoder().info(for: Data(contentsOf: corporaURL.appendingPathComponent("pngsuite/tbbn3p08.png")))
            #expect(palette.colorModel == "palette")
            #expect(palette.hasAlpha, "tRNS counts as alpha")
        }
    }
}
