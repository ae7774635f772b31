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

    /// README's command table has a row for every command `etude --help` lists (issue 27:
    /// `etude score` was missing), and its practice row every key the `?` help names.
    @Test func theReadmeNamesEveryCommandAndEveryPracticeKey() throws {
        let readme = try String(contentsOf: Repo.root.appendingPathComponent("README.md"), encoding: .utf8)
        let helps = try Self.allHelp(try Etude())
        let commands = helps.keys.filter { !$0.isEmpty && !$0.contains(" ") }
        #expect(commands.count > 15)
        for command in commands where command != "debug-write-history" {
            #expect(readme.contains("| `etude \(command)") || readme.contains("`etude` / `etude \(command)`"), "README's table has no row for etude \(command)")
        }
        let practice = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `etude practice LESSON") }).description
        for key in ["space", "←/→", "Home", "`[` `]` `l`", "`s`", "`L`", "`+`/`-`", "`h`", "`o`", "`m`", "`n`", "`v`", "`g`", "`M`", "`W`", "`r`", "`?`", "`q`",
                    "F1 help", "F2 hand", "F3 other hand", "F4 save the loop", "F5 next saved loop", "F6 mode", "F7 metronome",
                    "F8 note names", "F9 weakest section", "F10 go to bar"] {
            #expect(practice.contains(key), "README's practice keys lack \(key)")
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
