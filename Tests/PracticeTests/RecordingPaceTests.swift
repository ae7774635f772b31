import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Synth
import Testing
@testable import Practice

/// `--recording` on a virtual clock (issue 42 point 3): the session's clock is paced by a
/// recording's aligned beats, so the transport is where the recording is at every moment — a
/// rubato performance followed beat by beat, at 70 % as at 100 % — and a learner who plays
/// with the recording at its stretched times is judged clean.
@Suite("A practice session paced by a recording")
struct RecordingPaceTests {
    static let tpq = 480

    /// The partner tests' 16 bars at 120 BPM (right hand in quarters, left in eighths).
    static func lesson() -> Lesson { PartnerTests.lesson() }

    /// A performance with rubato: beat `i` at this second of the recording (a second of silence
    /// first, ±25 % of tempo, a ritardando over the last two bars).
    static func recordingBeat(_ i: Int) -> Double {
        var t = 1.0
        for k in 0..<i {
            var f = 1 + 0.25 * sin(Double(k) / 5)
            if k >= 56 { f *= 0.6 + 0.4 * Double(64 - k) / 8 }
            t += 0.5 / f
        }
        return t
    }

    static func timeline() throws -> RecordingTimeline {
        try #require(RecordingTimeline(points: (0...64).map { .init(tick: Double($0 * tpq), seconds: recordingBeat($0)) }))
    }

    @Test func timelineBothWays() throws {
        let t = try Self.timeline()
        for beat in [0, 7, 31, 63] {
            #expect(abs(t.seconds(atTick: Double(beat * Self.tpq)) - Self.recordingBeat(beat)) < 1e-9)
            #expect(abs(t.tick(atSeconds: Self.recordingBeat(beat)) - Double(beat * Self.tpq)) < 1e-6)
        }
        // Half way between two beats in ticks is half way in seconds.
        let mid = t.seconds(atTick: 10.5 * Double(Self.tpq))
        #expect(abs(mid - (Self.recordingBeat(10) + Self.recordingBeat(11)) / 2) < 1e-9)
        // A point that does not move on is left out; too few points is no timeline.
        let kept = RecordingTimeline(points: [.init(tick: 0, seconds: 1), .init(tick: 480, seconds: 1), .init(tick: 960, seconds: 2)])
        #expect(kept?.points.count == 2)
        #expect(RecordingTimeline(points: [.init(tick: 0, seconds: 1)]) == nil)
    }

    /// Runs a session on a virtual clock from wall 100 until `end`, calling `each` every ms.
    static func run(mode: PracticeMode, percent: Double, end: Double, notes: [(time: Double, pitch: Int)] = [], metronome: Bool = false,
                    output: RecordingOutput? = nil, timeline given: RecordingTimeline? = nil,
                    each: (PracticeSession, Double) -> Void = { _, _ in }) throws -> (session: PracticeSession, reports: [PassReport]) {
        let clock = VirtualClock(now: 100)
        var plan = PracticePlan(hands: mode == .watch ? .both : .right)
        plan.tempo = .percent(percent)
        plan.repeatMode = .times(1)
        plan.countIn = mode == .play  // as `etude practice` plans it: a bar of clicks first
        plan.metronome.enabled = metronome
        var settings = PracticeSession.Settings(mode: mode, computerKeyboard: false, holdAfterPass: false)
        settings.recording = RecordingPace(timeline: try given ?? timeline(), tempoMap: lesson().tempoMap)
        let session = try PracticeSession(lesson: lesson(), plan: plan, clock: clock, output: output ?? RecordingOutput(clock: { clock.now }), settings: settings)
        let reports = PartnerTests.Reports()
        session.onPassReport = { reports.add($0) }
        session.start()
        var pending = notes[...]
        var t = 100.0
        while t < end {
            t += 0.001
            clock.set(t)
            while let n = pending.first, n.time <= t {
                pending = pending.dropFirst()
                session.learnerPlayed(LearnerNote(pitch: n.pitch, velocity: 80, isOn: true, time: n.time))
                session.learnerPlayed(LearnerNote(pitch: n.pitch, velocity: 0, isOn: false, time: n.time + 0.2))
            }
            session.advance()
            each(session, t)
        }
        session.stop()
        return (session, reports.all)
    }

    /// Watch mode at 70 % and at 100 %: at every beat's time in the stretched recording the
    /// transport is on that beat (within 10 ms of the recording's time), bar counter and all.
    @Test(arguments: [70.0, 100.0])
    func theTransportIsWhereTheRecordingIs(percent: Double) throws {
        let speed = percent / 100
        let r0 = Self.recordingBeat(0)
        let timeline = try Self.timeline()
        var worst = 0.0
        var bars: [Int: Double] = [:]
        let end = 100 + (Self.recordingBeat(64) - r0) / speed - 0.05
        _ = try Self.run(mode: .watch, percent: percent, end: end) { session, wall in
            let transport = session.transport
            let tick = transport.tick(at: session.now)
            // Where the recording is heard now, and where the transport is, in recording seconds.
            let heard = r0 + speed * (wall - 100)
            let shown = timeline.seconds(atTick: tick)
            worst = max(worst, abs(shown - heard))
            let bar = transport.position(at: session.now).bar
            if bars[bar] == nil { bars[bar] = wall }
        }
        #expect(worst < 0.010, "the transport was \(Int(worst * 1000)) ms of the recording away from it")
        // Each bar came when the stretched recording reached it.
        for bar in 2...16 {
            let expected = 100 + (Self.recordingBeat((bar - 1) * 4) - r0) / speed
            let seen = try #require(bars[bar])
            #expect(abs(seen - expected) < 0.015, "bar \(bar) at \(seen - 100) s, the recording's at \(expected - 100) s")
        }
    }

    /// The metronome follows the recording's beats: at 70 %, each click within 5 ms of the
    /// stretched recording's beat (the rubato and the ritardando included), not the lesson's
    /// even tempo.
    @Test func theMetronomeClicksOnTheRecordingsBeats() throws {
        let speed = 0.7
        let r0 = Self.recordingBeat(0)
        let clock = VirtualClock(now: 100)
        let output = RecordingOutput(clock: { clock.now })
        let end = 100 + (Self.recordingBeat(64) - r0) / speed - 0.05
        // The run's own clock stands at the same wall times as this one (both from 100, 1 ms steps).
        _ = try Self.run(mode: .watch, percent: 70, end: end, metronome: true, output: output) { _, wall in clock.set(wall) }
        let clicks = output.recorded.compactMap { r -> Double? in
            if case .message(.noteOn(9, _, let v)) = r.entry, v > 0 { return r.seconds } else { return nil }
        }
        #expect(clicks.count >= 60, "\(clicks.count) clicks")
        for (k, t) in clicks.prefix(63).enumerated() {
            let expected = 100 + (Self.recordingBeat(k) - r0) / speed
            #expect(abs(t - expected) < 0.005, "click \(k) at \(t - 100) s, the recording's beat at \(expected - 100) s")
        }
    }

    /// Play mode at 70 %: the right hand played at the recording's stretched times (after the
    /// count-in) is clean — every note a hit, nothing missed, judged by the same judge.
    @Test func playedAtTheStretchedTimesIsClean() throws {
        let speed = 0.7
        let r0 = Self.recordingBeat(0)
        let countIn = 4 * 0.5 / speed
        let start = 100 + countIn
        let notes = (0..<64).map { i in (time: start + (Self.recordingBeat(i) - r0) / speed, pitch: PartnerTests.rightPitch(i)) }
        let end = start + (Self.recordingBeat(64) - r0) / speed + 1
        let (_, reports) = try Self.run(mode: .play, percent: 70, end: end, notes: notes)
        let report = try #require(reports.first)
        #expect(report.figures.hit == 64, "\(report.figures)")
        #expect(report.figures.missed == 0)
        #expect(report.figures.wrong == 0)
        // The same notes at the lesson's own even tempo are not: the recording sets the time.
        let even = (0..<64).map { i in (time: start + Double(i) * 0.5 / speed, pitch: PartnerTests.rightPitch(i)) }
        let (_, evenReports) = try Self.run(mode: .play, percent: 70, end: end, notes: even)
        let strict = try #require(evenReports.first)
        #expect(strict.figures.hit < 64, "\(strict.figures)")
    }

    /// A pass's time in the history is real seconds (issue 42): at 70 % the stored pass lasts
    /// the stretched recording's length, as the learner lived it (48.7 s here), not the music's
    /// warped clock's (the lesson's 32 s at 70 %: 45.7 s), and it began when the music did.
    @Test func aPassLastsTheRealSecondsItWasPlayed() throws {
        let speed = 0.7
        let heard = (Self.recordingBeat(64) - Self.recordingBeat(0)) / speed
        let (session, _) = try Self.run(mode: .watch, percent: 70, end: 100 + heard + 0.5)
        let passes = session.takeFinishedPasses()
        let pass = try #require(passes.first)
        #expect(passes.count == 1 && pass.complete)
        #expect(abs(pass.durationSeconds - heard) < 0.02, "stored \(pass.durationSeconds) s, the learner played \(heard) s")
        #expect(abs(pass.durationSeconds - 32 / speed) > 2)
    }

    /// The same when the learner stops during the pass: the unfinished pass's time is the real
    /// time since it began (20 s of wall time on a recording slower than the lesson).
    @Test func anUnfinishedPassLastsTheRealSeconds() throws {
        let (session, _) = try Self.run(mode: .watch, percent: 70, end: 120, timeline: try Self.slowerTimeline())
        let pass = try #require(session.takeFinishedPasses().first)
        #expect(!pass.complete)
        #expect(abs(pass.durationSeconds - 20) < 0.02, "stored \(pass.durationSeconds) s of 20 s played")
    }

    /// A recording played evenly at 80 % of the lesson's tempo (beat i at 1 + 0.625 i s): the
    /// music's clock runs at 0.8 of real time there.
    static func slowerTimeline() throws -> RecordingTimeline {
        try #require(RecordingTimeline(points: (0...64).map { .init(tick: Double($0 * tpq), seconds: 1 + 0.625 * Double($0)) }))
    }

    /// Play mode at 70 % with that slower recording: every note played 40 ms after the
    /// stretched recording's is judged 40 ms late in real milliseconds (not 32, the warped
    /// clock's), and the pass lasts the real seconds.
    @Test func timingIsJudgedInRealMilliseconds() throws {
        let speed = 0.7
        let beat = 0.625 / speed
        let countIn = 4 * 0.5 / speed
        let start = 100 + countIn
        let notes = (0..<64).map { i in (time: start + Double(i) * beat + 0.040, pitch: PartnerTests.rightPitch(i)) }
        let (session, reports) = try Self.run(mode: .play, percent: 70, end: start + 64 * beat + 1, notes: notes,
                                              timeline: try Self.slowerTimeline())
        let report = try #require(reports.first)
        #expect(report.figures.hit == 64, "\(report.figures)")
        #expect(abs(report.figures.timingMeanMs - 40) < 3, "judged \(report.figures.timingMeanMs) ms late on average")
        let pass = try #require(session.takeFinishedPasses().first)
        #expect(abs(pass.durationSeconds - 64 * beat) < 0.05 || abs(pass.durationSeconds - (64 * beat + countIn)) < 0.05,
                "stored \(pass.durationSeconds) s")
    }
}
