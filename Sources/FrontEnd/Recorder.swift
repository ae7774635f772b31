import Clocks
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import Listening
import MIDIFile
import MIDIInput
import Practice
import Reports
import Synth

/// `etude record`: what the learner plays, heard through the synth, written to a .mid until q
/// (or Esc, Ctrl-C), the end of the input, or after a number of bars; a metronome on request.
/// Nothing is written when nothing was played, and the file is written whole or not at all.
public struct Recorder: Sendable {
    public var output: String
    public var input: InputSpec
    public var metronome = false
    public var bpm = 120.0
    /// Stop after this many 4/4 bars at `bpm`.
    public var bars: Int?
    public var program = 0
    public var sound = LiveSound()
    /// `--offset MS`: the input offset instead of the calibrated one.
    public var offsetMs: Double?
    /// Where the calibrated offsets are (nil: none are looked up).
    public var library: Library?

    public init(output: String, input: InputSpec) {
        self.output = output
        self.input = input
    }

    /// What `-o` must never be: the input device or FIFO, the SoundFont played through (named or
    /// found) and the database.
    var protected: [String] {
        (input.filePath.map { [$0] } ?? []) + [sound.soundfont ?? (try? LiveSound.soundFont(nil))].compactMap { $0 } + (library?.databaseFiles ?? [])
    }

    /// Records; returns the exit status (128 + signal when one ended it).
    public func run() throws -> Int32 {
        // Fail before any sound or raw mode when the file cannot be written.
        try OutputFile.check(output, inputs: protected)
        do { try input.check() } catch { throw EtudeFailure(error.message) }
        let keys = LineKeys()
        defer { keys.close() }
        let live = try sound.open()
        defer { live.close() }
        let lessonOutput = try sound.lesson(live)
        let clock = MonotonicClock()
        let take = RecordingTake()
        let messages = MessageQueue()
        // The take starts before the input opens: a note played the moment the port or FIFO
        // connects is in the recording, never before its start.
        let start = clock.now
        take.begin(at: start)
        let hookup: InputHookup
        do {
            hookup = try InputHookup(spec: input, output: live, program: UInt8(clamping: program), clock: clock,
                                     listening: AudioSetup.profile(input: input, library: library) ?? ListeningProfile(),
                                     onNote: { take.add($0) }, onStatus: { messages.post($0) })
        } catch {
            throw EtudeFailure(error.message)
        }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        EchoChoice.apply(to: hookup, explicit: sound.echo, library: library)
        // The notes land on the beats the learner meant: their input's offset comes off.
        take.offsetSeconds = InputTiming.lookUp(hookup: hookup, override: offsetMs, library: library).offsetMs / 1000
        if hookup.usesComputerKeyboard && !keys.isTerminal {
            hookup.stop()
            throw EtudeFailure("nothing to record from: no MIDI input and stdin is not a terminal; pass --input with a MIDI device or FIFO")
        }
        // Which letters are notes, as `etude quiz` says it: a new user has no other way to know.
        if hookup.usesComputerKeyboard { for line in hookup.keyboardHelp { StatusLine.keep(line) } }
        let status = StatusLine()
        let beat = 60 / bpm
        let end = bars.map { start + Double($0) * 4 * beat }
        var nextBeat = start
        var beatIndex = 0
        var exitCode: Int32 = 0
        var clicksOff: [(time: Double, key: UInt8)] = []

        loop: while true {
            let now = clock.now
            if let end, now >= end { break }
            let inputEnded = hookup.ended
            if metronome, now >= nextBeat {
                let key = beatIndex % 4 == 0 ? Metronome.accentKey : Metronome.beatKey
                lessonOutput.send(.noteOn(channel: Metronome.channel, key: key, velocity: beatIndex % 4 == 0 ? 120 : 90))
                clicksOff.append((now + 0.05, key))
                beatIndex += 1
                nextBeat = start + Double(beatIndex) * beat
            }
            for c in clicksOff where c.time <= now { lessonOutput.send(.noteOff(channel: Metronome.channel, key: c.key, velocity: 0)) }
            clicksOff.removeAll { $0.time <= now }
            hookup.releaseDue(now: now)
            for m in messages.take() where m != hookup.failure {
                status.clear()
                Console.error("etude: \(safe(m))")
            }
            if inputEnded && !keys.isTerminal { break }
            if hookup.failure != nil { break }
            var wait = 20.0
            if metronome { wait = min(wait, max(1, (nextBeat - clock.now) * 1000)) }
            guard let pressed = keys.read(timeoutMs: Int32(wait)) else {
                exitCode = keys.signalStatus ?? 0
                break
            }
            for key in pressed {
                switch LineCommand(key) {
                case .quit?: break loop
                case .interrupt?: exitCode = 130; break loop
                case .character(let c)?: if hookup.usesComputerKeyboard { hookup.press(c, at: clock.now) }
                default: break
                }
            }
            let elapsed = clock.now - start
            let barText = bars.map { " bar \(min($0, Int(min(max(0, elapsed / (4 * beat)), 1e9)) + 1))/\($0)" } ?? ""
            status.show("● recording \(StatusLine.clock(elapsed))\(barText)  \(take.noteCount) notes  [q stop]")
        }
        let stopTime = clock.now
        hookup.stop()
        for c in clicksOff { lessonOutput.send(.noteOff(channel: Metronome.channel, key: c.key, velocity: 0)) }
        live.allNotesOff()
        keys.close()
        status.clear()
        LiveSound.flushLog(verbose: sound.verbose)

        // An input that turned out to be no instrument: its line is the error, nothing is written.
        if let failure = hookup.failure { throw EtudeFailure(failure) }
        let recorder = take.recorder(bpm: bpm, onsetOnly: hookup.usesComputerKeyboard)
        let notes = recorder.notes(endTime: stopTime)
        guard !notes.isEmpty else {
            Console.out("nothing was played: \(safe(output)) was not written\n")
            return exitCode
        }
        try OutputFile.write(recorder.bytes(endTime: stopTime), to: output, inputs: protected)
        Console.out("recorded \(notes.count) note\(notes.count == 1 ? "" : "s") (\(StatusLine.clock(stopTime - start))) to \(safe(output))\n")
        return exitCode
    }
}

/// The notes of one recording, filled from the input thread.
final class RecordingTake: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PlayedEvent] = []
    private var start = 0.0
    private var offset = 0.0

    /// The learner's input offset, taken off every time when the file is written.
    var offsetSeconds: Double {
        get { lock.withLock { offset } }
        set { lock.withLock { offset = newValue } }
    }

    func begin(at time: Double) { lock.withLock { start = time } }
    func add(_ e: PlayedEvent) { lock.withLock { events.append(e) } }
    var noteCount: Int { lock.withLock { events.filter { $0.isOn && $0.velocity > 0 }.count } }

    func recorder(bpm: Double, onsetOnly: Bool) -> PerformanceRecorder {
        lock.withLock {
            var r = PerformanceRecorder(startTime: start, bpm: bpm, onsetOnly: onsetOnly)
            for var e in events {
                e.time -= offset
                r.record(e)
            }
            return r
        }
    }
}

/// Status lines from the input thread, shown by the main loop.
final class MessageQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func post(_ s: String) { lock.withLock { items.append(s) } }
    func take() -> [String] { lock.withLock { let i = items; items = []; return i } }
}
