import Foundation
import Lesson
import MIDIFile
import Testing

/// `MarkedDynamics`: the one reading of a score's dynamics that the staff draws and the ear judges by.
@Suite struct MarkedDynamicsTests {
    /// Two staves of quarter notes; `marks` are (track, tick, annotation).
    static func lesson(_ marks: [(Int, Int, Annotation)]) -> Lesson {
        var tracks: [Track] = []
        for t in 0..<2 {
            var events: [MIDIEvent] = [Annotation.hand(t == 0 ? .right : .left).event(tick: 0)]
            for (track, tick, a) in marks where track == t { events.append(a.event(tick: tick)) }
            for i in 0..<8 {
                events.append(MIDIEvent(tick: i * 480, .noteOn(channel: UInt8(t), key: UInt8(t == 0 ? 72 : 48), velocity: 80)))
                events.append(MIDIEvent(tick: i * 480 + 470, .noteOff(channel: UInt8(t), key: UInt8(t == 0 ? 72 : 48), velocity: 0)))
            }
            events.sort { $0.tick < $1.tick }
            events.append(MIDIEvent(tick: 3840, .meta(type: MetaType.endOfTrack, data: [])))
            tracks.append(Track(events: events))
        }
        return Lesson(file: MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: tracks), fileName: "marks.mid")
    }

    @Test func noMarksNoDynamics() {
        let m = Self.lesson([]).markedDynamics
        #expect(m.isEmpty && m.at(track: 0, tick: 0) == nil)
    }

    @Test func aMarkOnEitherStaffCountsForBothAndAStaffsOwnWinsAtOneTick() {
        let m = Self.lesson([(0, 0, .dynamic("p")), (0, 1920, .dynamic("f"))]).markedDynamics
        #expect(m.at(track: 0, tick: 0)?.name == "p" && m.at(track: 1, tick: 480)?.velocity == DynamicLevel.velocity(of: "p"))
        #expect(m.at(track: 1, tick: 2400)?.name == "f")
        let own = Self.lesson([(0, 0, .dynamic("p")), (1, 0, .dynamic("f"))]).markedDynamics
        #expect(own.at(track: 0, tick: 960)?.name == "p" && own.at(track: 1, tick: 960)?.name == "f")
        // A later mark on the other staff counts (MusicXML plays a part's marks on both staves).
        let later = Self.lesson([(0, 0, .dynamic("p")), (1, 960, .dynamic("f"))]).markedDynamics
        #expect(later.at(track: 0, tick: 1440)?.name == "f")
        // An accent mark names its note but leaves the level alone.
        let sfz = Self.lesson([(0, 0, .dynamic("p")), (0, 960, .dynamic("sfz"))]).markedDynamics
        #expect(sfz.at(track: 0, tick: 960) == .init(name: "sfz", velocity: 49, hairpin: nil))
        #expect(sfz.at(track: 0, tick: 1440)?.name == "p")
    }

    @Test func aCrescendoRisesEvenlyToTheMarkAtItsEnd() {
        let m = Self.lesson([(0, 0, .dynamic("p")), (0, 0, .hairpin(.crescendo)), (0, 1920, .hairpin(.stop)), (0, 1920, .dynamic("f"))]).markedDynamics
        #expect(m.hairpins == [.init(track: 0, startTick: 0, endTick: 1920, kind: .crescendo)])
        let levels = (0..<5).compactMap { m.at(track: 0, tick: $0 * 480)?.velocity }
        #expect(levels == [49, 61, 73, 84, 96])
        #expect(m.at(track: 0, tick: 480)?.name == "cresc" && m.at(track: 0, tick: 480)?.hairpin == .crescendo)
        #expect(m.at(track: 0, tick: 1920)?.name == "f" && m.at(track: 0, tick: 1920)?.hairpin == nil)
    }

    @Test func aHairpinWithNoMarkAtItsEndMovesTheLevelAndStays() {
        let m = Self.lesson([(0, 0, .dynamic("f")), (0, 0, .hairpin(.diminuendo)), (0, 1920, .hairpin(.stop))]).markedDynamics
        #expect(m.at(track: 0, tick: 960)?.velocity == 96 - DynamicLevel.hairpinSpan / 2)
        #expect(m.at(track: 0, tick: 2400) == .init(name: "f", velocity: 96 - DynamicLevel.hairpinSpan, hairpin: nil, hairpinShift: -DynamicLevel.hairpinSpan))
        // Only a hairpin, never stopped: it runs to the end; the level starts at mf.
        let open = Self.lesson([(1, 960, .hairpin(.crescendo))]).markedDynamics
        #expect(!open.isEmpty && open.hairpins.first?.endTick == 3840)
        #expect(open.at(track: 0, tick: 0)?.velocity == MarkedDynamics.unmarkedVelocity)
        #expect(open.at(track: 0, tick: 1920)?.name == "cresc")
    }
}
