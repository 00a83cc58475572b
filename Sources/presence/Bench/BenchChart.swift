import Foundation

/// Throughput against N, one line per strategy, one panel per scenario, with the network
/// ceiling (N ÷ latency images per second) drawn dashed. Plain SVG, for any browser.
enum BenchChart {
    private static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]

    static func svg(rows: [BenchRow], latencies: [String: Double]) -> String {
        let scenarios = Array(Set(rows.map(\.scenario))).sorted { (latencies[$0] ?? 0) < (latencies[$1] ?? 0) }
        let strategies = Array(Set(rows.map(\.strategy))).sorted()
        let widths = Array(Set(rows.map(\.width))).sorted()
        let panelWidth = 420.0, panelHeight = 300.0, margin = 56.0
        let totalWidth = Double(max(1, scenarios.count)) * (panelWidth + margin) + margin
        let legendHeight = Double(strategies.count + 1) * 18 + 20
        let totalHeight = panelHeight + margin * 2 + legendHeight
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(totalWidth))" height="\(Int(totalHeight))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(margin)" y="22" font-size="15" font-weight="bold">Images per second against downloads at once (N)</text>

        """
        let minWidth = Double(widths.first ?? 1), maxWidth = Double(max(widths.last ?? 2, 2))
        func xPosition(_ width: Int, panel: Double) -> Double {
            let span = log2(maxWidth) - log2(minWidth)
            let fraction = span > 0 ? (log2(Double(width)) - log2(minWidth)) / span : 0.5
            return panel + fraction * panelWidth
        }
        for (panelIndex, scenario) in scenarios.enumerated() {
            let left = margin + Double(panelIndex) * (panelWidth + margin)
            let top = margin
            let scenarioRows = rows.filter { $0.scenario == scenario }
            let latency = latencies[scenario] ?? 0
            let measuredMax = scenarioRows.map(\.imagesPerSecond).max() ?? 1
            let ceilingAtMax = latency > 0 ? maxWidth / (latency / 1000) : 0
            let yMax = niceMaximum(max(measuredMax * 1.1, latency > 0 ? min(ceilingAtMax, measuredMax * 3) : 0))
            func yPosition(_ value: Double) -> Double { top + panelHeight - min(1, value / yMax) * panelHeight }
            svg += "<text x=\"\(left)\" y=\"\(top - 10)\" font-weight=\"bold\">\(escape(scenario))</text>\n"
            svg += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(panelWidth)\" height=\"\(panelHeight)\" fill=\"none\" stroke=\"#999\"/>\n"
            for step in 0...4 {
                let value = yMax * Double(step) / 4
                let y = yPosition(value)
                svg += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + panelWidth)\" y2=\"\(y)\" stroke=\"#eee\"/>"
                svg += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(Int(value))</text>\n"
            }
            for width in widths {
                let x = xPosition(width, panel: left)
                svg += "<text x=\"\(x)\" y=\"\(top + panelHeight + 16)\" text-anchor=\"middle\">\(width)</text>\n"
            }
            svg += "<text x=\"\(left + panelWidth / 2)\" y=\"\(top + panelHeight + 34)\" text-anchor=\"middle\">N (log scale)</text>\n"
            if latency > 0 {
                let points = widths.map { "\(xPosition($0, panel: left)),\(yPosition(Double($0) / (latency / 1000)))" }.joined(separator: " ")
                svg += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"#444\" stroke-dasharray=\"5,4\"/>\n"
            }
            for (strategyIndex, strategy) in strategies.enumerated() {
                let series = scenarioRows.filter { $0.strategy == strategy }.sorted { $0.width < $1.width }
                guard !series.isEmpty else { continue }
                let colour = palette[strategyIndex % palette.count]
                let points = series.map { "\(xPosition($0.width, panel: left)),\(yPosition($0.imagesPerSecond))" }.joined(separator: " ")
                svg += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
                for row in series {
                    svg += "<circle cx=\"\(xPosition(row.width, panel: left))\" cy=\"\(yPosition(row.imagesPerSecond))\" r=\"3\" fill=\"\(colour)\"/>\n"
                }
            }
        }
        var legendY = margin + panelHeight + 56
        for (index, strategy) in strategies.enumerated() {
            let colour = palette[index % palette.count]
            svg += "<line x1=\"\(margin)\" y1=\"\(legendY - 4)\" x2=\"\(margin + 24)\" y2=\"\(legendY - 4)\" stroke=\"\(colour)\" stroke-width=\"3\"/>"
            svg += "<text x=\"\(margin + 32)\" y=\"\(legendY)\">\(escape(strategy))</text>\n"
            legendY += 18
        }
        svg += "<line x1=\"\(margin)\" y1=\"\(legendY - 4)\" x2=\"\(margin + 24)\" y2=\"\(legendY - 4)\" stroke=\"#444\" stroke-dasharray=\"5,4\"/>"
        svg += "<text x=\"\(margin + 32)\" y=\"\(legendY)\">network ceiling: N ÷ latency</text>\n</svg>\n"
        return svg
    }

    private static func niceMaximum(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2, 2.5, 5, 10] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
