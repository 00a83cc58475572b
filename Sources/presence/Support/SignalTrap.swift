import Dispatch
import Foundation

/// Turns SIGINT (Ctrl-C) and SIGTERM into a callback instead of an abrupt exit, so a command can
/// finish writes in progress and write its report first.
///
/// Create it from any thread; the handler runs on a private queue.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "presence.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
