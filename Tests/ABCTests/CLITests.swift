import Foundation
import Testing
@testable import ABC
import MIDIFile

/// `etude abc` and `.abc` lessons through the real binary (built by `swift build` first).
@Suite("etude abc command")
struct CLITests {
    static let binary = Repo.root.appendingPathComponent(".build/debug/etude")

    static func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-abc-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func convertsALessonToTheCommittedMidi() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "run swift build first")
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("scale.mid")
        let src = Repo.lessons.appendingPathComponent("level2/c-major-scale.abc")
        let r = try Self.run(["abc", src.path, "-o", out.path])
        #expect(r.status == 0, "\(r.err)")
        let committed = try Data(contentsOf: src.deletingPathExtension().appendingPathExtension("mid"))
        #expect(try Data(contentsOf: out) == committed)
    }

    @Test func selectsATuneAndReportsErrorsWithLineAndColumn() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("tunes.abc")
        try Data("X:1\nT:One\nK:C\nC\n\nX:2\nT:Two\nK:C\nD E @ F\n".utf8).write(to: src)
        let ok = try Self.run(["abc", src.path, "--tune", "1", "-o", dir.appendingPathComponent("one.mid").path])
        #expect(ok.status == 0)
        let bad = try Self.run(["abc", src.path, "--tune", "2", "-o", dir.appendingPathComponent("two.mid").path])
        #expect(bad.status == 1)
        #expect(bad.err == "etude: \(src.path):9:5: unexpected character '@' in \"D E @ F\"\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("two.mid").path))
        let missing = try Self.run(["abc", src.path, "--tune", "5"])
        #expect(missing.err.contains("no tune X:5"))
        let list = try Self.run(["abc", src.path, "--list"])
        #expect(list.out == "X:1  One\nX:2  Two\n")
    }

    @Test func strictRefusesWhatTheImportLeftOut() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("grace.abc")
        try Data("X:1\nT:Grace\nK:C\n{g}C D E F\n".utf8).write(to: src)
        let lenient = try Self.run(["info", src.path])
        #expect(lenient.status == 0 && lenient.out.contains("grace"), "\(lenient.out)\(lenient.err)")
        for command in [["info", src.path, "--strict"], ["events", src.path, "--json", "--strict"]] {
            let strict = try Self.run(command)
            #expect(strict.status == 1, "\(command)")
            #expect(strict.out.isEmpty)
            #expect(strict.err.hasPrefix("etude: \(src.path): ") && strict.err.contains("grace") && strict.err.hasSuffix(" (strict mode)\n")
                    && strict.err.split(separator: "\n").count == 1, "\(strict.err)")
        }
    }

    @Test func infoReadsAbcDirectlyAndShowsLessonTags() throws {
        let r = try Self.run(["info", Repo.lessons.appendingPathComponent("level5/fur-elise.abc").path])
        #expect(r.status == 0)
        #expect(r.out.contains("Title:     Für Elise, WoO 59 (opening theme)"))
        #expect(r.out.contains("Composer:  Ludwig van Beethoven"))
        #expect(r.out.contains("Level:     5"))
        #expect(r.out.contains("\"Right Hand\""))
    }
}
