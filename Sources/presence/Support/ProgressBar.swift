import Foundation
import PresenceLocking

/// A live progress line on standard error: done/total, rate, ETA and failures, redrawn at most
/// ten times a second. Draws nothing when standard error is not a terminal.
///
/// Thread-safe: ``update(done:failed:)`` may be called from any thread; `state` is guarded by its lock.
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var failed = 0
        var lastDraw = Date.distantPast
        var finished = false
    }

    private let title: String
    private let total: Int
    private let started = Date()
    private let enabled: Bool
    private let state = Locked(State())

    init(title: String, total: Int, enabled: Bool = Console.stderrIsTerminal) {
        self.title = title
        self.total = total
        self.enabled = enabled
    }

    func update(done: Int, failed: Int) {
        guard enabled else { return }
        let line: String? = state.withLock { s in
            s.done = done
            s.failed = failed
            let now = Date()
            guard !s.finished, now.timeIntervalSince(s.lastDraw) >= 0.1 || done == total else { return nil }
            s.lastDraw = now
            return render(done: done, failed: failed, now: now)
        }
        if let line { Console.raw("\r\u{1B}[2K" + line) }
    }

    func finish() {
        guard enabled else { return }
        let line: String? = state.withLock { s in
            guard !s.finished else { return nil }
            s.finished = true
            return render(done: s.done, failed: s.failed, now: Date())
        }
        if let line { Console.raw("\r\u{1B}[2K" + line + "\n") }
    }

    private func render(done: Int, failed: Int, now: Date) -> String {
        let width = 28
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let elapsed = now.timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 && done < total ? Format.duration(Double(total - done) / rate) : "-"
        let failures = failed > 0 ? "  \u{1B}[31m\(failed) failed\u{1B}[0m" : ""
        return "\(title) \(bar) \(done)/\(total)  \(Format.rate(rate)) img/s  ETA \(eta)\(failures)"
    }
}

/// Number formatting shared by the commands.
enum Format {
    static func rate(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return String(format: "%.0f ms", seconds * 1000) }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        return String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60)
    }

    static func bytes(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A plain-text table with right-aligned numeric columns.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
