import Foundation
import Testing
import TestSupport

/// `etude abc` and `.abc` lessons through the built binary.
@Suite("etude abc command")
struct ABCCommandTests {
    let etude: Etude
    let dir: TempDir
    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-abc-cli")
    }

    @Test func convertsALessonToTheCommittedMidi() throws {
        #expect(EtudeBinary.isBuilt, "build etude first: \(EtudeBinary.path)")
        let out = dir.file("scale.mid")
        let src = Repo.lessons.appendingPathComponent("level2/c-major-scale.abc")
        let r = try etude.run(["abc", src.path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let committed = try Data(contentsOf: src.deletingPathExtension().appendingPathExtension("mid"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == committed)
    }

    @Test func selectsATuneAndReportsErrorsWithLineAndColumn() throws {
        let src = try dir.write("tunes.abc", "X:1\nT:One\nK:C\nC\n\nX:2\nT:Two\nK:C\nD E @ F\n")
        let ok = try etude.run(["abc", src, "--tune", "1", "-o", dir.file("one.mid")])
        #expect(ok.status == 0)
        let bad = try etude.run(["abc", src, "--tune", "2", "-o", dir.file("two.mid")])
        #expect(bad.status == 1)
        #expect(bad.stderr == "etude: \(src):9:5: unexpected character '@' in \"D E @ F\"\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("two.mid")))
        let missing = try etude.run(["abc", src, "--tune", "5"])
        #expect(missing.stderr.contains("no tune X:5"))
        let list = try etude.run(["abc", src, "--list"])
        #expect(list.stdout == "X:1  One\nX:2  Two\n")
    }

    @Test func strictRefusesWhatTheImportLeftOut() throws {
        // (Grace notes are played now; a chord symbol is still left out.)
        let src = try dir.write("chords.abc", "X:1\nT:Chords\nK:C\n\"C\"C D E F\n")
        let lenient = try etude.run(["info", src])
        #expect(lenient.status == 0 && lenient.stdout.contains("chord symbol"), "\(lenient.stdout)\(lenient.stderr)")
        for command in [["info", src, "--strict"], ["events", src, "--json", "--strict"]] {
            let strict = try etude.run(command)
            #expect(strict.status == 1, "\(command)")
            #expect(strict.stdout.isEmpty)
            #expect(strict.stderr.hasPrefix("etude: \(src): ") && strict.stderr.contains("chord symbol") && strict.stderr.hasSuffix(" (strict mode)\n")
                    && strict.stderr.split(separator: "\n").count == 1, "\(strict.stderr)")
        }
    }

    @Test func infoReadsAbcDirectlyAndShowsLessonTags() throws {
        let r = try etude.run(["info", Repo.lessons.appendingPathComponent("level5/fur-elise.abc").path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Title:     Für Elise, WoO 59 (opening theme)"))
        #expect(r.stdout.contains("Composer:  Ludwig van Beethoven"))
        #expect(r.stdout.contains("Level:     5"))
        #expect(r.stdout.contains("\"Right Hand\""))
    }
}
