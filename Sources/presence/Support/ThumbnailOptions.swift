import ArgumentParser
import Presence

extension AvatarSpec.Shape: ExpressibleByArgument {}
extension AvatarVariant: ExpressibleByArgument {}
extension DownloadOrder: ExpressibleByArgument {}

/// The output format named on the command line.
enum OutputFormatOption: String, ExpressibleByArgument, CaseIterable {
    case png, jpeg
}

/// Where decoding happens, as named on the command line.
enum DecodeOption: String, ExpressibleByArgument, CaseIterable {
    case separate, inside

    var mode: ImageDownloader.DecodeMode { self == .separate ? .separateQueue : .insideOperation }
}

/// Size, shape, format and quality of thumbnails, shared by `fetch`, `thumb` and `demo`.
struct ThumbnailOptions: ParsableArguments {
    @Option(help: "Edge length of the square thumbnail, in pixels (1-4096).")
    var size: Int = 96

    @Option(help: "Avatar outline: square or circle (anti-aliased, transparent outside).")
    var shape: AvatarSpec.Shape = .square

    @Option(help: "Output format: png or jpeg. Default png, or as the output file's extension says.")
    var format: OutputFormatOption?

    @Option(help: "JPEG quality, 1-100.")
    var quality: Int = 85

    func validate() throws {
        guard (1...4096).contains(size) else { throw ValidationError("--size must be between 1 and 4096, not \(size).") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100, not \(quality).") }
    }

    /// The specification, with `defaultFormat` when --format was not given.
    func spec(defaultFormat: OutputFormatOption = .png) -> AvatarSpec {
        let output: AvatarSpec.Output = (format ?? defaultFormat) == .png ? .png : .jpeg(quality: quality)
        return AvatarSpec(size: size, shape: shape, output: output)
    }
}

/// `--verbose`, shared by every command.
struct DiagnosticOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log diagnostics (each entry, retries, timings) to standard error.")
    var verbose = false
}
