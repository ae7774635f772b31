import Foundation
import Testing
import TestSupport

/// The layers stay apart, read from the sources: only the executable parses command lines
/// (ArgumentParser), and the practice engine neither draws nor reads the terminal itself.
@Suite struct ModuleBoundaryTests {
    struct Import: CustomStringConvertible {
        var module: String
        var file: String
        var line: Int
        var imported: String
        var description: String { "\(file):\(line) imports \(imported)" }
    }

    /// Every `import` line of every Swift file under Sources/, with the module it belongs to
    /// (the folder under Sources/). Attributes (`@testable`, `@preconcurrency`…) and kinds
    /// (`import struct X.Y`) are read through.
    static func imports() throws -> [Import] {
        let sources = Repo.root.appendingPathComponent("Sources")
        let pattern = try Regex(#"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#)
        var found: [Import] = []
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            guard let module = relative.split(separator: "/").first.map(String.init) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let m = try pattern.firstMatch(in: String(line)), let name = m.output[1].substring else { continue }
                found.append(Import(module: module, file: "Sources/" + relative, line: n + 1, imported: String(name)))
            }
        }
        return found
    }

    @Test func onlyTheExecutableImportsArgumentParser() throws {
        let all = try Self.imports()
        #expect(all.contains { $0.module == "etude" && $0.imported == "ArgumentParser" }, "the scan sees the executable's own imports")
        let elsewhere = all.filter { $0.imported == "ArgumentParser" && $0.module != "etude" }
        #expect(elsewhere.isEmpty, "command-line parsing belongs to Sources/etude: \(elsewhere)")
    }

    @Test func practiceImportsNeitherScreenNorTerminalNorStore() throws {
        let all = try Self.imports()
        #expect(all.contains { $0.module == "Practice" }, "the scan sees Sources/Practice")
        let drawing = all.filter { $0.module == "Practice" && ["Screen", "Terminal", "Store"].contains($0.imported) }
        #expect(drawing.isEmpty, "Practice must not draw, read the terminal or hold the database: \(drawing)")
        let declared = try Self.dependencies(of: "Practice")
        #expect(!declared.isEmpty && declared.isDisjoint(with: ["Screen", "Terminal", "Store"]), "Package.swift: Practice depends on \(declared.sorted())")
    }

    /// A target's dependencies as Package.swift declares them (the names in its list).
    static func dependencies(of target: String) throws -> Set<String> {
        let package = try String(contentsOf: Repo.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try Regex(#"\.target\(\s*name:\s*""# + target + #"",\s*dependencies:\s*\[([^\]]*)\]"#)
        guard let m = try pattern.firstMatch(in: package), let list = m.output[1].substring else { return [] }
        let names = try Regex(#""([A-Za-z_][A-Za-z0-9_]*)""#)
        return Set(String(list).matches(of: names).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The application layer split along the spine (issue 36 step 8): `Sources/Trainer` is
    /// gone; its five modules each stay under 4,000 lines and are layered Reports → LessonLibrary
    /// → Devices → App → FrontEnd (each imports only those before it, the executable all).
    @Test func theApplicationLayerIsSplitAlongTheSpine() throws {
        #expect(!FileManager.default.fileExists(atPath: Repo.root.appendingPathComponent("Sources/Trainer").path), "Sources/Trainer is gone")
        let layers = ["Reports", "LessonLibrary", "Devices", "App", "FrontEnd"]
        let sources = try Self.lines(under: "Sources")
        for layer in layers {
            let count = sources.filter { $0.module == layer }.count
            #expect(count > 300 && count <= 4_000, "\(layer) has \(count) lines (at most 4,000)")
        }
        let imports = try Self.imports()
        for (n, layer) in layers.enumerated() {
            let above = Set(layers[(n + 1)...])
            let upward = imports.filter { $0.module == layer && above.contains($0.imported) }
            #expect(upward.isEmpty, "\(layer) reaches up: \(upward)")
        }
    }

    /// The front end (every full screen and one-line player) asks App for what is stored and
    /// never holds the Store itself: no import, no dependency, no way into the database.
    @Test func theFrontEndIsOffTheStore() throws {
        let imports = try Self.imports()
        #expect(imports.contains { $0.module == "FrontEnd" }, "the scan sees Sources/FrontEnd")
        let store = imports.filter { $0.module == "FrontEnd" && ["Store", "GRDB"].contains($0.imported) }
        #expect(store.isEmpty, "FrontEnd imports the database: \(store)")
        let declared = try Self.dependencies(of: "FrontEnd")
        #expect(!declared.isEmpty && !declared.contains("Store"), "Package.swift: FrontEnd depends on \(declared.sorted())")
        let ways = ["withStore(", "openStore(", "storeIfAvailable", "Store.", "Store("]
        let reached = try Self.lines(under: "Sources").filter { line in
            line.module == "FrontEnd" && ways.contains { line.text.contains($0) }
        }
        #expect(reached.isEmpty, "ask App (BrowserCatalogue, RoutineHistory, LeftOff, …): \(reached.map { "\($0.file):\($0.line): \($0.text)" })")
    }

    /// Every line of every Swift file under `folder` (Sources or Tests), with its path from the
    /// repository's root, its module (the first folder below) and its number.
    static func lines(under folder: String) throws -> [(file: String, module: String, line: Int, text: String)] {
        let root = Repo.root.appendingPathComponent(folder)
        var found: [(file: String, module: String, line: Int, text: String)] = []
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            guard let module = relative.split(separator: "/").first.map(String.init) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                found.append((folder + "/" + relative, module, n + 1, String(line)))
            }
        }
        return found
    }

    /// `--input` is typed: parsed from text once, by MIDIInput's own reader, and never again
    /// (the option's type, `InputSpec: ExpressibleByArgument`, calls it from inside MIDIInput).
    @Test func inputIsParsedFromTextOnlyInMIDIInput() throws {
        let sources = try Self.lines(under: "Sources")
        #expect(sources.contains { $0.module == "MIDIInput" && $0.text.contains("InputSpec(") }, "the scan sees MIDIInput's own parser")
        let parsed = sources.filter { $0.module != "MIDIInput" && $0.text.contains("InputSpec(") }
        #expect(parsed.isEmpty, "only MIDIInput reads an input from text: \(parsed.map { "\($0.file):\($0.line)" })")
        // Tests outside MIDIInput's and JACK's own build typed specs too.
        let tests = try Self.lines(under: "Tests").filter {
            !["MIDIInputTests", "JackTests"].contains($0.module) && !$0.file.hasSuffix("ModuleBoundaryTests.swift") && $0.text.contains("InputSpec(")
        }
        #expect(tests.isEmpty, "tests name inputs by their cases: \(tests.map { "\($0.file):\($0.line)" })")
    }

    /// What an input can do is asked of the source (`capabilities`, `deviceID`), never found by
    /// its type: no downcast of an input source outside MIDIInput.
    @Test func noInputSourceIsDowncastOutsideMIDIInput() throws {
        let pattern = try Regex(#"(\bas[?!]?|\bis)\s+(JackInput|AudioInput|ALSAInput|ByteStreamInput)\b"#)
        let sources = try Self.lines(under: "Sources")
        let casts = try sources.filter { try $0.module != "MIDIInput" && pattern.firstMatch(in: $0.text) != nil }
        #expect(casts.isEmpty, "ask the source's capabilities instead: \(casts.map { "\($0.file):\($0.line): \($0.text)" })")
        #expect(sources.contains { $0.module == "Practice" && $0.text.contains("capabilities.contains(.listens)") }, "the hookup asks the source")
    }

    /// The live synth's options are one group (`SynthOptions`): `--audio-driver` is declared
    /// once, and no command builds a `LiveSound` from its own copies of them.
    @Test func theSynthOptionsAreOneGroup() throws {
        let etude = try Self.lines(under: "Sources").filter { $0.module == "etude" }
        let drivers = etude.filter { $0.text.contains("var audioDriver") }
        #expect(drivers.count == 1, "one --audio-driver: \(drivers.map { "\($0.file):\($0.line)" })")
        #expect(drivers.allSatisfy { $0.file.hasSuffix("PracticeOptions.swift") })
        let built = etude.filter { $0.text.contains("LiveSound(soundfont:") }
        #expect(built.count == 1 && built.allSatisfy { $0.text.contains("var sound: LiveSound") },
                "build the synth through SynthOptions.sound: \(built.map { "\($0.file):\($0.line)" })")
    }

    /// The plan's rules across options live in Lesson (`PlanRequest`), not in the executable,
    /// and a typed transposition is never turned back into text to be parsed again.
    @Test func thePlanRulesAndTranspositionsStayTyped() throws {
        let sources = try Self.lines(under: "Sources")
        let rule = sources.filter { $0.text.contains("--tempo and --bpm both given") }
        #expect(rule.map(\.module) == ["Lesson"], "the rule is Lesson's: \(rule.map { "\($0.file):\($0.line)" })")
        let reparsed = sources.filter { $0.module == "etude" && ($0.text.contains("transpose?.text") || $0.text.contains("Request.parse(")) }
            + sources.filter { $0.text.contains("LessonFit.open(") && $0.text.contains(".text") }
        #expect(reparsed.isEmpty, "pass the Transposition.Request itself: \(reparsed.map { "\($0.file):\($0.line)" })")
    }

    /// One Store per process (issue 36 step 2, issue 40 point 6): only the library opens the
    /// database (lazily, once, saying its notices), every open says whether the user chose the
    /// file, and nothing opens it with its notices dropped by `try?`.
    @Test func theStoreIsOpenedInOnePlace() throws {
        let sources = try Self.lines(under: "Sources").filter { $0.module != "Store" }
        let opens = sources.filter { $0.text.contains("Store.open(") }
        #expect(opens.contains { $0.file == "Sources/LessonLibrary/Library.swift" }, "the scan sees the library's open")
        let elsewhere = opens.filter { !["Sources/LessonLibrary/Library.swift", "Sources/LessonLibrary/LessonCompletion.swift"].contains($0.file) }
        #expect(elsewhere.isEmpty, "ask the command's Library for its store: \(elsewhere.map { "\($0.file):\($0.line)" })")
        let unchosen = opens.filter { !$0.text.contains("chosen:") }
        #expect(unchosen.isEmpty, "say whether the user chose the database: \(unchosen.map { "\($0.file):\($0.line)" })")
        let dropped = sources.filter { $0.text.contains("try? Store.open(") && !$0.text.contains("chosen: true") || $0.text.contains("try? library.openStore()")
            || $0.text.contains("try? $0.openStore()") }
        #expect(dropped.isEmpty, "use Library.storeIfAvailable (its notices are said as it opens): \(dropped.map { "\($0.file):\($0.line)" })")
    }

    /// A practice is set up in one place (issue 36 step 3): the lesson fitted to the keyboard
    /// and the plan validated once, in `PracticeSetup`; the commands, the browser's Enter,
    /// resume and routines ask it instead of writing the steps out each a little differently.
    @Test func aPracticeIsSetUpInOnePlace() throws {
        let sources = try Self.lines(under: "Sources")
        let fitting = sources.filter { $0.text.contains("LessonFit.apply(") || $0.text.contains("LessonFit.keyboard(") }
        #expect(fitting.allSatisfy { $0.file == "Sources/App/PracticeSetup.swift" || $0.text.contains("remember()") || $0.file.hasSuffix("PerformanceJudge.swift") },
                "fit the keyboard through PracticeSetup: \(fitting.map { "\($0.file):\($0.line)" })")
        for caller in ["Sources/etude/PracticeScreenCommand.swift", "Sources/etude/LoopCommand.swift", "Sources/FrontEnd/Actions.swift",
                       "Sources/FrontEnd/RoutineRunner.swift"] {
            let lines = sources.filter { $0.file == caller }
            #expect(lines.contains { $0.text.contains("PracticeSetup.make(") }, "\(caller) sets a practice up through PracticeSetup")
            let own = lines.filter { $0.text.contains("LessonFit.open(") || $0.text.contains(".validate(for: opened") }
            #expect(own.isEmpty, "\(caller) opens or validates on its own: \(own.map { "\($0.file):\($0.line)" })")
        }
    }

    /// One screen host (issue 36 step 6): the terminal session and the signal set-up are built
    /// in one file, `Sources/Screen/ScreenHost.swift` (Terminal only defines them); every full
    /// screen is a `FullScreen` on it, and no screen runs its own key/frame loop.
    @Test func theTerminalSessionAndSignalsAreSetUpInOneFile() throws {
        let sources = try Self.lines(under: "Sources").filter { $0.module != "Terminal" && !$0.text.trimmingCharacters(in: .whitespaces).hasPrefix("///") }
        let host = "Sources/Screen/ScreenHost.swift"
        let made = sources.filter { $0.text.contains("TerminalSession(") || $0.text.contains("SignalWatch(") || $0.text.contains("TerminalSession.run")
            || $0.text.contains("TerminalLoop(") || $0.text.contains("KeyInput(") && !$0.file.hasSuffix("LineKeys.swift") }
        #expect(made.contains { $0.file == host }, "the scan sees the host")
        #expect(Set(made.map(\.file)) == [host], "take the terminal through ScreenHost: \(made.filter { $0.file != host }.map { "\($0.file):\($0.line)" })")
        let fullScreens = sources.filter { $0.text.contains(": FullScreen {") }.map(\.file)
        for screen in ["Sources/FrontEnd/Browser.swift", "Sources/FrontEnd/Calibration.swift", "Sources/FrontEnd/PracticeScreenRunner.swift"] {
            #expect(fullScreens.contains(screen), "\(screen) is a FullScreen on the host")
        }
        // Each screen draws through the one prelude (the too-small check written once).
        let tooSmall = sources.filter { $0.text.contains("TooSmallMessage(") }
        #expect(Set(tooSmall.map(\.file)) == [host], "the too-small message is the prelude's: \(tooSmall.map { "\($0.file):\($0.line)" })")
    }
}
