import Foundation
import NIOCore
import NIOHTTP1

/// A request as the routes see it: method, path, query, headers and body.
struct FixtureRequest {
    var method: HTTPMethod
    var path: String
    var query: [String: String]
    var headers: HTTPHeaders
    var body: [UInt8]

    init(head: HTTPRequestHead, body: [UInt8]) {
        method = head.method
        headers = head.headers
        self.body = body
        let components = URLComponents(string: head.uri)
        path = components?.percentEncodedPath ?? head.uri
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        self.query = query
    }

    func int(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
    func int64(_ name: String) -> Int64? { query[name].flatMap { Int64($0) } }
    func flag(_ name: String) -> Bool { query[name].map { $0 != "0" && $0 != "false" } ?? false }
}

/// Maps requests to response plans. See ``FixtureServer`` for the list of routes.
///
/// Thread-safe: reads the registry through ``FixtureRegistry``'s lock and keeps no state of its own.
struct FixtureRoutes: Sendable {
    let registry: FixtureRegistry

    func plan(for request: FixtureRequest) -> ResponsePlan {
        var plan = basePlan(for: request)
        applyTransport(options: request, to: &plan)
        if request.method == .HEAD, case .complete = plan.ending {
            plan.headers.replaceOrAdd(name: "Content-Length", value: String(plan.bodyLength))
            plan.body = .none
        }
        return plan
    }

    private func basePlan(for request: FixtureRequest) -> ResponsePlan {
        if let failures = request.int("fail"), failures > 0,
           registry.consumeFailure(key: request.path + "?" + (request.query["failkey"] ?? ""), limit: failures) {
            let status = HTTPResponseStatus(statusCode: request.int("failstatus") ?? 503)
            var plan = ResponsePlan.text(status, "temporary failure \(status.code)")
            if let retryAfter = request.query["retry-after"] { plan.headers.add(name: "Retry-After", value: retryAfter) }
            return plan
        }
        if let resource = registry.resource(at: request.path) {
            return StaticResponder.plan(for: resource, request: request)
        }
        let segments = request.path.split(separator: "/").map(String.init)
        switch segments.first {
        case "bytes":
            let size = segments.count > 1 ? Int(segments[1]) ?? 0 : 0
            let seed = UInt64(request.int("seed") ?? 1)
            let resource = StaticResource(body: PatternBytes.make(count: min(size, 256 << 20), seed: seed))
            return StaticResponder.plan(for: resource, request: request)
        case "status":
            return statusPlan(code: segments.count > 1 ? Int(segments[1]) ?? 500 : 500, request: request)
        case "echo":
            return echoPlan(request)
        case "html":
            return ResponsePlan(status: .ok, contentType: request.query["type"] ?? "image/jpeg", body: .bytes(Array(
                "<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Over capacity</h1></body></html>".utf8
            )))
        case "fault":
            return faultPlan(segments.count > 1 ? segments[1] : "", request: request)
        default:
            if let generated = registry.generatedResource(at: request.path) {
                return StaticResponder.plan(for: generated, request: request)
            }
            return .text(.notFound, "no route for \(request.path)")
        }
    }

    private func statusPlan(code: Int, request: FixtureRequest) -> ResponsePlan {
        let status = HTTPResponseStatus(statusCode: code)
        var plan = ResponsePlan.text(status, request.query["body"] ?? "status \(code) \(status.reasonPhrase)")
        if let retryAfter = request.query["retry-after"] { plan.headers.add(name: "Retry-After", value: retryAfter) }
        if (300...399).contains(code), let location = request.query["location"] {
            plan.headers.add(name: "Location", value: location)
        }
        return plan
    }

    private func echoPlan(_ request: FixtureRequest) -> ResponsePlan {
        var fields: [String: String] = [:]
        for (name, value) in request.headers { fields[name.lowercased()] = value }
        let object: [String: Any] = [
            "method": request.method.rawValue,
            "path": request.path,
            "headers": fields,
            "body": String(decoding: request.body, as: UTF8.self),
            "bodyLength": request.body.count,
        ]
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return ResponsePlan(status: .ok, contentType: "application/json", body: .bytes(Array(json)))
    }

    private func faultPlan(_ name: String, request: FixtureRequest) -> ResponsePlan {
        switch name {
        case "reset":
            let size = request.int("size") ?? 100_000
            var plan = ResponsePlan(contentType: "image/png", body: .bytes(PatternBytes.make(count: size, seed: 7)))
            plan.ending = .reset(after: request.int("after") ?? size / 2)
            return plan
        case "truncate":
            let size = request.int("length") ?? 100_000
            var plan = ResponsePlan(contentType: "image/jpeg", body: .bytes(PatternBytes.make(count: size, seed: 9)))
            plan.ending = .truncate(after: request.int("send") ?? size / 2)
            return plan
        case "stall":
            var plan = ResponsePlan(contentType: "image/png", body: .bytes(PatternBytes.make(count: 1000, seed: 3)))
            plan.ending = .stall
            return plan
        case "redirect-loop":
            let hop = (request.int("hop") ?? 0) + 1
            var plan = ResponsePlan.text(.found, "again")
            plan.headers.add(name: "Location", value: "/fault/redirect-loop?hop=\(hop)")
            return plan
        case "redirect-file":
            var plan = ResponsePlan.text(.found, "elsewhere")
            plan.headers.add(name: "Location", value: "file:///etc/passwd")
            return plan
        case "redirect":
            var plan = ResponsePlan.text(.found, "moved")
            plan.headers.add(name: "Location", value: request.query["to"] ?? "/bytes/100")
            return plan
        case "huge":
            return ResponsePlan(contentType: "image/jpeg", body: .streamed(length: request.int64("size") ?? (1 << 30)))
        case "gzip-bomb":
            var plan = ResponsePlan(contentType: "image/png", body: .bytes(Gzip.bomb(inflatingTo: request.int64("size") ?? (256 << 20))))
            plan.headers.add(name: "Content-Encoding", value: "gzip")
            return plan
        default:
            return .text(.notFound, "no fault called \(name)")
        }
    }

    /// Options any route accepts: `delay` (ms to first byte), `rate` (bytes/s), `chunked`, `gzip`,
    /// `holdafter=N` with `gate=G` (send N bytes, then wait for the gate).
    private func applyTransport(options request: FixtureRequest, to plan: inout ResponsePlan) {
        plan.delayMilliseconds = request.int64("delay") ?? 0
        plan.bytesPerSecond = request.int("rate").flatMap { $0 > 0 ? $0 : nil }
        plan.chunked = request.flag("chunked")
        if let after = request.int64("holdafter"), let gate = request.query["gate"] {
            plan.hold = (after, gate)
        }
        if request.flag("gzip"), case let .bytes(bytes) = plan.body, !plan.headers.contains(name: "Content-Encoding") {
            plan.body = .bytes(Gzip.compress(bytes))
            plan.headers.add(name: "Content-Encoding", value: "gzip")
        }
    }
}

/// Deterministic pseudo-random bytes (xorshift), so tests can compare bodies by digest.
public enum PatternBytes {
    /// `count` bytes from `seed`; the same arguments always give the same bytes.
    public static func make(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let count = max(0, count)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            while index < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                // Little-endian bytes of each word, whole words at a time where they fit.
                let word = state.littleEndian
                let take = min(8, count - index)
                withUnsafeBytes(of: word) { bytes in
                    for offset in 0..<take { (buffer.baseAddress! + index + offset).initialize(to: bytes[offset]) }
                }
                index += take
            }
            initialized = count
        }
    }
}
