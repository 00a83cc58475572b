// swift-tools-version:6.1
// Regression benchmarks for Presence, on ordo-one/benchmark. Its own package (as SwiftNIO does)
// so that the root package's builds and tests never compile the benchmark machinery.
//
//   cd Benchmarks && swift package benchmark                      # run everything
//   swift package benchmark baseline update main                  # store a baseline
//   swift package benchmark baseline check main                   # compare against it
import PackageDescription

let package = Package(
    name: "PresenceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Presence", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Thumbnails",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PresenceImaging", package: "Presence"),
                .product(name: "PresenceFixtures", package: "Presence"),
            ],
            path: "Benchmarks/Thumbnails",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Transfer",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PresenceTransfer", package: "Presence"),
                .product(name: "PresenceFixtures", package: "Presence"),
            ],
            path: "Benchmarks/Transfer",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "QueueStrategies",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Presence", package: "Presence"),
                .product(name: "PresenceFixtures", package: "Presence"),
            ],
            path: "Benchmarks/QueueStrategies",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
