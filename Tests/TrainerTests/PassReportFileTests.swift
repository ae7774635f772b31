import Foundation
import Judge
import Testing
@testable import Trainer

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
    }
}
