import Clocks
import ArgumentParser
import Foundation
import Judge
import Lesson
import MIDIFile
import MIDIInput
import Practice
import Synth

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what you play to a .mid file, hearing it through the synth.",
        discussion: """
        Records until q (or Esc, Ctrl-C), until the input ends (a FIFO closed by its writer, the
        end of a file), or after --bars N bars at --bpm. Without a MIDI keyboard the computer
        keyboard plays (a w s e d f t g y h u j k …, z/x octave down/up).
        Example: etude record -o mine.mid --input midi --metronome --bpm 90 --bars 8
        """
    )

    @Option(name: [.short, .customLong("output")], help: "The .mid file to write.") var output: String
    @Option(help: "Where notes come from: keys, midi, midi:NAME, midi:CLIENT:PORT, or a device/FIFO/file path.") var input: String = "midi"
    @Flag(help: "Click the beat while recording.") var metronome = false
    @Option(help: "Tempo of the metronome and of the file written.") var bpm: Double = 120
    @Option(help: "Stop after this many 4/4 bars at --bpm.") var bars: Int?
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss).") var audioDriver: String?
    @Option(help: "General MIDI program you hear while playing (0 = piano).") var program: Int = 0
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false

    func validate() throws {
        guard (20...400).contains(bpm) else { throw ValidationError("--bpm must be 20…400") }
        if let bars, bars < 1 { throw ValidationError("--bars must be at least 1") }
        guard (0...127).contains(program) else { throw ValidationError("--program must be 0…127") }
        guard !output.isEmpty else { throw ValidationError("-o needs a file name, e.g. -o mine.mid") }
    }

    func run() throws {
        // Fail before any sound or raw mode when the file cannot be written.
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw EtudeFailure("cannot write \(TextSafe.name(output)); check the folder exists and is writable")
        }
        let signals = ExitSignals()
        let live = try LiveSound.start(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose)
        let clock = MonotonicClock()
        let take = RecordingTake()
        let messages = MessageQueue()
        // The take starts before the input opens: a note played the moment the port or FIFO
        // connects is in the recording, never before its start.
        let start = clock.now
        take.begin(at: start)
        let hookup: InputHookup
        do {
            hookup = try InputHookup(spec: InputSpec(input), output: live, program: UInt8(program), clock: clock,
                                     onNote: { take.add($0) }, onStatus: { messages.post($0) })
        } catch {
            live.close()
            try? FileManager.default.removeItem(atPath: output)
            throw EtudeFailure(error.message)
        }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        let keys = isatty(STDIN_FILENO) != 0 ? RawKeys() : nil
        if hookup.usesComputerKeyboard && keys == nil {
            hookup.stop()
            live.close()
            try? FileManager.default.removeItem(atPath: output)
            throw EtudeFailure("nothing to record from: no MIDI input and stdin is not a terminal; pass --input with a MIDI device, FIFO or file")
        }
        let tty = isatty(STDOUT_FILENO) != 0
        let beat = 60 / bpm
        let end = bars.map { start + Double($0 * 4) * beat }
        var nextBeat = start
        var beatIndex = 0
        var exitCode: Int32 = 0
        var lastStatus = ""
        var clicksOff: [(time: Double, key: UInt8)] = []

        loop: while true {
            let now = clock.now
            if let sig = signals.received { exitCode = 128 + sig; break }
            if let end, now >= end { break }
            let inputEnded = hookup.ended
            if metronome, now >= nextBeat {
                let key = beatIndex % 4 == 0 ? Metronome.accentKey : Metronome.beatKey
                live.send(.noteOn(channel: Metronome.channel, key: key, velocity: beatIndex % 4 == 0 ? 120 : 90))
                clicksOff.append((now + 0.05, key))
                beatIndex += 1
                nextBeat = start + Double(beatIndex) * beat
            }
            for c in clicksOff where c.time <= now { live.send(.noteOff(channel: Metronome.channel, key: c.key, velocity: 0)) }
            clicksOff.removeAll { $0.time <= now }
            hookup.releaseDue(now: now)
            for m in messages.take() {
                if tty { Console.out("\r\u{1B}[K") }
                Console.error("etude: \(m)")
                lastStatus = ""
            }
            if inputEnded && keys == nil { break }
            var wait = 20.0
            if metronome { wait = min(wait, max(1, (nextBeat - clock.now) * 1000)) }
            if let keys {
                for key in keys.read(timeoutMs: Int32(wait)) {
                    switch key {
                    case .quit: break loop
                    case .interrupt: exitCode = 128 + SIGINT; break loop
                    case .character(let c): if hookup.usesComputerKeyboard { hookup.press(c, at: clock.now) }
                    }
                }
            } else {
                usleep(useconds_t(wait * 1000))
            }
            if tty {
                let elapsed = clock.now - start
                let barText = bars.map { " bar \(min($0, Int(elapsed / (4 * beat)) + 1))/\($0)" } ?? ""
                let line = "● recording \(StatusLine.clock(elapsed))\(barText)  \(take.noteCount) notes  [q stop]"
                if line != lastStatus { Console.out("\r\(line)\u{1B}[K"); lastStatus = line }
            }
        }
        let stopTime = clock.now
        hookup.stop()
        for c in clicksOff { live.send(.noteOff(channel: Metronome.channel, key: c.key, velocity: 0)) }
        live.allNotesOff()
        keys?.restore()
        if tty && !lastStatus.isEmpty { Console.out("\r\u{1B}[K") }
        live.close()
        SoundSetup.flushLog(verbose: verbose)

        let recorder = take.recorder(bpm: bpm, onsetOnly: hookup.usesComputerKeyboard)
        let notes = recorder.notes(endTime: stopTime)
        do {
            try Data(recorder.bytes(endTime: stopTime)).write(to: URL(fileURLWithPath: output))
        } catch {
            throw EtudeFailure("cannot write \(TextSafe.name(output)): \(error.localizedDescription)")
        }
        Console.out("recorded \(notes.count) note\(notes.count == 1 ? "" : "s") (\(StatusLine.clock(stopTime - start))) to \(TextSafe.name(output))\n")
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}

/// The notes of one recording, filled from the input thread.
final class RecordingTake: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PlayedEvent] = []
    private var start = 0.0

    func begin(at time: Double) { lock.withLock { start = time } }
    func add(_ e: PlayedEvent) { lock.withLock { events.append(e) } }
    var noteCount: Int { lock.withLock { events.filter { $0.isOn && $0.velocity > 0 }.count } }

    func recorder(bpm: Double, onsetOnly: Bool) -> PerformanceRecorder {
        lock.withLock {
            var r = PerformanceRecorder(startTime: start, bpm: bpm, onsetOnly: onsetOnly)
            for e in events { r.record(e) }
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

/// The live synth for commands that only need to sound notes (record, quiz): one-line errors,
/// and a warning (not a failure) when no audio device is available.
enum LiveSound {
    static func start(soundfont: String?, audioDriver: String?, verbose: Bool) throws -> FluidSynthLive {
        let font = try SoundSetup.soundFont(soundfont)
        var options = FluidSynthLive.Options()
        if let audioDriver { options.drivers = [audioDriver] }
        do {
            let live = try FluidSynthLive(soundFont: font, options: options, onSlowLoad: SoundSetup.slowLoadReporter(font))
            SoundSetup.endProgressLine()
            if let warning = live.warning { Console.error("etude: \(warning)") }
            SoundSetup.flushLog(verbose: verbose)
            return live
        } catch {
            SoundSetup.endProgressLine()
            SoundSetup.flushLog(verbose: verbose)
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
    }
}

/// Keys for record and quiz, decoded from `RawStdin`: characters (computer-keyboard piano),
/// q/Esc to stop, Ctrl-C.
final class RawKeys {
    enum Key: Equatable {
        case character(Character)
        case quit
        case interrupt
    }

    private let stdin: RawStdin

    /// nil when stdin is not a terminal.
    init?() {
        guard let stdin = RawStdin() else { return nil }
        self.stdin = stdin
    }

    func restore() { stdin.restore() }

    /// Waits up to `timeoutMs` for keys. Escape sequences (arrows…) are skipped; a lone Esc quits.
    func read(timeoutMs: Int32) -> [Key] {
        guard let buf = stdin.read(timeoutMs: timeoutMs) else { return [.quit] }  // terminal hung up
        let n = buf.count
        var keys: [Key] = []
        var i = 0
        while i < n {
            let b = buf[i]
            if b == 0x1B {
                if i + 1 < n, buf[i + 1] == UInt8(ascii: "[") || buf[i + 1] == UInt8(ascii: "O") {
                    i += 2
                    while i < n, !(0x40...0x7E).contains(buf[i]) { i += 1 }
                    i += 1
                    continue
                }
                keys.append(.quit)
            } else if b == 0x03 {
                keys.append(.interrupt)
            } else if b == UInt8(ascii: "q") || b == UInt8(ascii: "Q") || b == 0x04 {
                keys.append(.quit)
            } else if b >= 0x20 && b < 0x7F {
                keys.append(.character(Character(UnicodeScalar(b))))
            }
            i += 1
        }
        return keys
    }
}
