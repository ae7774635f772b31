// swift-tools-version:6.0
// Etude: a terminal piano-lesson trainer. The module map, what each module owns and where a new
// format, screen or input goes: docs/ARCHITECTURE.md (kept true with every change here).
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
        .library(name: "Notation", targets: ["Notation"]),
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
        // The one monotonic clock (and a virtual one for tests) every timed part reads.
        .target(name: "Clocks"),
        // C shim over the ALSA sequencer (libasound, pkg-config `alsa`): plain functions only.
        .target(name: "CALSA", linkerSettings: [.linkedLibrary("asound")]),
        // C shim over libjack (pkg-config `jack`): the one JACK client's real-time callback (FluidSynth
        // rendered in it, midi_in played at its block, midi_out written), lock-free rings, the meter.
        .target(name: "CJack", dependencies: ["CAudioMix"], linkerSettings: [.linkedLibrary("jack"), .linkedLibrary("fluidsynth")]),
        // The recording practised with (`--recording`), mixed into the synth's sound by whichever
        // audio callback renders it: one lock-free ring of stereo frames, C atomics only.
        .target(name: "CAudioMix"),
        // Etude's one JACK client (never starts a server), its ports, and the key → sound meter.
        .target(name: "Jack", dependencies: ["CJack", "Clocks"]),
        // Played-note input: ALSA keyboards, JACK MIDI, a microphone, raw MIDI byte streams (device, FIFO), computer keys.
        .target(name: "MIDIInput", dependencies: ["CALSA", "Jack", "CPulseCapture", "Listening", "MIDIFile", "Clocks"]),
        // C shim over PulseAudio's simple API (PipeWire serves it too): a mono recording stream.
        .target(name: "CPulseCapture", linkerSettings: [.linkedLibrary("pulse-simple"), .linkedLibrary("pulse")]),
        // Hearing an acoustic piano: onsets and score-informed pitch detection from audio samples. Pure Swift.
        .target(name: "Listening"),
        // Judging what was played against what was expected: wait gate, play-mode matching,
        // scoring, recording, quiz. Pure logic.
        .target(name: "Judge", dependencies: ["MIDIFile", "Lesson", "Follow"]),
        // The score follower: played notes aligned to the score's, offline (a whole performance,
        // restarts and all) and online (note by note: position and tempo). Pure logic.
        .target(name: "Follow", dependencies: ["Clocks"]),
        .testTarget(name: "FollowTests", dependencies: ["Follow", "Clocks"]),
        // A lesson from a MIDIFile: hands, bars, practice plan, transport, metronome, export. Pure logic.
        .target(name: "Lesson", dependencies: ["MIDIFile", "Clocks"]),
        // SQLite (GRDB over the system libsqlite3): catalogue, favourites, loops, history, resume, routines.
        .target(
            name: "Store",
            dependencies: ["MIDIFile", "Judge", "Lesson", .product(name: "GRDB", package: "GRDB.swift")]
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
            dependencies: ["CFluidSynthSystem", "CAudioMix"],
            linkerSettings: [.linkedLibrary("fluidsynth"), .linkedLibrary("asound"), .linkedLibrary("pulse")]
        ),
        // libsndfile (pkg-config `sndfile`) and the Rubber Band library's C API (pkg-config
        // `rubberband`): system libraries only RecordingAudio includes.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CRubberBand", pkgConfig: "rubberband", providers: [.apt(["librubberband-dev"])]),
        // A recording's alignment to a lesson: chroma + onset features, multiscale DTW, bar times,
        // taps, loop crossfades. Pure Swift on sample arrays (no file, no device).
        .target(name: "Recording", dependencies: ["Listening"]),
        // The edges of a recording: decoding any libsndfile format (sizes checked first) and
        // Rubber Band's time stretch (R3 where available, else R2).
        .target(name: "RecordingAudio", dependencies: ["CSndFile", "CRubberBand", "CAudioMix", "Recording"]),
        // SoundOutput protocol, live FluidSynth, offline WAV render, SoundFont discovery, scheduling.
        .target(name: "Synth", dependencies: ["CFluidSynth", "CALSA", "Jack", "MIDIFile", "Clocks"]),
        .executableTarget(
            name: "etude",
            dependencies: [
                "MIDIFile",
                "MIDIInput",
                "Judge",
                "ABC",
                "Lesson",
                "Store",
                "Synth",
                "Practice",
                "Reports",
                "LessonLibrary",
                "Devices",
                "App",
                "FrontEnd",
                "Notation",
                "Terminal",
                "Screen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "etude-bench",
            dependencies: ["MIDIFile", "ABC", "Lesson", "MIDIInput", "Terminal", "Screen", "Store", "Synth", "Notation", "MusicXML", "Judge", "Jack", "Listening", "Follow",
                           "RecordingAudio", "CAudioMix"],
            path: "Benchmarks/etude-bench"
        ),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDIFile", "TestSupport"]),
        .testTarget(name: "MIDIInputTests", dependencies: ["MIDIInput", "MIDIFile", "Judge", "Listening", "TestSupport"]),
        .testTarget(name: "JudgeTests", dependencies: ["Judge", "Follow", "MIDIFile", "TestSupport"]),
        .testTarget(name: "ListeningTests", dependencies: ["Listening", "TestSupport"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "RecordingAudio", "Listening", "TestSupport"]),
        // Raw mode, key decoding, cell buffer + frame diff, colour depth, restore on every exit. No ncurses.
        .target(name: "Terminal"),
        // Practice-screen widgets drawn into Terminal's cell buffer from a plain ScreenModel value.
        .target(name: "Screen", dependencies: ["Terminal", "MIDIFile", "Judge", "Notation"]),
        // Tiny program the pseudo-terminal tests run to prove raw mode is entered and restored.
        .executableTarget(name: "etude-tty-probe", dependencies: ["Terminal", "Screen", "FrontEnd"], path: "Tests/TTYProbe"),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "etude-tty-probe", "TestSupport"]),
        .testTarget(name: "ScreenTests", dependencies: ["Screen", "Terminal", "MIDIFile", "Judge", "Notation", "Lesson", "TestSupport"],
                    exclude: ["Snapshots"]),
        // ABC 2.1 notation → MIDIFile (lessons are written in ABC), and the fingering convention.
        .target(name: "ABC", dependencies: ["MIDIFile"]),
        // Writes the generated curriculum (Lessons/level1–3) as .abc and compiles every lesson to .mid.
        .executableTarget(name: "etude-lessons", dependencies: ["ABC", "MIDIFile", "MusicXML"], path: "Tools/etude-lessons"),
        .testTarget(name: "ABCTests", dependencies: ["ABC", "MIDIFile", "TestSupport"], exclude: ["Fixtures"]),
        // MusicXML 2.0–4.0 (.musicxml, .xml, compressed .mxl) → MIDIFile with the score's staves,
        // fingering, spelling and printed bar numbers as etude: annotations. Foundation's
        // XMLParser (libxml2) and ZIPFoundation do the reading.
        .target(
            name: "MusicXML",
            dependencies: ["MIDIFile", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .testTarget(name: "MusicXMLTests", dependencies: ["MusicXML", "MIDIFile", "Lesson", "TestSupport"]),
        .testTarget(name: "LessonTests", dependencies: ["Lesson", "MIDIFile", "TestSupport"], exclude: ["Fixtures"]),
        // The grand staff: a lesson's bars laid out as placed symbols (staves, clefs, key and time
        // signatures, spelled heads, accidentals, durations, rests, ties, fingering), systems for a
        // width, a text render for `etude score` and its JSON. Pure logic; Screen draws it.
        .target(name: "Notation", dependencies: ["Lesson", "MIDIFile", "Judge"]),
        .testTarget(name: "NotationTests", dependencies: ["Notation", "Lesson", "MIDIFile", "MusicXML", "Judge", "TestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "MIDIFile", "Judge", "Lesson", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SynthTests", dependencies: ["Synth", "MIDIFile", "TestSupport"]),
        // Etude's JACK client on a `jackd -d dummy` the tests start: key → sound in frames beside
        // fluidsynth, echo, midi_out, lights, a server that dies, a flood on midi_in.
        .testTarget(name: "JackTests", dependencies: ["Jack", "Synth", "MIDIInput", "MIDIFile", "TestSupport"]),
        // A practice session at run time: the session (transport, runner thread, coach), the
        // controller (commands → transport and coach), the state a view reads. No drawing here.
        .target(name: "Practice", dependencies: ["Lesson", "Synth", "MIDIFile", "Judge", "MIDIInput", "Listening", "Clocks", "Follow"]),
        // The application layer, made of the five modules below (docs/ARCHITECTURE.md draws them).
        // What Etude writes out and the option words it reads: console lines (control bytes
        // removed), the one file writer, JSON documents, info, stats, score text, `--report` lines.
        .target(name: "Reports", dependencies: ["Store", "Lesson", "MIDIFile", "MIDIInput", "Notation", "Judge", "Synth", "Jack", "Screen", "Terminal"]),
        // The learner's library: the process's one Store (opened lazily), a lesson opened by path,
        // title or id in any format and fitted to the keyboard, remembered choices, passes kept
        // while the database was locked.
        .target(name: "LessonLibrary", dependencies: ["Reports", "Store", "Lesson", "MIDIFile", "MIDIInput", "ABC", "MusicXML"]),
        // The learner's instrument and Etude's sound as the options and the stored set-ups choose
        // them: the input and its echo, timing offsets, the microphone's calibration, FluidSynth's
        // settings, key lights, the metronome's output, the device list.
        .target(name: "Devices", dependencies: ["LessonLibrary", "Reports", "Store", "Practice", "Synth", "Jack", "MIDIInput", "Listening",
                                                "Lesson", "Judge", "MIDIFile", "Clocks", "Screen", "Terminal"]),
        // What a practice needs and leaves: the setup built once (lesson, plan, input, sound,
        // history), the effects performed off the frame, the history, routines and the method,
        // judging a take, recordings aligned and stretched, renders. Never draws.
        .target(name: "App", dependencies: ["Devices", "LessonLibrary", "Reports", "Practice", "Recording", "RecordingAudio", "Store", "Synth",
                                            "MIDIInput", "Listening", "Lesson", "Judge", "MIDIFile", "Clocks", "Screen"]),
        // Every full screen on the one screen host (practice, review, browser, calibration,
        // routines, quiz, tap) and the one-line players; asks App for what is stored, never the
        // Store itself (ModuleBoundaryTests).
        .target(name: "FrontEnd", dependencies: ["App", "Devices", "LessonLibrary", "Reports", "Practice", "Recording", "RecordingAudio", "Screen",
                                                 "Notation", "Terminal", "Synth", "MIDIInput", "Listening", "Lesson", "Judge", "MIDIFile", "Clocks"]),
        // One process runner, one tmux harness, the built binary's path and the skip conditions,
        // shared by every test target; with the music fixtures several targets build.
        .target(name: "TestSupport", dependencies: ["MIDIFile", "Store"], path: "Tests/TestSupport"),
        // The command line end to end, as a user runs it: the built `etude` in processes, on a
        // pseudo-terminal and in tmux. Library modules only build fixtures and read back what
        // etude wrote (a .mid, a .wav, the database), never stand in for the binary.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport", "MIDIFile", "Lesson", "Judge", "Synth", "Store", "Reports", "LessonLibrary", "Devices", "App", "FrontEnd", "Jack", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "PracticeTests", dependencies: ["Practice", "Lesson", "Synth", "MIDIFile", "Judge", "MIDIInput", "Clocks", "Follow", "TestSupport"]),
        .testTarget(name: "AppTests", dependencies: ["Reports", "LessonLibrary", "Devices", "App", "FrontEnd", "Terminal", "Practice", "Lesson", "Synth", "MIDIFile", "MIDIInput", "Listening", "Judge", "Screen", "Store", "Clocks", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
    ],
    swiftLanguageModes: [.v6]
)
