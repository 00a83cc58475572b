import Foundation

/// What a cancelled download needs to continue: where its partial file is, how much it holds and
/// the validator that proves the server's copy has not changed. Encoded as JSON.
struct ResumeData: Codable, Sendable, Hashable {
    static let currentVersion = 1

    var version = ResumeData.currentVersion
    var url: URL
    var method: String
    var headers: [[String]]
    var partialFilePath: String
    var bytesReceived: Int64
    /// The ETag when the server gave a strong one, else the Last-Modified date (used in If-Range).
    var validator: String
    var expectedTotalBytes: Int64

    var request: Request {
        Request(url: url, method: method, headers: HTTPHeaders(headers.compactMap { pair in
            pair.count == 2 ? (name: pair[0], value: pair[1]) : nil
        }))
    }

    func encoded() -> Data {
        (try? JSONEncoder().encode(self)) ?? Data()
    }

    static func decode(_ data: Data) throws(TransferError) -> ResumeData {
        guard let value = try? JSONDecoder().decode(ResumeData.self, from: data) else {
            throw .invalidResumeData("not resume data produced by this library")
        }
        guard value.version == currentVersion else {
            throw .invalidResumeData("version \(value.version) is not supported")
        }
        guard FileManager.default.fileExists(atPath: value.partialFilePath) else {
            throw .invalidResumeData("the partial file \(value.partialFilePath) is gone")
        }
        return value
    }
}
