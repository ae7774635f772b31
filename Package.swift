// swift-tools-version:6.0
// Etude: a terminal piano-lesson trainer. See ../shared/ARCHITECTURE.md for the module map:
// MIDIFile → Lesson → Transport → Synth | Screen, MIDIInput → Judge → Store.
import PackageDescription

let package = Package(
    name: "Etude",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "etude", targets: ["etude"]),
        .executable(name: "etude-bench", targets: ["etude-bench"]),
        .library(name: "MIDIFile", targets: ["MIDIFile"]),
        .library(name: "ABC", targets: ["ABC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Standard MIDI File model, lenient reader, writer, tempo map, note pairing. Pure Swift.
        .target(name: "MIDIFile"),
        .executableTarget(
            name: "etude",
            dependencies: [
                "MIDIFile",
                "ABC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile"]),
        // ABC 2.1 notation → MIDIFile (lessons are written in ABC), and the fingering convention.
        .target(name: "ABC", dependencies: ["MIDIFile"]),
        // Writes the generated curriculum (Lessons/level1–3) as .abc and compiles every lesson to .mid.
        .executableTarget(name: "etude-lessons", dependencies: ["ABC", "MIDIFile"], path: "Tools/etude-lessons"),
        .testTarget(name: "ABCTests", dependencies: ["ABC", "MIDIFile"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
