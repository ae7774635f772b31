import Foundation
import Testing
import TestSupport

/// Help that tells the truth once, and completions that know the lessons and the values.
@Suite struct HelpAndCompletionTests {
    /// Every command's help, by its path.
    static func allHelp(_ etude: Etude) throws -> [String: String] {
        var out: [String: String] = [:]
        var queue: [[String]] = [[]]
        while let path = queue.first {
            queue.removeFirst()
            let help = try etude.run(path + ["--help"]).stdout
            out[path.joined(separator: " ")] = help
            guard path.count < 2, let start = help.range(of: "SUBCOMMANDS:\n") else { continue }
            for line in help[start.upperBound...].split(separator: "\n") {
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first,
                      name != "help", name.first?.isLowercase == true else { if line.isEmpty { break }; continue }
                queue.append(path + [String(name)])
            }
        }
        return out
    }

    @Test func theOverviewSaysWhatEtudeReadsAndEachDefaultIsPrintedOnce() throws {
        let etude = try Etude()
        let helps = try Self.allHelp(etude)
        #expect(helps.count > 20, "every command's help was read")
        let root = try #require(helps[""])
        #expect(root.contains("ABC") && root.contains("MIDI"), "the overview names the formats: \(root.prefix(300))")
        for (command, help) in helps {
            // An option's text with "(default" twice said its default twice.
            for block in help.components(separatedBy: "\n  -") {
                let defaults = block.components(separatedBy: "(default").count - 1
                #expect(defaults <= 1, "etude \(command): a default printed twice in: \(block)")
            }
        }
    }

    /// README's command table has a one-line row for every command `etude --help` lists (issue 27:
    /// `etude score` was missing), the manual's practice page every key the `?` help names, and
    /// the README stays a page to start from (issue 39: it was 720 lines).
    @Test func theReadmeNamesEveryCommandAndTheManualEveryPracticeKey() throws {
        let readme = try String(contentsOf: Repo.root.appendingPathComponent("README.md"), encoding: .utf8)
        let helps = try Self.allHelp(try Etude())
        let commands = helps.keys.filter { !$0.isEmpty && !$0.contains(" ") }
        #expect(commands.count > 15)
        for command in commands where command != "debug-write-history" {
            #expect(readme.contains("| `etude \(command)") || readme.contains("`etude` / `etude \(command)`"), "README's table has no row for etude \(command)")
        }
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 150, "README.md is \(lines.count) lines: the manual belongs in docs/")
        #expect(lines.allSatisfy { !$0.hasPrefix("| `etude") || $0.count <= 160 }, "a README command row is one short line")
        let manual = try String(contentsOf: Repo.root.appendingPathComponent("docs/PRACTICE.md"), encoding: .utf8)
        for key in ["space", "←/→", "Home", "`[` `]` `l`", "`s`", "`L`", "`+`/`-`", "`h`", "`o`", "`m`", "`n`", "`v`", "`g`", "`M`", "`W`", "`r`", "`?`", "`q`",
                    "F1 help", "F2 hand", "F3 other hand", "F4 save the loop", "F5 next saved loop", "F6 mode", "F7 metronome",
                    "F8 note names", "F9 weakest section", "F10 go to bar"] {
            #expect(manual.contains(key), "docs/PRACTICE.md's keys lack \(key)")
        }
    }

    /// Every option any command's `--help` lists has exactly one row in docs/OPTIONS.md (each
    /// option documented once; `scripts/options-doc.py` regenerates the page from the help).
    @Test func everyOptionIsInTheManualOnce() throws {
        let page = try String(contentsOf: Repo.root.appendingPathComponent("docs/OPTIONS.md"), encoding: .utf8)
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `-") }
        let documented = rows.map { row -> String in
            let spec = row.dropFirst(3).prefix { $0 != "`" }
            let first = spec.split(separator: " ").first ?? ""
            return String(first.split(separator: "/").first ?? first).trimmingCharacters(in: CharacterSet(charactersIn: ","))
        }
        #expect(Set(documented).count == documented.count, "an option has two rows in docs/OPTIONS.md")
        for (command, help) in try Self.allHelp(try Etude()) where command != "debug-write-history" {
            guard let start = help.range(of: "OPTIONS:\n") else { continue }
            for line in help[start.upperBound...].split(separator: "\n") where line.hasPrefix("  -") {
                let names = line.split(separator: " ").prefix { $0.hasPrefix("-") }.flatMap { $0.split(separator: "/") }
                    .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                guard let long = names.first(where: { $0.hasPrefix("--") }) ?? names.first,
                      long != "--help", long != "--version" else { continue }
                #expect(documented.contains { $0 == long || $0.hasPrefix("-") && names.contains($0) },
                        "etude \(command) \(long) is not in docs/OPTIONS.md: run scripts/options-doc.py")
            }
        }
    }

    @Test func lessonArgumentsCompleteTitlesAndFilesAndOptionsTheirValues() throws {
        let etude = try Etude()
        _ = try etude.run(["list"])   // catalogues the built-in lessons
        let titles = try etude.run(["---completion", "practice", "--", "positional@0", "2", "2", "etude", "practice", "Od"])
        #expect(titles.stdout.split(separator: "\n").contains("Ode to Joy"), "\(titles.stdout)\(titles.stderr)")
        let dir = try TempDir()
        try dir.write("song.mid", [0])
        try dir.write("notes.txt", "x")
        let typed = dir.path + "/s"
        let files = try etude.run(["---completion", "info", "--", "positional@0", "2", "\(typed.count)", "etude", "info", typed])
        #expect(files.stdout.split(separator: "\n") == [Substring(dir.path + "/song.mid")], "\(files.stdout)")
        let bash = try etude.run(["--generate-completion-script", "bash"]).stdout
        #expect(bash.contains("'right'$'\\n''left'$'\\n''both'"), "--hand completes its values")
        #expect(bash.contains("'watch'$'\\n''wait'$'\\n''play'$'\\n''memory'"), "--mode completes its values")
        #expect(bash.contains("'play'$'\\n''quiet'$'\\n''mute'"), "--other completes its values")
    }
}
