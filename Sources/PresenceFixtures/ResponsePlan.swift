import NIOCore
import NIOHTTP1

/// What the server will send for one request, and how: the route decides, the writer carries it out.
struct ResponsePlan {
    enum Body {
        case none
        case bytes([UInt8])
        /// `length` bytes of a repeating pattern, streamed in slices and never held whole.
        case streamed(length: Int64)
    }

    enum Ending {
        /// A complete response; the connection stays open when keep-alive allows.
        case complete
        /// Send only `bytes` of the body (with the full Content-Length announced), then close.
        case truncate(after: Int)
        /// Send `bytes` of the body, then reset the connection (RST).
        case reset(after: Int)
        /// Send the head, then nothing, ever (until the client or the server's stop closes it).
        case stall
    }

    var status: HTTPResponseStatus = .ok
    var headers = HTTPHeaders()
    var body: Body = .none
    var ending: Ending = .complete
    /// Time to first byte.
    var delayMilliseconds: Int64 = 0
    /// Bytes per second for the body; nil for as fast as possible.
    var bytesPerSecond: Int? = nil
    /// Send the body with chunked transfer encoding instead of Content-Length.
    var chunked = false
    /// Send this many body bytes, then wait for the gate before sending the rest.
    var hold: (afterBytes: Int64, gate: String)?

    init(status: HTTPResponseStatus = .ok, contentType: String? = nil, body: Body = .none) {
        self.status = status
        self.body = body
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
    }

    static func text(_ status: HTTPResponseStatus, _ text: String) -> ResponsePlan {
        ResponsePlan(status: status, contentType: "text/plain; charset=utf-8", body: .bytes(Array(text.utf8)))
    }

    var bodyLength: Int64 {
        switch body {
        case .none: 0
        case let .bytes(bytes): Int64(bytes.count)
        case let .streamed(length): length
        }
    }
}
