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
        .library(name: "Terminal", targets: ["Terminal"]),
        .library(name: "Screen", targets: ["Screen"]),
        .library(name: "ABC", targets: ["ABC"]),
        .library(name: "Lesson", targets: ["Lesson"]),
        .library(name: "MusicXML", targets: ["MusicXML"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.0"),
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
        // A lesson from a MIDIFile: hands, bars, practice plan, transport, metronome, export. Pure logic.
        .target(name: "Lesson", dependencies: ["MIDIFile"]),
        // SQLite (GRDB over the system libsqlite3): catalogue, favourites, loops, history, resume, routines.
        .target(
            name: "Store",
            dependencies: ["MIDIFile", .product(name: "GRDB", package: "GRDB.swift")]
        ),
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
                "MIDIInput",
                "Judge",
                "ABC",
                "MusicXML",
                "Lesson",
                "Store",
                "Synth",
                "Practice",
                "Terminal",
                "Screen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile", "Lesson", "MusicXML", "MIDIInput", "Terminal", "Screen", "Store", "Synth"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile"]),
        .testTarget(name: "MIDIInputTests", dependencies: ["MIDIInput", "MIDIFile", "Judge"]),
        .testTarget(name: "JudgeTests", dependencies: ["Judge", "MIDIFile"]),
        // Raw mode, key decoding, cell buffer + frame diff, colour depth, restore on every exit. No ncurses.
        .target(name: "Terminal"),
        // Practice-screen widgets drawn into Terminal's cell buffer from a plain ScreenModel value.
        .target(name: "Screen", dependencies: ["Terminal", "MIDIFile"]),
        // Tiny program the pseudo-terminal tests run to prove raw mode is entered and restored.
        .executableTarget(name: "etude-tty-probe", dependencies: ["Terminal", "Screen"], path: "Tests/TTYProbe"),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "etude-tty-probe"]),
        .testTarget(name: "ScreenTests", dependencies: ["Screen", "Terminal", "MIDIFile"], exclude: ["Snapshots"]),
        // ABC 2.1 notation → MIDIFile (lessons are written in ABC), and the fingering convention.
        .target(name: "ABC", dependencies: ["MIDIFile"]),
        // Writes the generated curriculum (Lessons/level1–3) as .abc and compiles every lesson to .mid.
        .executableTarget(name: "etude-lessons", dependencies: ["ABC", "MIDIFile"], path: "Tools/etude-lessons"),
        .testTarget(name: "ABCTests", dependencies: ["ABC", "MIDIFile"], exclude: ["Fixtures"]),
        // MusicXML 2.0–4.0 (.musicxml, .xml, compressed .mxl) → MIDIFile with the score's staves,
        // fingering, spelling and printed bar numbers as etude: annotations. Foundation's
        // XMLParser (libxml2) and ZIPFoundation do the reading.
        .target(
            name: "MusicXML",
            dependencies: ["MIDIFile", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .testTarget(name: "MusicXMLTests", dependencies: ["MusicXML", "MIDIFile", "Lesson", "TestSupport"]),
        .testTarget(name: "LessonTests", dependencies: ["Lesson", "MIDIFile"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "MIDIFile", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SynthTests", dependencies: ["Synth", "MIDIFile"]),
        // Wiring the lesson engine to devices: the real-time transport runner, the practice session.
        .target(name: "Practice", dependencies: ["Lesson", "Synth", "MIDIFile", "Judge", "MIDIInput", "Screen", "Terminal"]),
        // One process runner, one tmux harness, the built binary's path and the skip conditions,
        // shared by every test target.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The command line end to end, as a user runs it: the built `etude` in processes and in tmux.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "MIDIFile"]),
        .testTarget(name: "PracticeTests", dependencies: ["Practice", "Lesson", "Synth", "MIDIFile", "Judge", "MIDIInput", "Screen", "Terminal", "Store"]),
    ],
    swiftLanguageModes: [.v6]
)
