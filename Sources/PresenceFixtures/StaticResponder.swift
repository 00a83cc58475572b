import Foundation
import NIOHTTP1
import PresenceTransfer

/// Answers a ``StaticResource`` with 200, 304 (If-None-Match / If-Modified-Since) or 206
/// (Range, honoured only while If-Range still matches).
enum StaticResponder {
    static func plan(for resource: StaticResource, request: FixtureRequest) -> ResponsePlan {
        let lastModified = HTTPDate.format(resource.lastModified)
        var plan = ResponsePlan(status: .ok, contentType: resource.contentType, body: .bytes(resource.body))
        plan.headers.add(name: "ETag", value: resource.entityTag)
        plan.headers.add(name: "Last-Modified", value: lastModified)
        plan.headers.add(name: "Accept-Ranges", value: "bytes")
        if let cacheControl = resource.cacheControl { plan.headers.add(name: "Cache-Control", value: cacheControl) }
        plan.headers.add(name: "Date", value: HTTPDate.format(Date()))

        if let tags = request.headers.first(name: "If-None-Match") {
            let matches = tags == "*" || tags.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == resource.entityTag }
            if matches { return notModified(plan) }
        } else if let since = request.headers.first(name: "If-Modified-Since"), let date = HTTPDate.parse(since),
                  resource.lastModified <= date {
            return notModified(plan)
        }

        if let range = request.headers.first(name: "Range") {
            let ifRange = request.headers.first(name: "If-Range")
            let rangeStillValid = ifRange == nil || ifRange == resource.entityTag || ifRange == lastModified
            if rangeStillValid {
                guard let bytes = ByteRange.resolve(range, length: resource.body.count) else {
                    var refused = ResponsePlan.text(.rangeNotSatisfiable, "range not satisfiable")
                    refused.headers.add(name: "Content-Range", value: "bytes */\(resource.body.count)")
                    return refused
                }
                plan.status = .partialContent
                plan.body = .bytes(Array(resource.body[bytes]))
                plan.headers.add(name: "Content-Range", value: "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(resource.body.count)")
            }
        }
        return plan
    }

    private static func notModified(_ plan: ResponsePlan) -> ResponsePlan {
        var answer = plan
        answer.status = .notModified
        answer.body = .none
        answer.headers.remove(name: "Content-Type")
        return answer
    }
}
