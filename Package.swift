// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Presence",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Presence", targets: ["Presence"]),
        .library(name: "PresenceTransfer", targets: ["PresenceTransfer"]),
        .library(name: "PresenceImaging", targets: ["PresenceImaging"]),
        .library(name: "PresenceFixtures", targets: ["PresenceFixtures"]),
        .executable(name: "presence", targets: ["presence"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // C shims over libcurl: its setopt/getinfo calls are variadic and cannot be called from Swift.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // zlib, for the fixture server's gzip and gzip-bomb routes.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // C shims over libpng and libjpeg-turbo: error managers that return codes, memory sources, limits.
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("z"), .linkedLibrary("m")]
        ),
        // A pthread-mutex lock box, visible to ThreadSanitizer.
        .target(name: "PresenceLocking"),
        .target(
            name: "PresenceTransfer",
            dependencies: ["CCurl", "PresenceLocking"]
        ),
        .target(
            name: "PresenceImaging",
            dependencies: ["CImageCodecs", "PresenceLocking"]
        ),
        .target(
            name: "Presence",
            dependencies: ["PresenceTransfer", "PresenceImaging", "PresenceLocking"]
        ),
        .target(
            name: "PresenceFixtures",
            dependencies: [
                "PresenceImaging",
                "PresenceLocking",
                "PresenceTransfer",
                "CZlib",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "presence",
            dependencies: [
                "Presence",
                "PresenceFixtures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/bench_thumbnail_peers.py")]
        ),
        .testTarget(name: "PresenceTransferTests", dependencies: ["PresenceTransfer", "PresenceFixtures", "PresenceLocking"]),
        .testTarget(name: "PresenceImagingTests", dependencies: ["PresenceImaging"], exclude: ["Resources"]),
        .testTarget(name: "PresenceTests", dependencies: ["Presence", "PresenceFixtures"]),
        .testTarget(name: "PresenceCLITests", dependencies: ["presence", "PresenceFixtures", "PresenceImaging", "PresenceTransfer"]),
    ],
    swiftLanguageModes: [.v6]
)
