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
        .library(name: "Lesson", targets: ["Lesson"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Standard MIDI File model, lenient reader, writer, tempo map, note pairing. Pure Swift.
        .target(name: "MIDIFile"),
        // A lesson from a MIDIFile: hands, bars, practice plan, transport, metronome, export. Pure logic.
        .target(name: "Lesson", dependencies: ["MIDIFile"]),
        .executableTarget(
            name: "etude",
            dependencies: [
                "MIDIFile",
                "Lesson",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile"]),
        .testTarget(name: "LessonTests", dependencies: ["Lesson", "MIDIFile"]),
    ],
    swiftLanguageModes: [.v6]
)
