import Foundation
import Judge
import Lesson
import MIDIFile
import Testing
@testable import Practice

/// Grace notes are played by the lesson and accepted from the learner, never required: the main
/// note is judged, the grace note is neither missed when left out nor wrong when played.
@Suite("Grace notes in wait and play modes")
struct GraceJudgingTests {
    /// `CoachTests.lesson()` with an acciaccatura (D5, a 32nd before the beat) before each bar's
    /// first note from bar 2 on.
    static func lesson(trill: Bool = false, roll: Bool = false) throws -> Lesson {
        let tpq = 480
        var right: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("RH".utf8))),
                                  MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
                                  MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [4, 2, 24, 8]))]
        var left: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("LH".utf8)))]
        for i in 0..<32 {
            let p = CoachTests.rightPitches[i % 8]
            if roll && i == 4 {
                // Bar 2's G4 as a rolled chord C4 E4 G4: E4 and G4 struck 30 and 60 ticks late.
                for (k, q) in [60, 64, 67].enumerated() {
                    if k > 0 { right.append(Annotation.roll(pitch: q, delay: 30 * k).event(tick: 1920 + 30 * k)) }
                    right.append(MIDIEvent(tick: 1920 + 30 * k, .noteOn(channel: 0, key: UInt8(q), velocity: 80)))
                    right.append(MIDIEvent(tick: 2320, .noteOff(channel: 0, key: UInt8(q), velocity: 0)))
                }
                continue
            }
            if trill && i == 1 {
                // D4 with a trill (alternating with E4 in 32nds): D4 judged, the rest accepted.
                right.append(Annotation.ornament(pitch: 62, .trill, ticks: 480).event(tick: 480))
                right.append(MIDIEvent(tick: 480, .noteOn(channel: 0, key: 62, velocity: 80)))
                right.append(MIDIEvent(tick: 540, .noteOff(channel: 0, key: 62, velocity: 0)))
                for k in 1..<7 {
                    let q = k % 2 == 1 ? 64 : 62
                    right.append(Annotation.ornamentNote(pitch: q).event(tick: 480 + 60 * k))
                    right.append(MIDIEvent(tick: 480 + 60 * k, .noteOn(channel: 0, key: UInt8(q), velocity: 80)))
                    right.append(MIDIEvent(tick: k == 6 ? 960 : 540 + 60 * k, .noteOff(channel: 0, key: UInt8(q), velocity: 0)))
                }
                continue
            }
            if i % 4 == 0, i > 0 {
                right.append(Annotation.grace(pitch: 74, slashed: true).event(tick: i * tpq - 60))
                right.append(MIDIEvent(tick: i * tpq - 60, .noteOn(channel: 0, key: 74, velocity: 80)))
                right.append(MIDIEvent(tick: i * tpq, .noteOff(channel: 0, key: 74, velocity: 0)))
            }
            right.append(MIDIEvent(tick: i * tpq, .noteOn(channel: 0, key: UInt8(p), velocity: 80)))
            right.append(MIDIEvent(tick: i * tpq + 400, .noteOff(channel: 0, key: UInt8(p), velocity: 0)))
        }
        for b in 0..<8 {
            left.append(MIDIEvent(tick: b * 4 * tpq, .noteOn(channel: 1, key: 36, velocity: 70)))
            left.append(MIDIEvent(tick: b * 4 * tpq + 1900, .noteOff(channel: 1, key: 36, velocity: 0)))
        }
        right = right.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        right.append(MIDIEvent(tick: 32 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        left.append(MIDIEvent(tick: 32 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: right), Track(events: left)])
        return Lesson(file: file, fileName: "graces.mid")
    }

    /// The main notes as written, and (`graces`) D5 a 32nd (0.0625 s) before each bar from bar 2.
    static func perform(start: Double, percent: Double, graces: Bool) -> [PlayedEvent] {
        var out = CoachTests.perform(start: start, percent: percent)
        let beat = 0.5 / (percent / 100)
        if graces {
            for i in stride(from: 4, to: 32, by: 4) {
                let t = start + Double(i) * beat - beat / 8
                out.append(PlayedEvent(pitch: 74, velocity: 80, time: t, isOn: true))
                out.append(PlayedEvent(pitch: 74, velocity: 0, time: t + 0.05, isOn: false))
            }
        }
        return out
    }

    @Test func theLessonPlaysTheGraceNotesAsGraceNotes() throws {
        let lesson = try Self.lesson()
        #expect(lesson.notes.filter { lesson.isGrace($0) }.count == 7)
        #expect(lesson.notes.filter { lesson.isGrace($0) }.allSatisfy { $0.pitch == 74 && $0.part == .hand(.right) })
    }

    @Test(arguments: [false, true])
    func playModeJudgesTheMainNotesOnly(playingGraces: Bool) throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: CoachTests.rightHand, mode: .play)
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent, graces: playingGraces) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.hit == 32 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(!run.actions.contains { if case .flashWrong = $0 { return true } else { return false } })
    }

    @Test func playModeStillCallsAGraceNoteStruckElsewhereWrong() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: CoachTests.rightHand, mode: .play)
        // D5 struck with bar 1's third note, where no grace note sounds.
        run.performer = { _, percent, t0 in
            Self.perform(start: t0, percent: percent, graces: false) + [PlayedEvent(pitch: 74, velocity: 80, time: t0 + 1.0, isOn: true)]
        }
        run.run()
        let flashes = run.actions.compactMap { if case .flashWrong(let p, _) = $0 { return p } else { return nil } }
        #expect(flashes == [74])
    }

    @Test(arguments: [false, true])
    func waitModeWaitsForTheMainNoteAndAcceptsTheGrace(playingGraces: Bool) throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...2
        let run = try ScriptedRun(lesson: Self.lesson(), plan: plan, mode: .wait)
        // Late at every note: the grace (when played) then the note, 0.3 s after its time.
        run.performer = { _, _, t0 in
            var out: [PlayedEvent] = []
            for i in 0..<8 {
                let t = t0 + Double(i) * 0.5 + 0.3 + Double(i) * 0.4
                if playingGraces && i == 4 {
                    out.append(PlayedEvent(pitch: 74, time: t - 0.1))
                    out.append(PlayedEvent(pitch: 74, velocity: 0, time: t - 0.05, isOn: false))
                }
                let p = CoachTests.rightPitches[i % 8]
                out.append(PlayedEvent(pitch: p, time: t))
                out.append(PlayedEvent(pitch: p, velocity: 0, time: t + 0.2, isOn: false))
            }
            return out
        }
        run.run()
        #expect(!run.actions.contains { if case .flashWrong = $0 { return true } else { return false } })
        let report = try #require(run.reports.first)
        #expect(report.hit == 8 && report.wrong == 0 && report.missed == 0)
    }

    @Test(arguments: [false, true])
    func playModeJudgesATrilledNoteAndAcceptsTheTrill(playingTheTrill: Bool) throws {
        let lesson = try Self.lesson(trill: true)
        #expect(lesson.notes.filter { lesson.isAccepted($0) }.count == 7 + 6)
        let run = try ScriptedRun(lesson: lesson, plan: CoachTests.rightHand, mode: .play)
        run.performer = { _, percent, t0 in
            var out = CoachTests.perform(start: t0, percent: percent).filter { !($0.pitch == 62 && $0.time < t0 + 0.9) }
            let beat = 0.5 / (percent / 100)
            // The D on beat 2, then (playing the trill) E D E D E D in 32nds.
            out.append(PlayedEvent(pitch: 62, velocity: 80, time: t0 + beat, isOn: true))
            out.append(PlayedEvent(pitch: 62, velocity: 0, time: t0 + beat + beat / 16, isOn: false))
            if playingTheTrill {
                for k in 1..<7 {
                    let t = t0 + beat + Double(k) * beat / 8
                    let p = k % 2 == 1 ? 64 : 62
                    out.append(PlayedEvent(pitch: p, velocity: 80, time: t, isOn: true))
                    out.append(PlayedEvent(pitch: p, velocity: 0, time: t + beat / 16, isOn: false))
                }
            }
            return out
        }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.hit == 32 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(!run.actions.contains { if case .flashWrong = $0 { return true } else { return false } })
    }

    @Test func waitModeTakesARolledChordStruckAtOnce() throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 2...2
        let run = try ScriptedRun(lesson: Self.lesson(roll: true), plan: plan, mode: .wait)
        run.performer = { _, _, t0 in
            var out: [PlayedEvent] = []
            for i in 0..<4 {
                let t = t0 + Double(i) * 0.9 + 0.3
                let keys = i == 0 ? [60, 64, 67] : [CoachTests.rightPitches[i + 4]]
                for p in keys { out.append(PlayedEvent(pitch: p, time: t)) }
                for p in keys { out.append(PlayedEvent(pitch: p, velocity: 0, time: t + 0.2, isOn: false)) }
            }
            return out
        }
        run.run()
        #expect(!run.actions.contains { if case .flashWrong = $0 { return true } else { return false } })
        let report = try #require(run.reports.first)
        #expect(report.hit == 6 && report.wrong == 0 && report.missed == 0)
    }
}
