import Logging
import PresenceLocking

/// swift-log set up once for the process: warnings by default, everything with --verbose.
enum Diagnostics {
    private static let configured = Locked(false)

    static func logger(verbose: Bool) -> Logger {
        configured.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = verbose ? .debug : .warning
                return handler
            }
        }
        var logger = Logger(label: "presence")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
