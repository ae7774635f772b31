import Foundation
import Judge
@testable import Reports
import Testing

/// The front end's files for a practice session: `--report` lines (the runner only emits the
/// pass results; the screen thread writes them here) and `r`'s saved pass.
@Suite("Pass report file")
struct PassReportFileTests {
    @Test func eachReportIsOneLineOfJSONAppendedInOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let appender = try PassReportAppender(path: path)
        var first = PassReport(judgements: [], window: TimingWindow(), sections: [])
        first.offsetMs = 10
        var second = first
        second.offsetMs = 20
        appender.append(first)
        appender.append(second)
        appender.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines == [Substring(first.json()), Substring(second.json())])
    }

    /// F20: the lines already in the file stay (the README says it appends), written through a
    /// symlink, which stays a symlink.
    @Test func aReportFileIsAppendedToThroughItsSymlinkNeverEmptied() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/report.jsonl"
        try Data("{\"earlier\":1}\n".utf8).write(to: URL(fileURLWithPath: path))
        let link = dir + "/link.jsonl"
        #expect(symlink(path, link) == 0)
        let appender = try PassReportAppender(path: link)
        let report = PassReport(judgements: [], window: TimingWindow(), sections: [])
        appender.append(report)
        appender.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"earlier\":1}\n" + report.json() + "\n")
        var st = stat()
        #expect(lstat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
        // An input given is refused before the file is opened (nothing appended, nothing emptied).
        #expect(throws: PracticeFileError.self) { try PassReportAppender(path: link, inputs: [path]) }
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("{\"earlier\":1}\n"))
    }

    @Test func unwritableReportFileIsAOneLineError() {
        #expect(throws: PracticeFileError.self) { try PassReportAppender(path: "/nonexistent-dir/x/report.jsonl") }
    }

    @Test func aSavedPassNeverOverwritesAnother() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("passes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let now = Date()
        let a = PassFile.save([1, 2, 3], in: dir, now: now)
        let b = PassFile.save([4, 5], in: dir, now: now)
        #expect(a.hasPrefix("saved the last pass to ") && b.hasSuffix("-2.mid"))
        #expect(PassFile.save([1], in: "/nonexistent-dir/x", now: now).hasPrefix("could not write "))
        // A dangling symlink with the next name is a name taken: never written through.
        let third = dir + "/etude-pass-" + String(a.split(separator: "etude-pass-").last ?? "").replacingOccurrences(of: ".mid", with: "-3.mid")
        #expect(symlink(dir + "/elsewhere.mid", third) == 0)
        #expect(PassFile.save([6], in: dir, now: now).hasSuffix("-4.mid"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere.mid"))
    }
}
