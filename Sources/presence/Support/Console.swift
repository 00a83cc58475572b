import Foundation
import PresenceLocking

/// Writing to the terminal: messages on stderr, results on stdout, escape codes only on a TTY.
///
/// Thread-safe: writes go through `lock`, so lines from different threads never interleave.
enum Console {
    private static let lock = Locked(())

    /// Whether standard error is a terminal (progress bars and colour are allowed).
    static let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    /// Prints `text` on standard output.
    static func out(_ text: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    }

    /// Prints `presence: message` on standard error.
    static func error(_ message: String) {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let text = trimmed.hasPrefix("Error:") || trimmed.hasPrefix("Usage:") ? trimmed : "presence: \(trimmed)"
        lock.withLock { _ in FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    /// Prints `text` on standard error as is.
    static func info(_ text: String) {
        lock.withLock { _ in FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    /// Writes raw bytes (escape sequences) to standard error.
    static func raw(_ text: String) {
        lock.withLock { _ in FileHandle.standardError.write(Data(text.utf8)) }
    }
}

/// Ends the program with a status after output has been written.
struct ExitStatus: Error {
    let code: Int32
}

/// A failure with a one-line message and an exit status (2 for unreadable input, by default).
struct CommandFailure: Error {
    let message: String
    var exitCode: Int32 = 2
}
