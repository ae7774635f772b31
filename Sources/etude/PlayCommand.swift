import Clocks
import ArgumentParser
import Dispatch
import Foundation
import Lesson
import MIDIFile
import Synth

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a MIDI file live through FluidSynth.",
        discussion: """
        On a terminal the practice screen shows the falling notes (its keys: ? for help);
        --no-screen keeps one status line (keys: space pause/resume, ←/→ seek 5 s, q quit).
        Without a terminal on stdin the file plays to the end. Without any audio device Etude warns once and continues silently.
        Example: etude play song.mid --audio-driver alsa
        """
    )

    @Argument(help: "The lesson (.mid or .abc).") var file: String
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss) instead of trying pipewire, pulseaudio, alsa.") var audioDriver: String?
    @Option(help: "Frames per audio period.") var periodSize: Int = 128
    @Option(help: "Number of audio periods.") var periods: Int = 3
    @Option(help: "Output sample rate in Hz (default: the sound server's own rate, else 48000).") var rate: Int?
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false
    @Flag(name: .customLong("no-screen"), help: "The one-line status instead of the practice screen (automatic when not on a terminal).") var noScreen = false

    func validate() throws {
        guard (16...8192).contains(periodSize) else { throw ValidationError("--period-size must be 16…8192") }
        guard (2...64).contains(periods) else { throw ValidationError("--periods must be 2…64") }
        if let rate, !(8000...192_000).contains(rate) { throw ValidationError("--rate must be 8000…192000") }
    }

    func run() throws {
        if !noScreen && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            let loaded = try LoadedLesson.load(file, split: nil)
            let sound = LiveSoundOptions(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose, periodSize: periodSize, periods: periods, rate: rate)
            let status = try PracticeScreenRun.run(loaded, plan: PracticePlan(), sound: sound, display: PracticeScreenRun.Display(),
                                                   history: nil, endWhenFinished: true)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let midi = try LessonFile.readLesson(file)
        let signals = ExitSignals()
        let live = try LiveSoundOptions(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose,
                                        periodSize: periodSize, periods: periods, rate: rate).open()

        let dispatcher = EventDispatcher(source: ScheduleCursor(MessageSchedule(file: midi.file)), output: live)
        let keys = PlayKeys()
        let status = isatty(STDOUT_FILENO) != 0 ? StatusLine() : nil
        var exitCode: Int32 = 0

        dispatcher.start()
        loop: while true {
            if let sig = signals.received {
                exitCode = 128 + sig
                break
            }
            let pressed = keys?.read(timeoutMs: 50) ?? { usleep(50_000); return [] }()
            for key in pressed {
                switch key {
                case .quit: break loop
                case .interrupt:
                    exitCode = 128 + SIGINT
                    break loop
                case .togglePause: dispatcher.togglePause()
                case .seekBack: dispatcher.seek(by: -5)
                case .seekForward: dispatcher.seek(by: 5)
                }
            }
            status?.show(position: dispatcher.position, total: dispatcher.duration, bpm: dispatcher.bpm, paused: dispatcher.isPaused)
            if dispatcher.isFinished { break }
        }
        // Order matters: silence first, then the terminal, then let releases ring out briefly.
        dispatcher.stop()
        keys?.restore()
        status?.finish()
        if exitCode == 0 {
            let until = MonotonicClock.seconds() + 2
            while live.driver != nil && live.engine.activeVoices > 0 && MonotonicClock.seconds() < until && signals.received == nil {
                usleep(20_000)
            }
        }
        live.close()
        SoundSetup.flushLog(verbose: verbose)
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}

/// The one-line status: position / total, BPM, paused marker.
final class StatusLine {
    private var last = ""

    func show(position: Double, total: Double, bpm: Double, paused: Bool) {
        let line = "\(Self.clock(position)) / \(Self.clock(total))  ♩=\(Int(bpm.rounded()))  \(paused ? "paused" : "playing")  [space pause, ←/→ 5 s, q quit]"
        guard line != last else { return }
        last = line
        Console.out("\r\(line)\u{1B}[K")
    }

    func finish() {
        if !last.isEmpty { Console.out("\n") }
    }

    static func clock(_ s: Double) -> String {
        let t = Int(max(0, s))
        return "\(t / 60):\(String(format: "%02d", t % 60))"
    }
}

/// SIGINT/SIGTERM/SIGHUP turned into a flag the play loop checks, so cleanup always runs
/// (all-notes-off, terminal restored) instead of the process dying mid-note.
final class ExitSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var signal: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        // A parent may have started us with these blocked (Foundation's Process does): unblock.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.withLock { if self.signal == nil { self.signal = sig } }
            }
            source.resume()
            sources.append(source)
        }
    }

    var received: Int32? { lock.withLock { signal } }
}
