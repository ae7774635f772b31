import App
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

/// `etude quiz`: asks a note, interval or chord, takes the learner's answer from the instrument,
/// says right or wrong with the right answer, and keeps the percentage in the history.
public struct QuizRunner: Sendable {
    public var quiz: Quiz
    public var input: InputSpec
    public var sound = LiveSound()
    public var library: Library

    public init(quiz: Quiz, input: InputSpec, library: Library) {
        self.quiz = quiz
        self.input = input
        self.library = library
    }

    /// Runs the quiz; returns the exit status (128 + signal when one ended it).
    public func run() throws -> Int32 {
        var quiz = self.quiz
        // A path that is no instrument is one line before the synth or the terminal opens.
        do { try input.check() } catch { throw EtudeFailure(error.message) }
        let keys = LineKeys()
        defer { keys.close() }
        let live = try sound.open()
        defer { live.close() }
        let clock = MonotonicClock()
        let played = PlayedQueue()
        let messages = MessageQueue()
        let hookup: InputHookup
        do {
            hookup = try InputHookup(spec: input, output: live, clock: clock,
                                     listening: AudioSetup.profile(input: input, library: library) ?? ListeningProfile(),
                                     onNote: { played.add($0) }, onStatus: { messages.post($0) })
        } catch {
            throw EtudeFailure(error.message)
        }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        EchoChoice.apply(to: hookup, explicit: sound.echo, library: library)
        if hookup.usesComputerKeyboard && !keys.isTerminal {
            hookup.stop()
            throw EtudeFailure("no way to answer: no MIDI input and stdin is not a terminal; pass --input with a MIDI device or FIFO")
        }
        if hookup.usesComputerKeyboard {
            for line in hookup.keyboardHelp { Console.out(line + "\n") }
        }
        let started = Date()
        let startClock = clock.now
        var exitCode: Int32 = 0
        var stopped = false

        questionLoop: while let q = quiz.current {
            StatusLine.keep("\(quiz.results.count + 1)/\(quiz.questions.count)  \(q.prompt)")
            if quiz.kind != .notes { Self.sound(q, live: live, keys: keys) }
            var collector = QuizAnswerCollector(size: q.answerSize)
            while true {
                for m in messages.take() where m != hookup.failure { Console.error("etude: \(safe(m))") }
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
                        StatusLine.keep("   ✓ right (\(playedText))")
                    } else {
                        StatusLine.keep("   ✗ you played \(playedText); the answer is \(q.answerText)")
                    }
                    break
                }
                if hookup.ended && !keys.isTerminal && played.isEmpty { stopped = true; break questionLoop }
                if hookup.failure != nil && played.isEmpty { stopped = true; break questionLoop }
                guard let pressed = keys.read(timeoutMs: 20) else {
                    exitCode = keys.signalStatus ?? 0
                    stopped = true
                    break questionLoop
                }
                for key in pressed {
                    switch LineCommand(key) {
                    case .quit?: stopped = true; break questionLoop
                    case .interrupt?: exitCode = 130; stopped = true; break questionLoop
                    case .character(let c)?: if hookup.usesComputerKeyboard { hookup.press(c, at: clock.now) }
                    default: break
                    }
                }
                hookup.releaseDue(now: clock.now)
            }
        }
        let duration = clock.now - startClock
        hookup.stop()
        live.allNotesOff()
        keys.close()
        LiveSound.flushLog(verbose: sound.verbose)

        let answered = quiz.results.count
        if stopped && answered < quiz.questions.count {
            Console.out("stopped after \(answered) of \(quiz.questions.count) question\(quiz.questions.count == 1 ? "" : "s")\n")
        }
        if answered > 0 {
            Console.out("Score: \(quiz.correctCount)/\(answered) (\(NumberText.short(quiz.percentage))%)\n")
            try QuizHistory.save(quiz: quiz, startedAt: started, duration: duration, library: library)
        }
        // An input that turned out to be no instrument is the quiz's error, not a finished quiz.
        if let failure = hookup.failure { throw EtudeFailure(failure) }
        return exitCode
    }

    /// Plays the question's notes: an interval low then high then together, a chord together.
    static func sound(_ q: QuizQuestion, live: any SoundOutput, keys: LineKeys) {
        let pitches = q.pitches.map { UInt8(clamping: $0) }
        func hold(_ notes: [UInt8], _ seconds: Double) {
            for k in notes { live.send(.noteOn(channel: 0, key: k, velocity: 90)) }
            usleep(useconds_t(seconds * 1_000_000))
            for k in notes { live.send(.noteOff(channel: 0, key: k, velocity: 0)) }
        }
        live.send(.programChange(channel: 0, program: 0))
        if q.kind == .intervals {
            for k in pitches where keys.signals.received == nil { hold([k], 0.45) }
        }
        if keys.signals.received == nil { hold(pitches, 0.8) }
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

