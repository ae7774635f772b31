import Foundation
import Lesson
import MIDIFile
@testable import Notation

/// Lessons built in code (every test states the music it feeds in) and the built-in ones.
enum Music {
    static let tpq = 480
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A built-in lesson under Lessons/, read from its .mid.
    static func builtIn(_ relative: String) throws -> Lesson {
        let url = root.appendingPathComponent("Lessons").appendingPathComponent(relative)
        let data = try Data(contentsOf: url)
        return try Lesson(bytes: [UInt8](data), fileName: url.lastPathComponent)
    }

    /// A note of a hand: pitch, start and length in quarters, optional finger and spelling.
    struct N {
        var pitch: Int
        var at: Double
        var length: Double
        var finger: Int? = nil
        var spell: String? = nil
    }

    /// A two-track piano lesson ("Right Hand", "Left Hand") with the given signatures and
    /// annotations (clef changes per hand as (quarter, clef)).
    static func lesson(right: [N] = [], left: [N] = [], time: (Int, Int) = (4, 4), keys: [(at: Double, sharps: Int, minor: Bool)] = [(0, 0, false)],
                       timeChanges: [(at: Double, n: Int, d: Int)] = [], clefs: [(hand: String, at: Double, clef: Clef)] = [],
                       printedBars: [(at: Double, number: Int)] = [], ottavas: [(hand: String, at: Double, octaves: Int)] = []) -> Lesson {
        func ticks(_ q: Double) -> Int { Int((q * Double(tpq)).rounded()) }
        var conductor: [MIDIEvent] = []
        func sig(_ n: Int, _ d: Int, _ tick: Int) -> MIDIEvent {
            var power = 0
            while 1 << power < d { power += 1 }
            return MIDIEvent(tick: tick, .meta(type: MetaType.timeSignature, data: [UInt8(n), UInt8(power), 24, 8]))
        }
        conductor.append(sig(time.0, time.1, 0))
        for t in timeChanges { conductor.append(sig(t.n, t.d, ticks(t.at))) }
        for k in keys {
            conductor.append(MIDIEvent(tick: ticks(k.at), .meta(type: MetaType.keySignature, data: KeySignature(sharps: k.sharps, minor: k.minor).bytes)))
        }
        for b in printedBars { conductor.append(Annotation.bar(b.number).event(tick: ticks(b.at))) }
        func track(_ name: String, hand: String, channel: UInt8, _ notes: [N]) -> Track {
            var events: [(Int, Int, MIDIEvent)] = [(0, 0, MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8))))]
            for c in clefs where c.hand == hand { events.append((ticks(c.at), 1, Annotation.clef(c.clef).event(tick: ticks(c.at)))) }
            for o in ottavas where o.hand == hand { events.append((ticks(o.at), 1, Annotation.ottava(o.octaves).event(tick: ticks(o.at)))) }
            for n in notes {
                let s = ticks(n.at), e = ticks(n.at + n.length)
                if let f = n.finger { events.append((s, 2, Fingering.event(tick: s, pitch: n.pitch, finger: f))) }
                if let sp = n.spell, let spelled = SpelledPitch(name: sp) {
                    events.append((s, 2, Annotation.spelling(pitch: n.pitch, spelled).event(tick: s)))
                }
                events.append((s, 3, MIDIEvent(tick: s, .noteOn(channel: channel, key: UInt8(n.pitch), velocity: 80))))
                events.append((e, 0, MIDIEvent(tick: e, .noteOff(channel: channel, key: UInt8(n.pitch), velocity: 0))))
            }
            events.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return Track(events: events.map(\.2))
        }
        var tracks = [Track(events: conductor.sorted { $0.tick < $1.tick })]
        if !right.isEmpty || left.isEmpty { tracks.append(track("Right Hand", hand: "right", channel: 0, right)) }
        if !left.isEmpty { tracks.append(track("Left Hand", hand: "left", channel: 1, left)) }
        return Lesson(file: MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: tracks), fileName: "test.mid")
    }

    /// Notes one after another, each a quarter long (or `length`), from quarter `from`.
    static func line(_ pitches: [Int], from: Double = 0, length: Double = 1) -> [N] {
        pitches.enumerated().map { N(pitch: $0.element, at: from + Double($0.offset) * length, length: length) }
    }

    /// The heads of every system, in order (first heads of notes only unless `ties`).
    static func heads(_ score: Score, ties: Bool = false) -> [PlacedHead] {
        score.systems.flatMap(\.heads).filter { ties || !$0.tiedFromPrevious }.sorted { a, b in
            a.tick != b.tick ? a.tick < b.tick : (a.staff != b.staff ? a.staff == .treble : a.pitch < b.pitch)
        }
    }
}
