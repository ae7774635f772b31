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
        // libfluidsynth through pkg-config; the shim below is the only code that includes it.
        .systemLibrary(
            name: "CFluidSynthSystem",
            pkgConfig: "fluidsynth",
            providers: [.apt(["libfluidsynth-dev"])]
        ),
        // Plain C functions over FluidSynth for Swift (no varargs/macros), log capture, driver fallback.
        .target(
            name: "CFluidSynth",
            dependencies: ["CFluidSynthSystem"],
            linkerSettings: [.linkedLibrary("fluidsynth"), .linkedLibrary("asound"), .linkedLibrary("pulse")]
        ),
        // SoundOutput protocol, live FluidSynth, offline WAV render, SoundFont discovery, scheduling.
        .target(name: "Synth", dependencies: ["CFluidSynth", "MIDIFile"]),
        .executableTarget(
            name: "etude",
            dependencies: [
                "MIDIFile",
                "Synth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile", "Synth"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile"]),
        .testTarget(name: "SynthTests", dependencies: ["Synth", "MIDIFile"]),
    ],
    swiftLanguageModes: [.v6]
)
