import Clocks
import Foundation
import Testing
@testable import MIDIInput

/// Collects what a source delivers on its reader thread and lets the test wait for the end.
final class EventBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [InputEvent] = []

    func add(_ e: InputEvent) {
        condition.lock()
        events.append(e)
        condition.broadcast()
        condition.unlock()
    }

    var all: [InputEvent] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    var notes: [PlayedNote] {
        all.compactMap { if case .note(let n) = $0 { return n } else { return nil } }
    }

    var endMessage: String? {
        for e in all { if case .ended(let m) = e { return m } }
        return nil
    }

    var failureMessage: String? {
        for e in all { if case .failed(let m) = e { return m } }
        return nil
    }

    /// Waits for `.ended` or `.failed` (a generous guard against hanging, not a timing assertion).
    func waitForEnd(guardSeconds: Double = 20) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(guardSeconds)
        while !events.contains(where: {
            switch $0 {
            case .ended, .failed: return true
            default: return false
            }
        }) {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    func waitForNotes(_ n: Int, guardSeconds: Double = 20) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(guardSeconds)
        while events.filter({ if case .note = $0 { return true } else { return false } }).count < n {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}

/// A clock the test sets, so timestamps are exact.
final class FixedClock: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double
    init(_ v: Double) { value = v }
    func set(_ v: Double) { lock.lock(); value = v; lock.unlock() }
    var now: Double { lock.lock(); defer { lock.unlock() }; return value }
    func sleep(until time: Double) { set(max(now, time)) }
}

func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-input-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

@Suite struct ByteStreamInputTests {
    @Test func fifoEndToEndDeliversNotesAndEndsWhenTheWriterCloses() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("keys.fifo").path
        #expect(mkfifo(path, 0o600) == 0)

        let clock = FixedClock(10.0)
        let input = ByteStreamInput(path: path, clock: clock)
        let box = EventBox()
        try input.start { box.add($0) }

        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        // First chunk ends in the middle of a message; a clock byte sits inside it.
        let first: [UInt8] = [0xFE, 0x90, 60, 100, 64, 0xF8]
        #expect(first.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == first.count)
        #expect(box.waitForNotes(1))
        clock.set(10.5)
        let second: [UInt8] = [90, 0xF0, 1, 2, 3, 0xF7, 0x80, 60, 0, 0x90, 64, 0, 0xB0, 64, 127]
        #expect(second.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == second.count)
        close(fd)

        #expect(box.waitForEnd())
        input.stop()
        let notes = box.notes
        #expect(notes == [
            PlayedNote(kind: .on, pitch: 60, velocity: 100, channel: 0, time: 10.0),
            PlayedNote(kind: .on, pitch: 64, velocity: 90, channel: 0, time: 10.5),
            PlayedNote(kind: .off, pitch: 60, velocity: 0, channel: 0, time: 10.5),
            PlayedNote(kind: .off, pitch: 64, velocity: 0, channel: 0, time: 10.5),
        ])
        #expect(box.all.contains(.control(.controlChange(channel: 0, controller: 64, value: 127), time: 10.5)))
        let message = try #require(box.endMessage)
        #expect(message.contains("closed"))
        #expect(!message.contains("\n"))
        // Nothing after the end.
        if case .ended = box.all.last {} else { Issue.record("events after .ended: \(box.all)") }
    }

    @Test func stoppingAnIdleFifoReturnsWithoutAWriter() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("idle.fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        let input = ByteStreamInput(path: path)
        let box = EventBox()
        try input.start { box.add($0) }
        input.stop()
        input.stop()  // twice is harmless
        #expect(box.all.isEmpty)
    }

    /// A regular file is no instrument (issue 16: `quiz --input /etc/passwd` "ended" at once
    /// and exited 0): refused before any thread starts, one line naming it.
    @Test func aRegularFileIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("capture.bin")
        try Data([0x90, 60, 100, 62, 100, 0x80, 60, 0, 62, 0]).write(to: url)
        let input = ByteStreamInput(path: url.path, clock: FixedClock(3))
        do {
            try input.start { _ in }
            Issue.record("a regular file was accepted as MIDI input")
        } catch {
            #expect(error.message.contains("is a regular file, not an instrument"))
            #expect(error.message.contains(url.path))
            #expect(!error.message.contains("\n"))
            #expect(!error.fallBackToComputerKeyboard)
        }
    }

    /// /dev/zero never ends and holds no status byte: it stops with `.failed`, no note, instead
    /// of being read at full speed forever.
    @Test func aStreamWithoutStatusBytesStopsAsNotMIDI() throws {
        let input = ByteStreamInput(path: "/dev/zero", clock: FixedClock(0))
        let box = EventBox()
        try input.start { box.add($0) }
        #expect(box.waitForEnd())
        input.stop()
        #expect(box.notes.isEmpty)
        #expect(box.failureMessage?.contains("/dev/zero is not MIDI (no status byte in its first 1024 bytes)") == true)
    }

    /// Random bytes hold plenty of status bytes but come faster than any keyboard: they stop
    /// with `.failed` before a single note of them is delivered.
    @Test func aStreamFasterThanAnyKeyboardStopsBeforeDeliveringANote() throws {
        let input = ByteStreamInput(path: "/dev/urandom", clock: FixedClock(0))
        let box = EventBox()
        try input.start { box.add($0) }
        #expect(box.waitForEnd())
        input.stop()
        #expect(box.notes.isEmpty)
        #expect(box.failureMessage?.contains("faster than any keyboard") == true)
        #expect(box.failureMessage?.contains("\n") == false)
    }

    /// A control byte in the path never reaches the message (it goes to the terminal).
    @Test func aPathWithAnEscapeIsShownWithoutIt() {
        let input = ByteStreamInput(path: "/nonexistent/e\u{1B}]0;x\u{07}")
        do {
            try input.start { _ in }
            Issue.record("a missing path was accepted")
        } catch {
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test func aMissingPathIsAOneLineErrorNamingIt() {
        let input = ByteStreamInput(path: "/nonexistent/midi9")
        #expect(throws: InputError.self) { try input.start { _ in } }
        do {
            try input.start { _ in }
        } catch {
            #expect(error.message.contains("/nonexistent/midi9"))
            #expect(!error.message.contains("\n"))
            #expect(!error.fallBackToComputerKeyboard)
        }
    }

    @Test func aDirectoryIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = ByteStreamInput(path: dir.path)
        #expect(throws: InputError.self) { try input.start { _ in } }
    }
}
