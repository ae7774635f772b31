import Foundation
import GRDB
import MIDIFile
import Testing
import TestSupport
@testable import Store

/// Issue 16: one slow file stalled `library add` and an interrupted scan committed nothing, so
/// every later command scanned again. A scan now gives up on a file past its time budget (one
/// line, remembered until the file changes) and commits in batches.
@Suite struct ScanLimitsTests {
    /// A format whose reader takes as long as the file says ("sleep 3" sleeps three seconds),
    /// then reads the MIDI bytes after the first line.
    static let slowFormat = LessonFormat(name: "slow", extensions: ["slow"]) { bytes in
        let text = String(decoding: bytes.prefix(while: { $0 != 0x0A }), as: UTF8.self)
        if let seconds = Double(text.replacingOccurrences(of: "sleep ", with: "")) { Thread.sleep(forTimeInterval: seconds) }
        return try MIDIReader.read(Array(bytes.drop(while: { $0 != 0x0A }).dropFirst()), strict: false).file
    }

    static func writeSlow(_ path: String, seconds: Double, title: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(Array("sleep \(seconds)\n".utf8) + LessonMaker.bytes(title: title, level: 1)).write(to: URL(fileURLWithPath: path))
    }

    @Test func aFileSlowerThanTheBudgetIsSkippedWithOneLineAndNotReadAgain() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        try Self.writeSlow(lib + "/a-quick.slow", seconds: 0, title: "Quick one")
        try Self.writeSlow(lib + "/b-stuck.slow", seconds: 30, title: "Stuck")
        try Self.writeSlow(lib + "/c-quick.slow", seconds: 0, title: "Quick two")
        let s = try Store.open(path: dir.file("etude.sqlite"), formats: [.midi, Self.slowFormat])
        let limits = ScanLimits(secondsPerFile: 0.5)
        let r = try s.addFolder(lib, limits: limits)
        #expect(r.added == 2)
        #expect(r.slow.map(\.path) == [lib + "/b-stuck.slow"])
        #expect(r.failures.map(\.path) == [lib + "/b-stuck.slow"])
        let message = try #require(r.slow.first?.message)
        #expect(message.contains("took longer than 0.5 s to read, skipped"))
        #expect(!message.contains("\n"))
        #expect(try s.lessons().map(\.lesson.title).sorted() == ["Quick one", "Quick two"])
        // Remembered: the next scan reports it without reading it (no new slow read).
        let again = try s.rescan(builtinDirectory: nil, limits: limits)
        #expect(again.slow.isEmpty)
        #expect(again.failures.map(\.path) == [lib + "/b-stuck.slow"] && again.unchanged == 2)
    }

    /// What was read is in the database before the scan ends: another connection (another
    /// Etude) sees the first batches while a later file is still being read.
    @Test func aScanCommitsInBatchesSoAnInterruptedOneKeepsWhatItDid() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        for i in 0..<25 { try LessonMaker.write(lib + "/l\(String(format: "%02d", i)).mid", title: "Lesson \(i)", level: 1) }
        // Sorted after the .mid files: read last, and held until the test has looked.
        try Self.writeSlow(lib + "/zz-last.slow", seconds: 0, title: "Last")
        let gate = DispatchSemaphore(value: 0)
        let held = LessonFormat(name: "held", extensions: ["slow"]) { bytes in
            gate.wait()
            return try ScanLimitsTests.slowFormat.parse(bytes)
        }
        let path = dir.file("etude.sqlite")
        let s = try Store.open(path: path, formats: [.midi, held])
        let done = DispatchSemaphore(value: 0)
        let box = ReportBox()
        Thread.detachNewThread {
            box.set(Result { try s.addFolder(lib, limits: ScanLimits(secondsPerFile: 60, batchFiles: 10)) })
            done.signal()
        }
        let other = try Store.open(path: path)
        var seen = 0
        _ = eventually(30) {
            seen = (try? other.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lessonFile") ?? 0 }) ?? 0
            return seen >= 20
        }
        #expect(seen >= 20 && seen < 26, "committed while the scan still reads: \(seen)")
        gate.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(try box.get()?.get().added == 26)
    }
}

final class ReportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<ScanReport, Error>?
    func set(_ r: Result<ScanReport, Error>) { lock.withLock { value = r } }
    func get() -> Result<ScanReport, Error>? { lock.withLock { value } }
}
