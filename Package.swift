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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Standard MIDI File model, lenient reader, writer, tempo map, note pairing. Pure Swift.
        .target(name: "MIDIFile"),
        // C shim over the ALSA sequencer (libasound, pkg-config `alsa`): plain functions only.
        .target(name: "CALSA", linkerSettings: [.linkedLibrary("asound")]),
        // Played-note input: ALSA keyboards, raw MIDI byte streams (device, FIFO, file), computer keys.
        .target(name: "MIDIInput", dependencies: ["CALSA", "MIDIFile"]),
        // Judging what was played against what was expected: wait gate, play-mode matching,
        // scoring, recording, quiz. Pure logic.
        .target(name: "Judge", dependencies: ["MIDIFile"]),
        .executableTarget(
            name: "etude",
            dependencies: [
                "MIDIFile",
                "MIDIInput",
                "Judge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile", "MIDIInput"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile"]),
        .testTarget(name: "MIDIInputTests", dependencies: ["MIDIInput", "MIDIFile", "Judge"]),
        .testTarget(name: "JudgeTests", dependencies: ["Judge", "MIDIFile"]),
    ],
    swiftLanguageModes: [.v6]
)
