import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Synth
import Testing
@testable import Practice

/// The practice runtime hammered from every side at once: the runner thread plays and judges,
/// an input thread plays thousands of notes, a screen thread sends thousands of commands and
/// reads the state and the outbox. Every pass must come out once, whole (its report with it),
/// in order.
@Suite("Practice runtime under load")
struct RuntimeHammerTests {
    /// Counts and collects across threads (the test's own bookkeeping).
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [PassResult] = []
        private var reports = 0
        private var running = true

        func add(_ more: [PassResult]) { lock.withLock { results += more } }
        func reported() { lock.withLock { reports += 1 } }
        func stop() { lock.withLock { running = false } }
        var isRunning: Bool { lock.withLock { running } }
        var taken: [PassResult] { lock.withLock { results } }
        var reportCount: Int { lock.withLock { reports } }
    }

    @Test func passResultsStayCompleteAndOrderedUnderNotesAndCommandsFromEveryThread() throws {
        let passes = 8
        let plan = PracticePlan(tempo: .percent(200), repeatMode: .times(passes))
        let settings = PracticeSession.Settings(mode: .play, countIn: false, holdAfterPass: false)
        let session = try PracticeSession(lesson: TransportRunnerTests().lesson(), plan: plan, clock: MonotonicClock(), output: RecordingOutput(),
                                          settings: settings)
        let tally = Tally()
        session.onPassReport = { _ in tally.reported() }
        let done = DispatchGroup()

        let began = Date()
        // The commands start with the music: a tempo key pressed before the runner played the
        // first pass's start keeps that pass whole (`Transport`'s change before a pass starts).
        session.start()
        // The input thread: key presses and releases, thousands of them, as fast as they come.
        done.enter()
        let input = Thread {
            var n = 0
            while tally.isRunning || n < 4000 {
                let pitch = [60, 62, 64, 65, 61][n % 5]
                let now = session.now
                session.learnerPlayed(LearnerNote(pitch: pitch, velocity: 70, isOn: true, time: now))
                session.learnerPlayed(LearnerNote(pitch: pitch, velocity: 0, isOn: false, time: now + 0.0005))
                session.learnerPedal(down: n % 2 == 0, at: now)
                n += 1
                if n % 5 == 0 { usleep(1000) }  // a fast player's pace, not a busy loop
                if n > 200_000 { break }
            }
            done.leave()
        }
        // The screen thread: commands that change the runtime under the runner, state reads,
        // and the outbox taken as the front end takes it.
        done.enter()
        let screen = Thread {
            // The controller and its view are the screen thread's own.
            let controller = PracticeController(session: session)
            // Mostly the screen's own keys, every tenth a change the runner applies to the music.
            let commands: [PracticeCommand] = [.toggleNoteNames, .toggleHelp, .toggleHelp, .toggleNoteNames, .tempoUp,
                                               .toggleNoteNames, .toggleHelp, .toggleHelp, .toggleNoteNames, .tempoDown,
                                               .toggleNoteNames, .toggleHelp, .toggleHelp, .toggleNoteNames, .toggleMetronome,
                                               .toggleNoteNames, .toggleHelp, .toggleHelp, .toggleNoteNames, .cycleOtherHand]
            var n = 0
            while tally.isRunning || n < 3000 {
                controller.handle(commands[n % commands.count])
                if n % 10 == 0 {
                    let state = session.state()
                    #expect(state.pass >= 1 && state.pass <= passes)
                }
                tally.add(session.takePassResults())
                n += 1
                if n % 20 == 0 { usleep(500) }
                if n > 200_000 { break }
            }
            done.leave()
        }
        input.start()
        screen.start()
        let deadline = Date(timeIntervalSinceNow: 60)
        while !session.isFinished, Date() < deadline { usleep(10_000) }
        #expect(session.isFinished, "the passes all played within a minute")
        let played = Date().timeIntervalSince(began)
        tally.stop()
        #expect(done.wait(timeout: .now() + 60) == .success)
        print("hammer: \(passes) passes in \(played) s, threads done after \(Date().timeIntervalSince(began)) s")
        session.stop()
        tally.add(session.takePassResults())

        let results = tally.taken
        // Every pass once, in the order played, each whole: judged, with its report.
        #expect(results.map(\.pass) == Array(1...passes))
        #expect(results.allSatisfy { $0.info.complete && $0.mode == .play })
        #expect(results.allSatisfy { $0.report != nil })
        for result in results {
            // Each of the four notes hit, missed or played wrong; never judged twice as hit or missed.
            let f = result.report?.figures ?? ScoreFigures()
            #expect(f.hit + f.missed <= 4 && f.hit + f.missed + f.wrong >= 4, "pass \(result.pass): \(f)")
        }
        #expect(zip(results, results.dropFirst()).allSatisfy { $0.info.startedAt <= $1.info.startedAt })
        #expect(tally.reportCount == passes, "each report announced once")
        #expect(session.takePassResults().isEmpty, "nothing emitted twice")
    }
}
