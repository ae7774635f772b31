import Clocks
import Foundation
import Judge
import MIDIFile
import MIDIInput
import Synth
import Testing
@testable import Practice

/// The hookup and `OwnSoundTap` hold no lock: what crosses threads is atomic. These drive them
/// from several threads at once and check nothing is lost, doubled or sounded wrongly.
@Suite("Input hookup without locks")
struct InputHookupThreadTests {
    /// A FIFO in a fresh folder, opened read-write (never blocks), removed after `body`.
    static func withFIFO(_ body: (_ path: String, _ fd: Int32) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("in.fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        try body(path, fd)
    }

    /// Counts from any thread (the test's own bookkeeping).
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.withLock { n += 1 } }
        var value: Int { lock.withLock { n } }
    }

    /// `--gestures` re-routed (as a routine does between entries) and the pedal hook replaced,
    /// over and over from another thread while the input plays gesture keys, notes and the
    /// pedal: every gesture reaches a handler and is never a note, every note is one.
    @Test func gesturesAndPedalReroutedWhileTheInputPlaysLoseNothing() throws {
        try Self.withFIFO { path, fd in
            let output = RecordingOutput()
            let box = PlayedBox()
            let gestures = Count()
            let pedals = Count()
            let hookup = try InputHookup(spec: .byteStream(path: path), output: output, onNote: { box.add($0) })
            hookup.gestures([21]) { _ in gestures.add() }
            hookup.onPedal = { _, _ in pedals.add() }
            let rounds = 150
            let done = DispatchGroup()
            let stop = Count()
            DispatchQueue.global().async(group: done) {
                var i = 0
                while stop.value == 0 {
                    i += 1
                    if i % 2 == 0 {
                        hookup.gestures([21]) { _ in gestures.add() }
                    } else {
                        hookup.onPedal = { _, _ in pedals.add() }
                    }
                }
            }
            for _ in 0..<rounds {
                let bytes: [UInt8] = [0x90, 21, 80, 0x80, 21, 0, 0x90, 60, 80, 0x80, 60, 0, 0xB0, 64, 127, 0xB0, 64, 0]
                #expect(write(fd, bytes, bytes.count) == bytes.count)
                usleep(4_000)  // a keyboard's pace: the input refuses a faster stream
            }
            #expect(box.wait { box.events.count == 2 * rounds && pedals.value == 2 * rounds })
            stop.add()
            done.wait()
            hookup.stop()
            #expect(gestures.value == rounds)
            #expect(pedals.value == 2 * rounds)
            #expect(box.events.count == 2 * rounds)
            #expect(box.events.allSatisfy { $0.pitch == 60 })
            #expect(!output.messages.contains { if case .noteOn(_, 21, _) = $0 { return true } else { return false } })
            #expect(output.messages.filter { $0 == .noteOn(channel: 15, key: 60, velocity: 80) }.count == rounds)
        }
    }

    /// Keys left down in both halves of the keyboard (the two atomic words) are all released by
    /// `stop()`, in order, then the pedal.
    @Test func stopReleasesEveryKeyStillDownInOrder() throws {
        try Self.withFIFO { path, fd in
            let output = RecordingOutput()
            let box = PlayedBox()
            let hookup = try InputHookup(spec: .byteStream(path: path), output: output, onNote: { box.add($0) })
            let bytes: [UInt8] = [0x90, 100, 70, 0x90, 30, 70, 0x90, 64, 70, 0x90, 63, 70, 0x90, 127, 70, 0x90, 0, 70, 0x80, 64, 0]
            #expect(write(fd, bytes, bytes.count) == bytes.count)
            #expect(box.wait { box.events.count == 7 })
            hookup.stop()
            let tail = Array(output.messages.suffix(6))
            #expect(tail == [0, 30, 63, 100, 127].map { MIDIEvent.Kind.noteOff(channel: 15, key: $0, velocity: 0) }
                + [.controlChange(channel: 15, controller: 64, value: 0)])
            hookup.stop()  // a second stop releases nothing more
            #expect(output.messages.suffix(2) == [.controlChange(channel: 15, controller: 64, value: 0),
                                                  .controlChange(channel: 15, controller: 64, value: 0)])
        }
    }

    /// A stream that is not MIDI: the hookup reads as ended with the reason, from another thread.
    @Test func aStreamThatIsNotMIDIEndsWithItsReason() throws {
        try Self.withFIFO { path, fd in
            let box = PlayedBox()
            let hookup = try InputHookup(spec: .byteStream(path: path), output: RecordingOutput(), onNote: { box.add($0) },
                                         onStatus: { box.status($0) })
            let zeros = [UInt8](repeating: 0, count: ByteStreamInput.maxBytesWithoutStatus + 16)
            #expect(write(fd, zeros, zeros.count) == zeros.count)
            #expect(box.wait { hookup.ended })
            #expect(hookup.failure?.contains("is not MIDI") == true)
            #expect(box.statuses.contains { $0.contains("is not MIDI") })
            hookup.stop()
        }
    }

    /// The computer keyboard's octave, changed by `press` on the front end's thread, is what
    /// `computerKeys(for:)` and the help lines name, read from another thread.
    @Test func theComputerKeyboardsOctaveIsReadFromAnyThread() throws {
        let hookup = try InputHookup(spec: .computerKeyboard, output: RecordingOutput(), onNote: { _ in })
        #expect(hookup.computerKeys(for: 64) == "d")
        #expect(hookup.press("z", at: 1))
        final class Seen: @unchecked Sendable { var keys = ""; var help: [String] = [] }  // written, then read after `wait`
        let seen = Seen()
        let read = DispatchGroup()
        let reader = Thread {
            seen.keys = hookup.computerKeys(for: 52)
            seen.help = hookup.keyboardHelp
            read.leave()
        }
        read.enter()
        reader.start()
        read.wait()
        #expect(seen.keys == "d")
        #expect(seen.help.last?.contains("now octave 3") == true)
        hookup.stop()
    }

    /// What Etude sounds, stored per key from two threads while a third reads: every key read
    /// carries a start that was stored for it, and afterwards each key's own start.
    @Test func ownSoundTapKeepsEachKeysStartAcrossThreads() {
        let clock = VirtualClock(now: 10)
        let tap = OwnSoundTap(RecordingOutput(), clock: clock)
        let done = DispatchGroup()
        for keys in [Array(UInt8(0)..<UInt8(64)), Array(UInt8(64)..<UInt8(128))] {
            DispatchQueue.global().async(group: done) {
                for _ in 0..<200 { for k in keys { tap.send(.noteOn(channel: 0, key: k, velocity: 64)) } }
            }
        }
        var bad = 0
        for _ in 0..<200 { bad += tap.began(near: 10.1).values.filter { abs($0 - 0.1) > 1e-9 }.count }
        done.wait()
        #expect(bad == 0)
        tap.send(.noteOn(channel: 0, key: 5, velocity: 0))  // a note-on at velocity 0 is a release
        let all = tap.began(near: 10.1)
        #expect(all.count == 128)
        #expect(all.values.allSatisfy { abs($0 - 0.1) < 1e-9 })
        #expect(tap.began(near: 10.5).isEmpty)  // 0.5 s later: no longer Etude's new note
    }
}
