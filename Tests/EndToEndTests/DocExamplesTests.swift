import Foundation
import Testing
import TestSupport

/// Every command example a learner can read — in README.md, in docs/, and in every command's
/// `--help` — is run as written, in a user's folder that holds the files the examples name
/// (`song.mid`, `song.abc`, `~/Music/lessons`, `notes.fifo`). An example that fails fails this
/// test, so no example can rot. Commands that take the terminal (practice, play, the browser,
/// record, quiz, a routine run, resume) run in a real terminal until they show, then quit.
@Suite(.serialized) struct DocExamplesTests {
    /// One example as written, and where it was found.
    struct Example: CustomStringConvertible {
        var words: [String]
        var source: String
        var description: String { "\(source): etude \(words.joined(separator: " "))" }
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func everyReadmeAndDocsExampleRuns() throws {
        var examples: [Example] = []
        for file in ["README.md"] + Self.docFiles() {
            let text = try String(contentsOf: Repo.root.appendingPathComponent(file), encoding: .utf8)
            examples += Self.examples(inMarkdown: text, source: file)
        }
        #expect(examples.count >= 8, "found the examples: \(examples)")
        try Self.runAll(examples)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func everyHelpExampleRuns() throws {
        let examples = try Self.helpExamples()
        #expect(examples.count >= 40, "found the examples in --help: \(examples.count)")
        // Every command shows at least one example.
        let commands = Set(examples.compactMap { $0.words.first })
        for c in ["info", "events", "abc", "play", "render", "export", "loop", "list", "library", "fav", "loops", "stats",
                  "resume", "routine", "record", "quiz", "practice", "score", "devices"] {
            #expect(commands.contains(c), "etude \(c) --help shows an example")
        }
        try Self.runAll(examples)
    }

    // MARK: Finding the examples

    static func docFiles() -> [String] {
        let docs = Repo.root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    /// Command lines in fenced code blocks: lines that start with `etude` (a trailing `\`
    /// continues a line; a `# comment` ends it).
    static func examples(inMarkdown text: String, source: String) -> [Example] {
        var out: [Example] = []
        var inFence = false
        var pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard inFence else { continue }
            var text = pending.isEmpty ? line.trimmingCharacters(in: .whitespaces) : pending + " " + line.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix("\\") {
                text.removeLast()
                pending = text.trimmingCharacters(in: .whitespaces)
                continue
            }
            pending = ""
            guard text == "etude" || text.hasPrefix("etude ") else { continue }
            if let hash = text.range(of: "  #") { text = String(text[..<hash.lowerBound]) }
            out.append(Example(words: Array(shellWords(text).dropFirst()), source: source))
        }
        return out
    }

    /// The examples every command's `--help` shows (after "Example:"/"Examples:").
    static func helpExamples() throws -> [Example] {
        let etude = try Etude()
        var out: [Example] = []
        var queue: [[String]] = [[]]
        var seen = Set<[String]>()
        while let path = queue.first {
            queue.removeFirst()
            guard seen.insert(path).inserted else { continue }
            let help = try etude.run(path + ["--help"]).stdout
            var inExamples = false
            var inSubcommands = false
            for raw in help.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("Example:") || line.hasPrefix("Examples:") { inExamples = true }
                if line.hasPrefix("SUBCOMMANDS:") { inSubcommands = true; continue }
                if line.isEmpty { inSubcommands = false }
                // A subcommand line: two spaces, a lowercase name (continuation lines are indented further).
                if inSubcommands, raw.hasPrefix("  "), !raw.hasPrefix("   "), let name = line.split(separator: " ").first,
                   name != "help", name.first?.isLowercase == true, path.count < 3 {
                    queue.append(path + [String(name).replacingOccurrences(of: " (default)", with: "")])
                }
                var text = line
                if text.hasPrefix("Example: ") { text.removeFirst("Example: ".count) }
                if inExamples, text.hasPrefix("etude") {
                    out.append(Example(words: Array(shellWords(text).dropFirst()), source: "etude \(path.joined(separator: " ")) --help"))
                }
                if line.isEmpty { inExamples = false }
            }
        }
        return out
    }

    /// Splits a command line as sh would: spaces, double and single quotes.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for ch in line {
            if let q = quote {
                if ch == q { quote = nil } else { current.append(ch) }
            } else if ch == "\"" || ch == "'" {
                quote = ch
                inWord = true
            } else if ch == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(ch)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    // MARK: Running them

    /// A learner's folder: their own song (a two-hand piece in .mid and .abc), a folder of
    /// lessons under ~/Music, a FIFO a keyboard program would write to, the built-in lessons
    /// reachable as Lessons/.
    static func userFolder() throws -> (Etude, TempDir) {
        let etude = try Etude()
        let home = etude.home
        let fm = FileManager.default
        try fm.copyItem(atPath: Repo.lesson("level4/minuet-in-g-petzold.mid"), toPath: home.file("song.mid"))
        try fm.copyItem(atPath: Repo.lesson("level4/minuet-in-g-petzold.abc"), toPath: home.file("song.abc"))
        try fm.createDirectory(atPath: home.file("Music/lessons"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Repo.lesson("level4/ode-to-joy.mid"), toPath: home.file("Music/lessons/ode.mid"))
        try fm.createSymbolicLink(atPath: home.file("Lessons"), withDestinationPath: Repo.lessons.path)
        _ = mkfifo(home.file("notes.fifo"), 0o644)
        // A recording of their song (etude align, render --recording): rendered, then FLAC and MP3.
        let take = home.file("take.wav")
        #expect(try etude.run(["render", home.file("song.mid"), "-o", take]).status == 0)
        if let sox = Tools.sox.path { _ = try ProcessRunner.run(sox, [take, home.file("take.flac")], timeout: 60) }
        if let lame = Tools.which("lame") { _ = try ProcessRunner.run(lame, ["--quiet", take, home.file("take.mp3")], timeout: 60) }
        return (etude, home)
    }

    /// Runs examples in order in one user folder (later examples use what earlier ones made).
    static func runAll(_ examples: [Example]) throws {
        let (base, home) = try userFolder()
        var etude = base
        etude.environment["EDITOR"] = "true"
        etude.environment["VISUAL"] = ""
        for example in examples {
            let words = example.words.map { $0.hasPrefix("~/") ? home.path + String($0.dropFirst()) : $0 }
            if takesTheTerminal(words) {
                let pane = try TmuxPane(etude: etude, words, width: 100, height: 30, directory: home.path)
                let screen = pane.waitFor(15) { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && !$0.contains("loading") }
                // Let it run a moment, then quit the way a learner would.
                usleep(800_000)
                if !pane.ended { try pane.keys(words.isEmpty || words.first == "browse" ? "C-q" : "q") }
                let status = pane.exitStatus(within: 30)
                #expect(status == 0, "\(example) ended \(status.map(String.init) ?? "not at all"): \(pane.stderr)\n\(screen)")
                #expect(pane.ttyRestored, "\(example) restored the terminal")
                for line in pane.stderr.split(separator: "\n") where line.hasPrefix("etude:") {
                    // Only what this machine lacks, or what a learner is told before a screen opens
                    // (a recording aligned the first time, a transposition kept from last time).
                    #expect(line.contains("no audio device") || line.contains("computer keyboard") || line.contains("aligned now")
                            || line.contains("as last time"), "\(example): \(line)")
                }
            } else {
                let r = try etude.run(words, directory: home.path, timeout: 120)
                #expect(r.status == 0, "\(example): \(r.stderr)")
            }
        }
    }

    /// Examples that take the terminal: run in tmux and quit.
    static func takesTheTerminal(_ words: [String]) -> Bool {
        guard let command = words.first else { return true }   // `etude` alone: the browser
        switch command {
        case "browse", "practice", "record", "quiz", "calibrate": return !words.contains("--show") && !words.contains("--reset")
        case "play": return true
        case "resume": return !words.contains("--show") && !words.contains("--json")
        case "loop": return !words.contains("--dry-run")
        case "routine": return words.count > 1 && words[1] == "run" && !words.contains("--plan")
        default: return false
        }
    }
}
