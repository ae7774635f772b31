import Foundation
import Lesson
import MIDIFile

/// `etude score --json`: the placed symbols of a layout, one record per lesson note (its first
/// head; a tied continuation is counted in `ties`), plus the bars and systems, so other tools
/// (and tests) check positions without reading the drawing.
public struct ScoreDocument: Codable, Sendable, Equatable {
    public var title: String
    /// The key and time signature the score opens with, e.g. "E♭ major", "3/4".
    public var key: String
    public var keyEstimated: Bool
    public var time: String
    public var width: Int
    public var columnsPerQuarter: Double
    public var systems: [SystemRecord]
    public var notes: [NoteRecord]
    /// Dynamic marks the score prints, in time order.
    public var dynamics: [DynamicRecord] = []
    /// Hairpins, slurs and pedal marks, in time order, each once (where it starts).
    public var spans: [SpanRecord] = []

    public struct SpanRecord: Codable, Sendable, Equatable {
        /// "crescendo", "diminuendo", "slur" or "pedal".
        public var kind: String
        /// "treble"/"bass": the staff it is drawn by.
        public var staff: String
        /// Printed bar and quarters from its start, of the start and of the end.
        public var bar: Int
        public var beat: Double
        public var endBar: Int
        public var endBeat: Double
        public var tick: Int
        public var endTick: Int
        /// Pedal changes inside (up and down again at once).
        public var changes: Int
        /// Where it is drawn in the system it starts in.
        public var system: Int
        public var fromColumn: Int
        public var toColumn: Int
    }

    public struct DynamicRecord: Codable, Sendable, Equatable {
        /// Printed bar number, quarters from its start, "treble"/"bass", e.g. "mf".
        public var bar: Int
        public var beat: Double
        public var staff: String
        public var mark: String
        public var column: Int
        public var system: Int
        public var tick: Int
    }

    public struct SystemRecord: Codable, Sendable, Equatable {
        public var index: Int
        /// Printed numbers of its first and last bar.
        public var firstBar: Int
        public var lastBar: Int
        public var width: Int
        public var clefs: [String: String]
        public var key: String
        public var time: String
    }

    public struct NoteRecord: Codable, Sendable, Equatable {
        /// Printed bar number.
        public var bar: Int
        /// Quarters from the bar's start.
        public var beat: Double
        /// "treble" (upper staff) or "bass" (lower).
        public var staff: String
        public var clef: String
        /// 0 = the staff's bottom line, +1 per line or space up (as drawn, under any 8va mark).
        public var step: Int
        /// +1 under an 8va mark (sounds an octave above where it is drawn), −1 under 8vb, 0 none.
        public var ottava: Int
        /// "sharp", "flat", "natural", "double-sharp", "double-flat", or null when none is drawn.
        public var accidental: String?
        /// The written name, e.g. "F#", "Bb".
        public var spelling: String
        /// MIDI key number.
        public var pitch: Int
        /// "right", "left", or null (accompaniment).
        public var hand: String?
        public var finger: Int?
        /// Column of the head in its system's lines (0 = the first character of the line).
        public var column: Int
        public var system: Int
        /// "whole", "half", "quarter", "eighth", "16th"… of the first head, with its dots.
        public var value: String
        public var dots: Int
        /// The tuplet the first head is written in, e.g. "3:2" (a triplet), null for none.
        public var tuplet: String?
        /// Articulations and fermata printed on the note: "staccato", "staccatissimo", "accent",
        /// "marcato", "tenuto", "fermata" (empty for none).
        public var articulations: [String]
        /// Tied continuation heads after the first (at bar lines, or for lengths no single value writes).
        public var ties: Int
        /// Index into the lesson's notes, and its tick.
        public var note: Int
        public var tick: Int
        /// A grace note: "acciaccatura" (slashed, before the beat) or "appoggiatura" (on the
        /// beat); null for a note of the bar's time.
        public var grace: String? = nil

        enum CodingKeys: String, CodingKey {
            case bar, beat, staff, clef, step, ottava, accidental, spelling, pitch, hand, finger, column, system, value, dots, tuplet, articulations, ties, note, tick, grace
        }

        // Absent values are written as null, so every record has every key.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bar, forKey: .bar)
            try c.encode(beat, forKey: .beat)
            try c.encode(staff, forKey: .staff)
            try c.encode(clef, forKey: .clef)
            try c.encode(step, forKey: .step)
            try c.encode(ottava, forKey: .ottava)
            try c.encode(accidental, forKey: .accidental)
            try c.encode(spelling, forKey: .spelling)
            try c.encode(pitch, forKey: .pitch)
            try c.encode(hand, forKey: .hand)
            try c.encode(finger, forKey: .finger)
            try c.encode(column, forKey: .column)
            try c.encode(system, forKey: .system)
            try c.encode(value, forKey: .value)
            try c.encode(dots, forKey: .dots)
            try c.encode(tuplet, forKey: .tuplet)
            try c.encode(articulations, forKey: .articulations)
            try c.encode(ties, forKey: .ties)
            try c.encode(note, forKey: .note)
            try c.encode(tick, forKey: .tick)
            try c.encode(grace, forKey: .grace)
        }
    }

    public init(score: Score, lesson: Lesson) {
        title = TextDecoding.sanitize(lesson.title)
        let first = score.systems.first
        key = first?.key.name ?? MusicKey.cMajor.name
        keyEstimated = score.estimatedKey != nil
        time = first.map { "\($0.time.numerator)/\($0.time.denominator)" } ?? "4/4"
        width = score.options.width
        columnsPerQuarter = (score.columnsPerQuarter * 1000).rounded() / 1000
        systems = score.systems.map { s in
            SystemRecord(index: s.index, firstBar: s.bars.first?.displayNumber ?? 0, lastBar: s.bars.last?.displayNumber ?? 0,
                         width: s.width, clefs: Dictionary(uniqueKeysWithValues: s.clefs.map { ($0.key.rawValue, $0.value.rawValue) }),
                         key: s.key.name, time: "\(s.time.numerator)/\(s.time.denominator)")
        }
        var records: [NoteRecord] = []
        var ties: [Int: Int] = [:]
        for s in score.systems {
            for h in s.heads where h.tiedFromPrevious { ties[h.noteIndex, default: 0] += 1 }
        }
        let tpq = Double(max(1, score.ticksPerQuarter))
        for s in score.systems {
            let bars = Dictionary(s.bars.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
            for h in s.heads + s.graces where !h.tiedFromPrevious {
                let bar = bars[h.barIndex]
                let beat = Double(h.tick - (bar?.startTick ?? h.tick)) / tpq
                records.append(NoteRecord(
                    bar: bar?.displayNumber ?? 0, beat: (beat * 1000).rounded() / 1000, staff: h.staff.rawValue, clef: h.clef.rawValue,
                    step: h.step, ottava: h.ottava, accidental: h.accidental?.rawValue, spelling: h.spelling.name, pitch: h.pitch,
                    hand: h.hand?.rawValue, finger: h.finger, column: h.column, system: s.index, value: h.duration.value.name,
                    dots: h.duration.dots, tuplet: h.tuplet.map { "\($0.actual):\($0.normal)" },
                    articulations: h.articulations.map(\.rawValue), ties: ties[h.noteIndex] ?? 0, note: h.noteIndex, tick: h.tick,
                    grace: h.grace.map { $0 ? "acciaccatura" : "appoggiatura" }))
            }
        }
        records.sort { a, b in a.tick != b.tick ? a.tick < b.tick : (a.staff != b.staff ? a.staff == "treble" : a.pitch < b.pitch) }
        notes = records
        for s in score.systems {
            let bars = Dictionary(s.bars.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
            for m in s.dynamics {
                let bar = bars[m.barIndex]
                let beat = Double(m.tick - (bar?.startTick ?? m.tick)) / tpq
                dynamics.append(DynamicRecord(bar: bar?.displayNumber ?? 0, beat: (beat * 1000).rounded() / 1000, staff: m.staff.rawValue,
                                              mark: m.mark, column: m.column, system: s.index, tick: m.tick))
            }
        }
        let allBars = Dictionary(score.systems.flatMap { $0.bars.map { ($0.index, $0) } }, uniquingKeysWith: { a, _ in a })
        func place(_ tick: Int, _ index: Int) -> (bar: Int, beat: Double) {
            let bar = allBars[index]
            return (bar?.displayNumber ?? 0, (Double(tick - (bar?.startTick ?? tick)) / tpq * 1000).rounded() / 1000)
        }
        var seen = Set<String>()
        for s in score.systems {
            for p in s.spans where seen.insert("\(p.kind.rawValue):\(p.staff.rawValue):\(p.startTick):\(p.endTick)").inserted {
                let start = place(p.startTick, p.barIndex), end = place(p.endTick, p.endBarIndex)
                spans.append(SpanRecord(kind: p.kind.rawValue, staff: p.staff.rawValue, bar: start.bar, beat: start.beat, endBar: end.bar,
                                        endBeat: end.beat, tick: p.startTick, endTick: p.endTick, changes: p.changes.count, system: s.index,
                                        fromColumn: p.fromColumn, toColumn: p.toColumn))
            }
        }
    }

    /// The document as JSON text (keys sorted, so the output is stable).
    public func jsonText(pretty: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }
}
