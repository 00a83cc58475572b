import Foundation
import Testing

@Suite("presence bench")
struct BenchCommandTests {
    @Test("tiny settings produce a table, a CSV, a JSON and an SVG, with the same thumbnails from every strategy")
    func tinyBench() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await presence([
            "bench", "--quick", "--suite", "queues,transfer,thumbnails", "--entries", "10", "--widths", "1,2",
            "--latencies", "0,10", "--transfer-bodies", "24", "--peers", "network", "--out", folder.path,
        ], timeout: 300)
        #expect(run.status == 0, "\(run.stderr.suffix(600))")
        #expect(run.stdout.contains("queues") && run.stdout.contains("operation-queue") && run.stdout.contains("×floor"))

        let csv = try String(contentsOf: folder.appendingPathComponent("results.csv"), encoding: .utf8)
        let lines = csv.split(separator: "\n")
        #expect(lines.first?.hasPrefix("suite,scenario,strategy,width,") == true)
        let header = lines[0].split(separator: ",").map(String.init)
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let strategies = Set(rows.filter { $0[0] == "queues" }.map { $0[column("strategy")] })
        #expect(strategies.isSuperset(of: ["operation-queue", "operation-queue-decode-inside", "gcd-semaphore", "task-group",
                                           "curl-multi", "urlsession", "curl --parallel (download only)"]))
        // Two latencies × (2 operation-queue kinds + urlsession + curl at N=1; those + 3 more at N=2).
        #expect(rows.filter { $0[0] == "queues" }.count == 2 * (4 + 7))
        for row in rows where row[0] == "queues" && row[column("strategy")] != "curl --parallel (download only)" {
            #expect(row[column("same_output")] == "true", "\(row[column("strategy")]) made different thumbnails")
            #expect(row[column("succeeded")] == "10")
        }
        #expect(rows.contains { $0[0] == "transfer" && $0[column("strategy")] == "presence" })
        #expect(rows.contains { $0[0] == "thumbnails" && $0[column("strategy")] == "presence" && Double($0[column("images_per_second")])! > 0 })
        // The 10 ms scenario has a network floor: entries × latency ÷ N.
        #expect(rows.contains { $0[1] == "10 ms" && !$0[column("floor_ratio")].isEmpty })

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("results.json"))) as? [String: Any])
        #expect((json["rows"] as? [Any])?.count == rows.count)

        let svg = try String(contentsOf: folder.appendingPathComponent("chart.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.contains("network ceiling"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 >= 2 * 6)
    }
}
