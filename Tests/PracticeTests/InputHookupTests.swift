import Foundation
import Judge
import MIDIFile
import MIDIInput
import Synth
import Testing
@testable import Practice

/// Collects what the hookup hands on, for tests.
final class PlayedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PlayedEvent] = []
    private var lines: [String] = []
    func add(_ e: PlayedEvent) { lock.withLock { items.append(e) } }
    func status(_ s: String) { lock.withLock { lines.append(s) } }
    var events: [PlayedEvent] { lock.withLock { items } }
    var statuses: [String] { lock.withLock { lines } }
    func wait(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { usleep(10_000) }
        return condition()
    }
}

@Suite("Input hookup")
struct InputHookupTests {
    @Test func fifoNotesSoundOnTheLearnersChannelAndReachTheCoachThenTheWriterCloses() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("in.fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        let output = RecordingOutput()
        let box = PlayedBox()
        let hookup = try InputHookup(spec: .byteStream(path: path), output: output, program: 4,
                                     onNote: { box.add($0) }, onStatus: { box.status($0) })
        #expect(!hookup.usesComputerKeyboard)
        #expect(hookup.notice == nil)
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        var bytes: [UInt8] = [0x90, 60, 100, 0xFE, 64, 90, 0x80, 60, 0, 0x90, 64, 0]
        _ = write(fd, &bytes, bytes.count)
        #expect(box.wait { box.events.count == 4 })
        close(fd)
        #expect(box.wait { hookup.ended })
        hookup.stop()
        #expect(box.events.map(\.pitch) == [60, 64, 60, 64])
        #expect(box.events.map(\.isOn) == [true, true, false, false])
        let m = output.messages
        #expect(m.first == .programChange(channel: 15, program: 4))
        #expect(m.contains(.noteOn(channel: 15, key: 60, velocity: 100)))
        #expect(m.contains(.noteOn(channel: 15, key: 64, velocity: 90)))
        #expect(m.contains(.noteOff(channel: 15, key: 64, velocity: 0)))
        #expect(box.statuses.contains { $0.contains("closed the FIFO") })
    }

    /// The input starts reading while the hookup is still being made: notes already waiting
    /// (here bytes written into a FIFO before it opens, read at once) are delivered, in
    /// order, not dropped. (A regular file is no longer accepted as input.)
    @Test func notesArrivingAsTheInputOpensAreKept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes: [UInt8] = []
        for p in UInt8(60)..<UInt8(72) { bytes += [0x90, p, 90, 0x80, p, 0] }
        for i in 0..<20 {
            let path = dir.appendingPathComponent("take-\(i).fifo").path
            #expect(mkfifo(path, 0o600) == 0)
            // O_RDWR never blocks on a FIFO: the bytes wait in it before the input opens.
            let fd = open(path, O_RDWR | O_CLOEXEC)
            #expect(fd >= 0)
            #expect(write(fd, bytes, bytes.count) == bytes.count)
            defer { close(fd) }
            let box = PlayedBox()
            let hookup = try InputHookup(spec: .byteStream(path: path), output: RecordingOutput(), onNote: { box.add($0) },
                                         onStatus: { box.status($0) })
            #expect(box.wait { box.events.count == 24 })
            hookup.stop()
            #expect(box.events.count == 24)
            #expect(box.events.filter(\.isOn).map(\.pitch) == Array(60..<72))
        }
    }

    @Test func computerKeyboardNotesAreOnsetsWithFixedLengthReleases() throws {
        let output = RecordingOutput()
        let box = PlayedBox()
        let hookup = try InputHookup(spec: .computerKeyboard, output: output, noteLength: 0.4, onNote: { box.add($0) })
        #expect(hookup.usesComputerKeyboard)
        #expect(hookup.press("a", at: 10))
        #expect(hookup.press("e", at: 10.1))
        #expect(!hookup.press("!", at: 10.2))
        hookup.releaseDue(now: 10.45)
        #expect(box.events == [PlayedEvent(pitch: 60, velocity: 90, time: 10, isOn: true),
                               PlayedEvent(pitch: 63, velocity: 90, time: 10.1, isOn: true),
                               PlayedEvent(pitch: 60, velocity: 0, time: 10.4, isOn: false)])
        hookup.stop()
        #expect(output.messages.contains(.noteOff(channel: 15, key: 63, velocity: 0)))
    }

    @Test func missingInputFileIsAOneLineError() {
        #expect(throws: InputError.self) {
            try InputHookup(spec: .byteStream(path: "/nonexistent/midi-in"), output: nil, onNote: { _ in })
        }
    }
}
