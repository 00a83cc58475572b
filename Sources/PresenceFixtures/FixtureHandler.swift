import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves one connection: collects each request, asks ``FixtureRoutes`` for a plan and writes it
/// with its delay, rate, chunking and fault.
///
/// Only on the connection's event loop.
final class FixtureHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let maximumRequestBody = 8 << 20
    private static let sliceSize = 64 * 1024

    private let routes: FixtureRoutes
    private let stats: FixtureStats
    private let registry: FixtureRegistry
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var responding: (status: Int, abandoned: Bool)?

    init(routes: FixtureRoutes, stats: FixtureStats, registry: FixtureRegistry) {
        self.routes = routes
        self.stats = stats
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(requestHead):
            head = requestHead
            body = []
        case var .body(buffer):
            if body.count + buffer.readableBytes <= Self.maximumRequestBody {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let request = FixtureRequest(head: head, body: body)
            stats.requestStarted(path: request.path)
            let plan = routes.plan(for: request)
            responding = (Int(plan.status.code), false)
            let keepAlive = head.isKeepAlive
            if let gate = request.query["gate"], plan.hold == nil {
                whenOpen(gate, context: context) { handler, context in handler.send(plan, keepAlive: keepAlive, context: context) }
            } else if plan.delayMilliseconds > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(plan.delayMilliseconds)) {
                    self.send(plan, keepAlive: keepAlive, context: context)
                }
            } else {
                send(plan, keepAlive: keepAlive, context: context)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if responding != nil { finishResponse(abandoned: true) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func finishResponse(abandoned: Bool) {
        guard let current = responding else { return }
        responding = nil
        stats.requestEnded(abandoned: abandoned, status: current.status)
    }

    // MARK: Writing

    private func send(_ plan: ResponsePlan, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = plan.headers
        let length = plan.bodyLength
        if plan.chunked {
            headers.remove(name: "Content-Length")
        } else if !headers.contains(name: "Content-Length") {
            headers.add(name: "Content-Length", value: String(length))
        }
        if case .complete = plan.ending {
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        } else {
            headers.replaceOrAdd(name: "Connection", value: "close")
        }
        let responseHead = HTTPResponseHead(version: .http1_1, status: plan.status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)

        var limit = length
        switch plan.ending {
        case let .truncate(after), let .reset(after): limit = min(length, Int64(after))
        case .stall:
            context.flush()
            return
        case .complete: break
        }
        let slice = plan.bytesPerSecond.map { max(1, min(Self.sliceSize, $0 / 20)) } ?? Self.sliceSize
        let interval: TimeAmount = plan.bytesPerSecond.map { .nanoseconds(Int64(slice) * 1_000_000_000 / Int64($0)) } ?? .zero
        writeBody(plan, from: 0, upTo: limit, slice: slice, interval: interval, keepAlive: keepAlive, context: context)
    }

    private func writeBody(
        _ plan: ResponsePlan, from offset: Int64, upTo limit: Int64, slice: Int, interval: TimeAmount,
        keepAlive: Bool, context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        if offset >= limit {
            end(plan, keepAlive: keepAlive, context: context)
            return
        }
        if let hold = plan.hold, offset == hold.afterBytes {
            let released = { var copy = plan; copy.hold = nil; return copy }()
            whenOpen(hold.gate, context: context) { handler, context in
                handler.writeBody(released, from: offset, upTo: limit, slice: slice, interval: interval, keepAlive: keepAlive, context: context)
            }
            return
        }
        var count = Int(min(Int64(slice), limit - offset))
        if let hold = plan.hold, offset < hold.afterBytes { count = Int(min(Int64(count), hold.afterBytes - offset)) }
        var buffer = context.channel.allocator.buffer(capacity: count)
        switch plan.body {
        case let .bytes(bytes):
            // Through a raw buffer: writing an ArraySlice goes element by element.
            bytes.withUnsafeBytes { raw in
                _ = buffer.writeBytes(UnsafeRawBufferPointer(rebasing: raw[Int(offset)..<Int(offset) + count]))
            }
        case .streamed: buffer.writeRepeatingByte(UInt8(truncatingIfNeeded: offset / Int64(slice)) | 0x80, count: count)
        case .none: break
        }
        let next = offset + Int64(count)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            if interval == .zero {
                self.writeBody(plan, from: next, upTo: limit, slice: slice, interval: interval, keepAlive: keepAlive, context: context)
            } else {
                context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
                    self.writeBody(plan, from: next, upTo: limit, slice: slice, interval: interval, keepAlive: keepAlive, context: context)
                }
            }
        }
    }

    /// Runs `body` on this connection's event loop once `gate` is open (at once if it already is).
    private func whenOpen(_ gate: String, context: ChannelHandlerContext, _ body: @escaping (FixtureHandler, ChannelHandlerContext) -> Void) {
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        registry.pass(gate: gate) {
            eventLoop.execute {
                let (handler, context, body) = bound.value
                body(handler, context)
            }
        }
    }

    private func end(_ plan: ResponsePlan, keepAlive: Bool, context: ChannelHandlerContext) {
        switch plan.ending {
        case .complete:
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                self.finishResponse(abandoned: false)
                if !keepAlive { context.close(promise: nil) }
            }
        case .truncate:
            finishResponse(abandoned: false)
            context.close(promise: nil)
        case .reset:
            finishResponse(abandoned: false)
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            guard let provider = context.channel as? any SocketOptionProvider else {
                context.close(promise: nil)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .stall:
            break
        }
    }
}
