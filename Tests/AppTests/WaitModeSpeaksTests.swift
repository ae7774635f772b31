import Clocks
import Foundation
import Judge
import Lesson
@testable import LessonLibrary
import MIDIInput
import Practice
import Screen
import Synth
import Terminal
import TestSupport
import Testing

/// Wait mode on the computer keyboard as a new learner plays it: slowly (1.1 s a note), typing
/// the keys the header names, each key sounding its fixed length (so a repeated note's first
/// copy ends while its second is awaited).
@Suite("Wait mode speaks")
struct WaitModeSpeaksTests {
    /// One full pass of `lesson` for `hands`, each awaited note typed `seconds` after the last.
    static func slowPass(_ path: String, hands: PracticePlan.Hands, seconds: Double = 1.1, byKeyboardLetters: Bool = false) throws
        -> (figures: ScoreFigures?, headers: [String], report: PassReport?, expected: Int) {
        let opened = try LessonOpener.open(path)
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let s = try SessionHarness(lesson: opened.lesson, plan: PracticePlan(hands: hands, repeatMode: .times(1)), clock: clock,
                                   output: output, settings: .init(mode: .wait, computerKeyboard: true))
        let box = LockedBox<PracticeSession?>(s.session)
        let hookup = try InputHookup(spec: .computerKeyboard, output: output, clock: clock, onNote: { e in
            box.value?.learnerPlayed(LearnerNote(pitch: e.pitch, velocity: e.velocity, isOn: e.isOn, time: e.time))
        })
        s.controller.onPianoKey = { key, time in hookup.press(key, at: time) }
        s.session.onTick = { now in hookup.releaseDue(now: now) }
        s.session.computerKeys = { hookup.computerKeys(for: $0) }
        let reports = LockedBox<[PassReport]>([])
        s.onPassReport = { r in reports.value.append(r) }
        s.start()
        var headers: [String] = []
        var rounds = 0
        while !s.isFinished && reports.value.isEmpty && rounds < 400 {
            rounds += 1
            let until = clock.now + seconds
            while clock.now < until - 1e-9 {
                clock.advance(by: min(0.02, until - clock.now))
                s.advance()
            }
            let model = s.snapshot()
            guard let waiting = model.status.waiting else { continue }
            headers.append(waiting)
            // The hint line names the keys; the awaited keys carry their letter on the keyboard.
            #expect(model.message == "play \(waiting)" || model.message != nil)
            for w in s.session.state().feedback.waitingFor {
                #expect(model.keyboard.letters[w.pitch] != nil, "\(w.pitch) lettered")
            }
            if byKeyboardLetters {
                // The letter on the lowest awaited key: `z`/`x` first when the octave must move.
                guard let pitch = s.session.state().feedback.waitingFor.map(\.pitch).min(),
                      let letter = model.keyboard.letters[pitch] else { continue }
                _ = s.handle(key: Key(.character(letter)))
                s.advance()
                continue
            }
            // "E4 [d]  G3 [z g]": type the first note's keys (the next is named from the octave then).
            guard let keys = waiting.split(separator: "[").dropFirst().first?.prefix(while: { $0 != "]" }) else { continue }
            for k in keys.split(separator: " ") { _ = s.handle(key: Key(.character(Character(String(k))))) }
            s.advance()
        }
        let pass = s.takeFinishedPasses().first
        let practised = opened.lesson.notes.filter { hands == .both ? $0.part.hand != nil : $0.part.hand?.rawValue == hands.rawValue }
        return (pass.flatMap { s.score(for: $0) }, headers, reports.value.first, practised.count)
    }

    /// The `wrong 1` in bars 9–12 of a slow right-hand pass: bar 12's G3 lies below the computer
    /// keyboard's octave, and a learner who types `g` for the lit G key plays G4. The keyboard
    /// now letters G3's key `z` (then `g`), and E4's after it `x`: following the letters on the
    /// keys, one a round, the pass has nothing wrong.
    @Test func followingTheLettersOnTheKeysPlaysBar12sG3WithoutAWrongKey() throws {
        let (figures, headers, _, expected) = try Self.slowPass(Repo.lesson("level4/ode-to-joy.mid"), hands: .right, byKeyboardLetters: true)
        let f = try #require(figures)
        #expect(f.wrong == 0 && f.missed == 0 && f.hit == expected, "\(f.summary)")
        #expect(headers.contains("G3 [z g]") && headers.contains("E4 [x d]"), "\(headers)")
    }

    @Test func aCorrectSlowPassOfOdeToJoyIsAllHitsWithNothingWrong() throws {
        for hands in [PracticePlan.Hands.right, .both] {
            let (figures, headers, report, expected) = try Self.slowPass(Repo.lesson("level4/ode-to-joy.mid"), hands: hands)
            let f = try #require(figures, "the pass finished (\(hands))")
            #expect(f.wrong == 0 && f.missed == 0 && f.extra == 0, "\(hands): \(f.summary)")
            #expect(f.hit == expected, "\(hands): \(f.summary)")
            #expect(headers.first == (hands == .right ? "E4 [d]" : "C3 [z a]  E4 [d]"), "\(headers.prefix(3))")
            let r = try #require(report)
            #expect(r.secondsPerChord != nil, "wait mode reports time per chord")
            #expect(r.notes.allSatisfy { $0.release == nil && $0.loudness == nil }, "the computer keyboard has no lengths or velocities")
        }
    }
}

/// After a play-mode pass the staff marks the notes the ear found off.
@Suite("The ear's marks after a pass")
struct EarStaffMarksTests {
    @Test func notesReleasedShortAreMarkedOffAndReviewedAfterThePass() throws {
        let lesson = PlayingModesTests.lesson()
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let s = try SessionHarness(lesson: lesson, plan: PlayingModesTests.firstBarRight, clock: clock, output: output,
                                   settings: .init(mode: .play, computerKeyboard: false, countIn: false))
        s.start()
        s.advance()
        // C5 C#5 D5 D#5 at 0, 0.5, 1, 1.5 s; each released after 0.1 s (a fifth of its value).
        for (i, p) in [72, 73, 74, 75].enumerated() {
            let t = Double(i) * 0.5
            while clock.now < t - 1e-9 { clock.advance(by: min(0.02, t - clock.now)); s.advance() }
            s.learnerPlayed(LearnerNote(pitch: p, velocity: 80, isOn: true, time: clock.now))
            clock.advance(by: 0.1)
            s.advance()
            s.learnerPlayed(LearnerNote(pitch: p, velocity: 0, isOn: false, time: clock.now))
        }
        while clock.now < 3 { clock.advance(by: 0.02); s.advance() }
        let report = try #require(s.coach.lastReport)
        #expect(report.figures.hit == 4 && report.figures.short == 4, "\(report.figures.summary)")
        let state = s.session.state()
        #expect(state.heardOff.count == 4)
        #expect(s.snapshot().overlay.map { if case .results(let r) = $0 { return r.review } else { return [] } } == ["bar 1: C5 short, C#5 short, D5 short, D#5 short"])
    }
}

/// `W` loops the section that fails most across the passes the history keeps.
@Suite("W from the per-bar picture")
struct WeakestFromHistoryTests {
    @Test func wLoopsTheSectionWhoseBarsFailMostAcrossPasses() throws {
        let opened = try LessonOpener.open(Repo.lesson("level4/ode-to-joy.mid"))
        let clock = VirtualClock()
        let s = try SessionHarness(lesson: opened.lesson, plan: PracticePlan(hands: .right), clock: clock,
                                   output: RecordingOutput(clock: { clock.now }), settings: .init(mode: .play))
        s.controller.onBarPicture = { [2: (notes: 16, faults: 1), 10: (notes: 20, faults: 9), 14: (notes: 16, faults: 2)] }
        s.start()
        s.handle(.loopWeakestSection)
        #expect(s.transport.plan.bars == 9...12, "\(String(describing: s.transport.plan.bars))")
        #expect(s.controller.view.message?.contains("looping") == true)
    }
}

/// The wrong key of the G3 habit is pointed at: bar 12, in the results panel's review.
@Suite("Wait mode's wrong keys reviewed")
struct WaitWrongKeyReviewTests {
    @Test func aWrongKeyBeforeTheRightOneIsReviewedInItsBar() throws {
        let opened = try LessonOpener.open(Repo.lesson("level4/ode-to-joy.mid"))
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let s = try SessionHarness(lesson: opened.lesson, plan: PracticePlan(hands: .right, bars: 12...12, repeatMode: .times(1)),
                                   clock: clock, output: output, settings: .init(mode: .wait, computerKeyboard: false))
        s.start()
        // Bar 12 is C4 D4 G3: G4 (the habit) before G3.
        for p in [60, 62, 67, 55] {
            clock.advance(by: 0.5)
            s.advance()
            s.learnerPlayed(LearnerNote(pitch: p, velocity: 80, isOn: true, time: clock.now))
            s.learnerPlayed(LearnerNote(pitch: p, velocity: 0, isOn: false, time: clock.now + 0.1))
        }
        for _ in 0..<200 where s.coach.lastReport == nil { clock.advance(by: 0.05); s.advance() }
        let report = try #require(s.coach.lastReport)
        #expect(report.figures.hit == 3 && report.figures.wrong == 0 && report.figures.extra == 1)
        #expect(report.reviewLines() == ["bar 12: G3 wrong key first (G4)"], "\(report.reviewLines())")
        #expect(s.session.state().heardOff.count == 1)
    }
}
