import Clocks
import Follow
import Foundation
import Judge
import Lesson
import MIDIFile
import Synth
import Testing
@testable import Practice

/// `--follow` on a virtual clock (issue 37): a learner plays the right hand with a tempo that
/// drifts, stops, slips and comes back, and Etude's left hand must come in with them. What is
/// measured is what a duo partner is judged by: the asynchrony between Etude's left-hand onsets
/// and the learner's notes on the same beats, in milliseconds of the real (base) clock.
@Suite("Partner that follows the learner")
struct PartnerTests {
    static let tpq = 480
    /// The right hand's line: no two bars alike (a restart can be told from going on).
    static func rightPitch(_ i: Int) -> Int { 48 + (i * 7) % 29 }

    /// 16 bars of 4/4 at 120 BPM: the right hand in quarters (64 notes), the left hand in
    /// eighths (128 notes, the even ones on the right hand's beats).
    static func lesson() -> Lesson {
        var rh: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("RH".utf8))),
                               MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
                               MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [4, 2, 24, 8]))]
        var lh: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("LH".utf8)))]
        for i in 0..<64 {
            rh.append(MIDIEvent(tick: i * tpq, .noteOn(channel: 0, key: UInt8(rightPitch(i)), velocity: 80)))
            rh.append(MIDIEvent(tick: i * tpq + 400, .noteOff(channel: 0, key: UInt8(rightPitch(i)), velocity: 0)))
        }
        for i in 0..<128 {
            let key = UInt8(i % 2 == 0 ? 36 : 43)
            lh.append(MIDIEvent(tick: i * tpq / 2, .noteOn(channel: 1, key: key, velocity: 70)))
            lh.append(MIDIEvent(tick: i * tpq / 2 + 200, .noteOff(channel: 1, key: key, velocity: 0)))
        }
        rh.append(MIDIEvent(tick: 64 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        lh.append(MIDIEvent(tick: 64 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: rh), Track(events: lh)])
        return Lesson(file: file, fileName: "partner.mid")
    }

    /// A human performance of the right hand: beat `i` at its time, with `jitter` ms of
    /// seeded unevenness, from `start` (wall seconds).
    struct Performance {
        var notes: [(time: Double, pitch: Int, beat: Int?)] = []
        /// The wall time of each beat the learner played on its own key.
        var beats: [Int: Double] = [:]
    }

    /// `tempo(i)` is the learner's tempo at beat i (1 = 120 BPM); `stopAfter` a beat after
    /// which they stop for `stopSeconds`; `wrong`/`extra`/`missed` every n-th beat.
    static func perform(start: Double, tempo: (Int) -> Double, jitterMs: Double = 8, stopAfter: Int? = nil, stopSeconds: Double = 0,
                        wrongEvery: Int? = nil, extraEvery: Int? = nil, missedEvery: Int? = nil, seed: UInt64 = 7) -> Performance {
        var rng = SeededGenerator(seed: seed)
        var p = Performance()
        var t = start
        for i in 0..<64 {
            let jitter = Double.random(in: -jitterMs...jitterMs, using: &rng) / 1000
            let onset = t + jitter
            if let m = missedEvery, i % m == m / 2 {
                // missed: nothing played on this beat
            } else if let w = wrongEvery, i % w == w - 1 {
                p.notes.append((onset, rightPitch(i) + 1, nil))
            } else {
                p.notes.append((onset, rightPitch(i), i))
                p.beats[i] = onset
            }
            if let e = extraEvery, i % e == e - 1 {
                p.notes.append((onset + 0.17 / tempo(i), rightPitch(i) + 5, nil))
            }
            t += 0.5 / tempo(i)
            if let s = stopAfter, i == s { t += stopSeconds }
        }
        p.notes.sort { $0.time < $1.time }
        return p
    }

    /// 100 % → 75 % over bars 1–8, back to 100 % over bars 9–16.
    static func drift(_ beat: Int) -> Double {
        let x = Double(beat) / 32
        return beat < 32 ? 1 - 0.25 * x : 0.75 + 0.25 * (x - 1)
    }

    struct Run {
        var leftOnsets: [Double] = []   // wall times of Etude's left-hand note-ons, in order
        var output: RecordingOutput
        var session: PracticeSession
        var reports: [PassReport] = []
    }

    /// Plays the performance against a play-mode session of the right hand, Etude on the left.
    /// `heardAfter`: each key reaches the session that long after it sounded (stamped when it
    /// sounded), as a microphone's listener hands them on; `hearingDelay`, what the session is
    /// told of it.
    static func run(_ performance: Performance, follow: Bool, until end: Double, heardAfter: Double = 0,
                    hearingDelay: Double = 0, followFrom: Double? = nil) throws -> Run {
        let clock = VirtualClock(now: 100)
        let output = RecordingOutput(clock: { clock.now })
        var plan = PracticePlan(hands: .right)
        plan.repeatMode = .times(1)
        var settings = PracticeSession.Settings(mode: .play, computerKeyboard: false, holdAfterPass: false)
        settings.follow = follow
        settings.hearingDelay = hearingDelay
        let session = try PracticeSession(lesson: lesson(), plan: plan, clock: clock, output: output, settings: settings)
        let reports = Reports()
        session.onPassReport = { reports.add($0) }
        session.start()
        var pending = performance.notes[...]
        var t = 100.0
        while t < end {
            t += 0.001
            clock.set(t)
            if let f = followFrom, t >= f, t < f + 0.001 { session.setFollowing(true) }
            while let n = pending.first, n.time + heardAfter <= t {
                pending = pending.dropFirst()
                session.learnerPlayed(LearnerNote(pitch: n.pitch, velocity: 80, isOn: true, time: n.time))
                session.learnerPlayed(LearnerNote(pitch: n.pitch, velocity: 0, isOn: false, time: n.time + 0.2))
            }
            session.advance()
        }
        session.stop()
        var out = Run(output: output, session: session)
        out.leftOnsets = output.recorded.compactMap { r in
            if case .message(.noteOn(1, _, let v)) = r.entry, v > 0 { return r.seconds } else { return nil }
        }
        out.reports = reports.all
        return out
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [PassReport] = []
        func add(_ r: PassReport) { lock.withLock { list.append(r) } }
        var all: [PassReport] { lock.withLock { list } }
    }

    /// Asynchrony (ms) of each left-hand onset on a beat the learner played, after bar 1.
    static func asynchrony(_ run: Run, _ performance: Performance) -> [Double] {
        // Left-hand onsets in order; onset 2i is on beat i when nothing was skipped.
        var out: [Double] = []
        for (beat, t) in performance.beats where beat >= 4 {
            // The left-hand onset nearest the learner's note on that beat.
            guard let nearest = run.leftOnsets.min(by: { abs($0 - t) < abs($1 - t) }) else { continue }
            out.append((nearest - t) * 1000)
        }
        return out
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let s = values.map(abs).sorted()
        guard !s.isEmpty else { return .infinity }
        return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
    }

    @Test func keepsTheLearnersDriftingTempoWithinADuosAsynchrony() throws {
        let perf = Self.perform(start: 102, tempo: Self.drift)
        let followed = try Self.run(perf, follow: true, until: 150)
        let a = Self.asynchrony(followed, perf)
        #expect(a.count >= 55)
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile \(Self.percentile(a, 0.95)) ms")
        // Every left-hand note played once, in order, none skipped.
        #expect(followed.leftOnsets.count == 128, "\(followed.leftOnsets.count) left-hand notes")

        // Without following, the same performance falls apart from Etude's fixed clock.
        let fixed = try Self.run(perf, follow: false, until: 150)
        let b = Self.asynchrony(fixed, perf)
        #expect((b.map(abs).max() ?? 0) > 500, "fixed clock drifts: \(b.map(abs).max() ?? 0) ms")
    }

    @Test func holdsTheFiguresWithWrongExtraAndMissedNotes() throws {
        let perf = Self.perform(start: 102, tempo: Self.drift, wrongEvery: 10, extraEvery: 10, missedEvery: 8)
        let run = try Self.run(perf, follow: true, until: 150)
        let a = Self.asynchrony(run, perf)
        #expect(a.count >= 40)
        // The pass ends and is judged: the wrong keys wrong, the missed notes missed.
        let report = try #require(run.reports.first)
        #expect(report.figures.missed >= 8 && report.figures.wrong + report.figures.extra >= 6, "\(report.figures)")
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile \(Self.percentile(a, 0.95)) ms")
        // Without following, the same performance falls apart from Etude's fixed clock.
        let fixed = try Self.run(perf, follow: false, until: 150)
        let b = Self.asynchrony(fixed, perf)
        #expect((b.map(abs).max() ?? 0) > 500, "fixed clock drifts: \(b.map(abs).max() ?? 0) ms")
    }

    @Test func comesInWithASlipOntoTheNeighbourKeyAndNotABeatLater() throws {
        // Every fourth beat a slip onto the key a semitone up, on time, while the tempo drifts:
        // the follower takes it for the note it replaced, so Etude's left hand comes in with it.
        let perf = Self.perform(start: 102, tempo: Self.drift, wrongEvery: 4)
        let run = try Self.run(perf, follow: true, until: 150)
        let slips = perf.notes.filter { $0.beat == nil && $0.time > 104 }.map(\.time)
        #expect(slips.count >= 14)
        let a = slips.compactMap { t in run.leftOnsets.min(by: { abs($0 - t) < abs($1 - t) }).map { ($0 - t) * 1000 } }
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony to the slips \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile to the slips \(Self.percentile(a, 0.95)) ms")
        // Nothing of Etude's part skipped or played twice.
        #expect(run.leftOnsets.count == 128, "\(run.leftOnsets.count) left-hand notes")
        let report = try #require(run.reports.first)
        #expect(report.figures.wrong >= 14 && report.figures.hit >= 46, "\(report.figures)")
    }

    @Test func aStrayKeyBeforeTheStartMovesNothing() throws {
        // A key 0.6 s before the first note, the learner's part then in time: the music waits
        // for the first note, not for the stray, and the pass is judged as played.
        var perf = Self.perform(start: 102.6, tempo: { _ in 1 })
        perf.notes.insert((102.0, 70, nil), at: 0)
        let run = try Self.run(perf, follow: true, until: 140)
        let first = try #require(perf.beats[0])
        // (Its first note, on the pass's first tick, sounds as the pass starts: the learner's cue.)
        let early = run.leftOnsets.filter { $0 > 100.01 && $0 < first - 0.001 }
        #expect(early.isEmpty, "Etude came in before the learner's first note: \(early)")
        let a = Self.asynchrony(run, perf)
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile \(Self.percentile(a, 0.95)) ms")
        let report = try #require(run.reports.first)
        #expect(report.figures.hit == 64 && report.figures.wrong == 0 && report.figures.extra == 1, "\(report.figures)")
    }

    @Test func thePartnersPlaceIsTheOneFollowersPlace() {
        // The partner keeps no matcher of its own: what it is told of a key is what the score
        // follower, fed the same keys, says of it (a stray first, a slip, an extra, a miss).
        let onsets = (0..<32).map { PartnerTiming.Onset(pitch: Self.rightPitch($0), time: Double($0) * 0.5, id: $0) }
        var partner = PartnerTiming(score: onsets)
        var follower = ScoreFollower(score: FollowScore(onsets.map { ScoreNote(id: $0.id, pitch: $0.pitch, time: $0.time) }))
        var keys: [(pitch: Int, time: Double)] = [(70, 9.4)]
        for i in 0..<32 where i != 9 {
            keys.append((i == 5 ? Self.rightPitch(i) + 1 : Self.rightPitch(i), 10 + Double(i) * 0.6))
            if i == 13 { keys.append((Self.rightPitch(i) + 5, 10 + Double(i) * 0.6 + 0.2)) }
        }
        let warp = FollowedClock.Warp(anchorWall: 0, anchorScore: 0, rate: 1, cap: nil)
        var moved = 0
        for k in keys {
            let point = follower.play(PerformedNote(pitch: k.pitch, time: k.time))
            let move = partner.heard(pitch: k.pitch, wall: k.time, warp: warp, pending: onsets, beat: 0.5, timeOf: { Double($0) * 0.5 })
            #expect(partner.follower?.current == point)
            if let move {
                moved += 1
                // The music is put where the follower put the learner, at their tempo.
                #expect(move.score == point.scoreTime, "key \(k)")
                #expect(abs(move.rate - 1 / point.tempo) < 0.2 + 1e-9)
            }
        }
        // One move per note the learner came to (the slip's too), none for the stray or the extra.
        #expect(moved == 31, "\(moved) moves")
        #expect(abs(partner.rate - 1 / 1.2) < 0.05, "rate \(partner.rate)")
    }

    @Test func byEarTheListenersDelayIsMadeUpNotAddedToEtudesPart() throws {
        // From a microphone each key is heard 120 ms after it sounded. Told so, the music runs
        // on past the learner's next note by that much instead of waiting to hear it: Etude's
        // left hand meets the learner's notes as they sound, not as they are heard.
        let perf = Self.perform(start: 102, tempo: Self.drift)
        let byEar = try Self.run(perf, follow: true, until: 150, heardAfter: 0.12, hearingDelay: 0.12)
        let a = Self.asynchrony(byEar, perf)
        #expect(a.count >= 55)
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony by ear \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile by ear \(Self.percentile(a, 0.95)) ms")
        #expect(byEar.leftOnsets.count == 128, "\(byEar.leftOnsets.count) left-hand notes")
        let report = try #require(byEar.reports.first)
        #expect(report.figures.hit == 64, "\(report.figures)")
        // And says so: the header's `follow by ear +120 ms`.
        #expect(byEar.session.state().followingByEarMs == 120)
        // Not told, Etude's part waits to hear each note: late by the listener's delay.
        let deaf = try Self.run(perf, follow: true, until: 150, heardAfter: 0.12)
        let b = Self.asynchrony(deaf, perf)
        #expect(Self.percentile(b, 0.5) >= 100, "median asynchrony without the delay made up \(Self.percentile(b, 0.5)) ms")
    }

    @Test func turnedOnInTheMiddleOfAPassFollowsFromWhereTheLearnerIs() throws {
        // In time with the lesson for four bars, following turned on in bar 5 (the `F` key), then
        // slowing to 80 %: the follower starts where the music is, not at the top, and Etude's
        // left hand keeps with the learner from the next bar on.
        let perf = Self.perform(start: 100, tempo: { $0 < 20 ? 1 : max(0.8, 1 - 0.02 * Double($0 - 20)) }, jitterMs: 5)
        let run = try Self.run(perf, follow: false, until: 150, followFrom: 108.2)
        #expect(run.session.isFollowing)
        let a = perf.beats.filter { $0.key >= 24 }.compactMap { beat, t in
            run.leftOnsets.min(by: { abs($0 - t) < abs($1 - t) }).map { ($0 - t) * 1000 }
        }
        #expect(a.count >= 38)
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile \(Self.percentile(a, 0.95)) ms")
        #expect(run.leftOnsets.count == 128, "\(run.leftOnsets.count) left-hand notes")
    }

    @Test func fallsSilentWithinABeatWhenTheLearnerStopsAndComesBackWithThem() throws {
        // Beat 37 is the last before a 3 s stop, mid-bar (bar 10, beat 2).
        let perf = Self.perform(start: 102, tempo: { _ in 1 }, jitterMs: 0, stopAfter: 37, stopSeconds: 3)
        let run = try Self.run(perf, follow: true, until: 140)
        let lastBefore = try #require(perf.beats[37])
        let comeBack = try #require(perf.beats[38])
        #expect(comeBack - lastBefore > 3)
        // Nothing of Etude's starts in the stop after one beat (0.5 s), and all its notes end by then.
        let inStop = run.leftOnsets.filter { $0 > lastBefore + 0.5 + 0.01 && $0 < comeBack - 0.001 }
        #expect(inStop.isEmpty, "left-hand notes during the stop: \(inStop.map { $0 - lastBefore })")
        let sounding = Self.sounding(run.output, at: lastBefore + 0.6)
        #expect(sounding.isEmpty, "left-hand notes still sounding in the stop: \(sounding)")
        // Back within 50 ms of the learner's next note.
        let back = try #require(run.leftOnsets.first { $0 >= comeBack - 0.001 })
        #expect(back - comeBack <= 0.05, "came back \(Int((back - comeBack) * 1000)) ms after the learner")
        // The silence ended nothing: the pass goes on and is judged whole.
        let report = try #require(run.reports.first)
        #expect(report.figures.missed == 0, "\(report.figures)")
        #expect(report.figures.hit == 64)
    }

    @Test func judgesTimingAgainstTheFollowedTempoAndSaysTheTempoBarByBar() throws {
        let perf = Self.perform(start: 102, tempo: Self.drift, jitterMs: 5)
        let run = try Self.run(perf, follow: true, until: 150)
        let report = try #require(run.reports.first)
        // The learner kept their own (drifting) tempo evenly: every note a hit, on time within the window.
        #expect(report.figures.hit == 64, "\(report.figures)")
        #expect(abs(report.figures.timingMeanMs) < 20 && report.figures.timingSdMs < 25, "\(report.figures)")
        let tempo = try #require(report.barTempo)
        #expect(tempo.count >= 15)
        let bar8 = try #require(tempo.first { $0.bar == 8 })
        #expect(abs(bar8.percent - 77) < 6, "bar 8 at \(bar8.percent) %")
        let summary = try #require(PartnerTiming.summary(tempo.map { ($0.bar, $0.percent) }))
        #expect(summary.hasPrefix("tempo 10") && summary.contains("→ 7"), "\(summary)")
        // Without following, the same drift is judged against the fixed clock: late notes and misses.
        let fixed = try Self.run(perf, follow: false, until: 150)
        let judged = try #require(fixed.reports.first)
        #expect(judged.figures.hit < 40, "\(judged.figures)")
    }

    @Test func refusedWhereItMeansNothing() throws {
        #expect(!PracticeMode.watch.follows && !PracticeMode.wait.follows)
        #expect(PracticeMode.play.follows && PracticeMode.memory.follows)
        let clock = VirtualClock(now: 0)
        var settings = PracticeSession.Settings(mode: .wait, computerKeyboard: false)
        settings.follow = true
        let session = try PracticeSession(lesson: Self.lesson(), plan: PracticePlan(hands: .right), clock: clock, output: RecordingOutput(),
                                          settings: settings)
        #expect(!session.isFollowing)
        #expect(!session.setFollowing(true))
    }

    @Test func followsARestartTwoBarsBackWithinABar() throws {
        // Bars 1–7, then bar 6 again (two bars back from where the learner was going) to the end.
        var perf = Performance()
        var t = 102.0
        var restart: [(beat: Int, time: Double)] = []
        for (k, beat) in (Array(0..<28) + Array(20..<64)).enumerated() {
            perf.notes.append((t, Self.rightPitch(beat), beat))
            if k >= 28 { restart.append((beat, t)) } else { perf.beats[beat] = t }
            t += 0.5
        }
        let run = try Self.run(perf, follow: true, until: 150)
        // From a bar after the three notes it takes to be sure of the restart, Etude is with them.
        let a = restart.dropFirst(3 + 4).compactMap { n -> Double? in
            run.leftOnsets.min(by: { abs($0 - n.time) < abs($1 - n.time) }).map { ($0 - n.time) * 1000 }
        }
        #expect(a.count >= 30)
        #expect(Self.percentile(a, 0.5) <= 40, "median asynchrony after the restart \(Self.percentile(a, 0.5)) ms")
        #expect(Self.percentile(a, 0.95) <= 80, "95th percentile after the restart \(Self.percentile(a, 0.95)) ms")
        // And the pass ends, judged.
        #expect(!run.reports.isEmpty)
    }

    /// Keys of channel 1 sounding at `time` by the recorded note-ons and offs.
    static func sounding(_ output: RecordingOutput, at time: Double) -> Set<UInt8> {
        var on = Set<UInt8>()
        for r in output.recorded where r.seconds <= time {
            switch r.entry {
            case .message(.noteOn(1, let k, let v)): if v > 0 { on.insert(k) } else { on.remove(k) }
            case .message(.noteOff(1, let k, _)): on.remove(k)
            case .message(.controlChange(1, 123, _)), .allNotesOff: on = []
            default: break
            }
        }
        return on
    }
}

extension PartnerTests {
    @Test func aFirstNoteLongAfterTheCountInIsMetNotMissed() throws {
        let perf = Self.perform(start: 105, tempo: { _ in 0.9 }, jitterMs: 0)
        let run = try Self.run(perf, follow: true, until: 150)
        let report = try #require(run.reports.first)
        #expect(report.figures.hit == 64 && report.figures.extra == 0, "\(report.figures) \(report.notes.prefix(3).map { "\($0.pitch) \($0.onset)" })")
    }
}
