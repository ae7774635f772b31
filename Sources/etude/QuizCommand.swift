import Clocks
import ArgumentParser
import Foundation
import Judge
import MIDIFile
import MIDIInput
import Practice
import Store
import Synth

extension QuizKind: ExpressibleByArgument {}

struct QuizCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quiz",
        abstract: "Test yourself: play the note, interval or chord Etude asks for.",
        discussion: """
        notes: Etude names a note, play it. intervals: Etude plays and names an interval, play
        both notes. chords: Etude plays and names a chord, play its notes (any octave, any
        voicing). A wrong answer is shown with the right one; the percentage at the end is kept
        in the practice history (etude stats). q or Esc stops early.
        Example: etude quiz intervals --questions 5 --range C3-C5 --input midi
        """
    )

    @Argument(help: "notes, intervals or chords.") var kind: QuizKind
    @Option(help: "How many questions.") var questions: Int = 10
    @Option(help: "Pitch range of the questions, e.g. C3-C6.") var range: String = "C3-C6"
    @Option(help: "Where notes come from: keys, midi, midi:NAME, midi:CLIENT:PORT, or a device/FIFO/file path.") var input: String = "midi"
    @Option(help: "Seed for the questions (the same seed asks the same questions).") var seed: UInt64?
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss).") var audioDriver: String?
    @Flag(help: "Show FluidSynth's own log.") var verbose = false
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard (1...500).contains(questions) else { throw ValidationError("--questions must be 1…500") }
    }

    func run() throws {
        var quiz: Quiz
        do {
            let pitchRange = try PitchRange.parse(range)
            quiz = try Quiz(kind: kind, count: questions, range: pitchRange, seed: seed ?? UInt64.random(in: 0...UInt64.max))
        } catch {
            throw EtudeFailure(error.message)
        }
        let signals = ExitSignals()
        let live = try LiveSound.start(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose)
        let clock = MonotonicClock()
        let played = PlayedQueue()
        let messages = MessageQueue()
        let hookup: InputHookup
        do {
            hookup = try InputHookup(spec: InputSpec(input), output: live, clock: clock,
                                     onNote: { played.add($0) }, onStatus: { messages.post($0) })
        } catch {
            live.close()
            throw EtudeFailure(error.message)
        }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        let keys = isatty(STDIN_FILENO) != 0 ? RawKeys() : nil
        if hookup.usesComputerKeyboard && keys == nil {
            hookup.stop()
            live.close()
            throw EtudeFailure("no way to answer: no MIDI input and stdin is not a terminal; pass --input with a MIDI device, FIFO or file")
        }
        if hookup.usesComputerKeyboard {
            for line in hookup.keyboardHelp { Console.out(line + "\n") }
        }
        let started = Date()
        let startClock = clock.now
        var exitCode: Int32 = 0
        var stopped = false

        questionLoop: while let q = quiz.current {
            Console.out("\(quiz.results.count + 1)/\(quiz.questions.count)  \(q.prompt)\n")
            if kind != .notes { Self.sound(q, live: live, signals: signals) }
            var collector = QuizAnswerCollector(size: q.answerSize)
            while true {
                if let sig = signals.received { exitCode = 128 + sig; stopped = true; break questionLoop }
                for m in messages.take() { Console.error("etude: \(m)") }
                var answer: Set<Int>?
                var taken = played.take()
                while answer == nil, !taken.isEmpty {
                    answer = collector.add(taken.removeFirst())
                }
                // Keys pressed after the answer belong to the next question.
                played.putBack(taken)
                if let answer, let result = quiz.answer(answer) {
                    let playedText = result.played.map { PitchName.name($0) }.joined(separator: " ")
                    if result.correct {
                        Console.out("   ✓ right (\(playedText))\n")
                    } else {
                        Console.out("   ✗ you played \(playedText); the answer is \(q.answerText)\n")
                    }
                    break
                }
                if hookup.ended && keys == nil && played.isEmpty { stopped = true; break questionLoop }
                if let keys {
                    for key in keys.read(timeoutMs: 20) {
                        switch key {
                        case .quit: stopped = true; break questionLoop
                        case .interrupt: exitCode = 128 + SIGINT; stopped = true; break questionLoop
                        case .character(let c): if hookup.usesComputerKeyboard { hookup.press(c, at: clock.now) }
                        }
                    }
                    hookup.releaseDue(now: clock.now)
                } else {
                    usleep(10_000)
                }
            }
        }
        let duration = clock.now - startClock
        hookup.stop()
        live.allNotesOff()
        keys?.restore()
        live.close()
        SoundSetup.flushLog(verbose: verbose)

        let answered = quiz.results.count
        if stopped && answered < quiz.questions.count {
            Console.out("stopped after \(answered) of \(quiz.questions.count) question\(quiz.questions.count == 1 ? "" : "s")\n")
        }
        guard answered > 0 else {
            if exitCode != 0 { throw ExitCode(exitCode) }
            return
        }
        let percent = quiz.percentage
        Console.out("Score: \(quiz.correctCount)/\(answered) (\(Self.percentText(percent))%)\n")
        try QuizHistory.save(quiz: quiz, startedAt: started, duration: duration, store: store)
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    static func percentText(_ p: Double) -> String {
        let r = (p * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// Plays the question's notes: an interval low then high then together, a chord together.
    static func sound(_ q: QuizQuestion, live: any SoundOutput, signals: ExitSignals) {
        let pitches = q.pitches.map { UInt8(clamping: $0) }
        func hold(_ keys: [UInt8], _ seconds: Double) {
            for k in keys { live.send(.noteOn(channel: 0, key: k, velocity: 90)) }
            usleep(useconds_t(seconds * 1_000_000))
            for k in keys { live.send(.noteOff(channel: 0, key: k, velocity: 0)) }
        }
        live.send(.programChange(channel: 0, program: 0))
        if q.kind == .intervals {
            for k in pitches where signals.received == nil { hold([k], 0.45) }
        }
        if signals.received == nil { hold(pitches, 0.8) }
    }
}

/// Played notes waiting for the quiz loop.
final class PlayedQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PlayedEvent] = []
    func add(_ e: PlayedEvent) { lock.withLock { items.append(e) } }
    func take() -> [PlayedEvent] { lock.withLock { let i = items; items = []; return i } }
    func putBack(_ early: [PlayedEvent]) { lock.withLock { items.insert(contentsOf: early, at: 0) } }
    var isEmpty: Bool { lock.withLock { items.isEmpty } }
}

/// Quiz results in the practice history: each quiz kind is a small generated lesson file
/// beside the database (the history table refers to lessons), and each quiz one pass with
/// mode `quiz-notes` / `quiz-intervals` / `quiz-chords`.
enum QuizHistory {
    static func save(quiz: Quiz, startedAt: Date, duration: Double, store options: StoreOptions) throws {
        let dbPath = Store.defaultPath(override: options.db)
        let folder = ((dbPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("quiz")
        let file = (folder as NSString).appendingPathComponent("quiz-\(quiz.kind.rawValue).mid")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file) {
                try Data(lessonBytes(kind: quiz.kind)).write(to: URL(fileURLWithPath: file))
            }
        } catch {
            throw EtudeFailure("cannot keep the quiz result: cannot write \(TextSafe.name(file)) (\(error.localizedDescription)); check the folder is writable or pass --db")
        }
        let answered = quiz.results.count
        let correct = quiz.correctCount
        let percent = quiz.percentage
        try StoreCLI.withStore(options, scan: false) { store in
            let info = try store.catalogue(fileAt: file)
            _ = try store.recordPass(lessonID: info.id, startedAt: startedAt, mode: "quiz-\(quiz.kind.rawValue)", hand: "both",
                                     tempoPercent: 100,
                                     figures: ScoreFigures(hit: correct, missed: 0, wrong: answered - correct, extra: 0,
                                                           accuracy: percent, score: percent),
                                     durationSeconds: duration)
        }
    }

    /// A one-bar lesson named after the quiz, so the history lists it by name.
    static func lessonBytes(kind: QuizKind) -> [UInt8] {
        let title = "Etude quiz: \(kind.rawValue)"
        let events: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8))),
            MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 80)),
            MIDIEvent(tick: 1920, .noteOff(channel: 0, key: 60, velocity: 0)),
            MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])),
        ]
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]))
    }
}
