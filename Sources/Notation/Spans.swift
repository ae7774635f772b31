import Lesson
import MIDIFile

/// What a score prints over a stretch of notes: a hairpin (`etude:hairpin`), a slur
/// (`etude:slur`) or a sustain pedal mark (the lesson's own CC64: a MusicXML `<pedal>`, a MIDI
/// file's pedal). One per system it crosses; `opens`/`closes` say whether it starts or ends in
/// this system (else it runs on from the one before or to the next).
public struct PlacedSpan: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case crescendo, diminuendo, slur, pedal
    }
    public var kind: Kind
    /// The staff it is drawn by (a pedal mark under the lower one).
    public var staff: Staff
    /// The whole span, in ticks (also in the systems it continues into).
    public var startTick: Int
    public var endTick: Int
    public var fromColumn: Int
    public var toColumn: Int
    public var opens: Bool
    public var closes: Bool
    /// Pedal changes (up and down again at once) inside, as columns.
    public var changes: [Int] = []
    /// Indices into `Lesson.bars` of the start and the end.
    public var barIndex: Int
    public var endBarIndex: Int
}

extension LayoutBuilder {
    /// The staff a track's marks are drawn by; nil when its notes are not drawn.
    func markStaff(track: Int) -> Staff? {
        let a = lesson.annotations
        switch a.hands[track] {
        case .right?: return .treble
        case .left?: return .bass
        case nil: return options.includeAccompaniment || a.hands.isEmpty ? .treble : nil
        }
    }

    /// Pass 13. Hairpins, slurs and pedal marks, cut at system breaks.
    func placeSpans(_ d: inout LayoutDraft) {
        var spans: [(kind: PlacedSpan.Kind, staff: Staff, start: Int, end: Int, changes: [Int])] = []
        for h in lesson.markedDynamics.hairpins {
            guard let staff = markStaff(track: h.track) else { continue }
            spans.append((h.kind == .crescendo ? .crescendo : .diminuendo, staff, h.startTick, h.endTick, []))
        }
        for (track, list) in lesson.annotations.slurs {
            guard let staff = markStaff(track: track) else { continue }
            var open: [Int] = []
            for s in list.enumerated().sorted(by: { ($0.element.tick, $0.element.start ? 1 : 0, $0.offset) < ($1.element.tick, $1.element.start ? 1 : 0, $1.offset) }).map(\.element) {
                if s.start { open.append(s.tick) } else if let start = open.popLast(), s.tick > start {
                    spans.append((.slur, staff, start, s.tick, []))
                }
            }
        }
        for p in pedalSpans() { spans.append((.pedal, .bass, p.start, p.end, p.changes)) }
        for s in spans where s.end > rangeStart && s.start < rangeEnd {
            let first = d.systemIndex(ofTick: max(s.start, rangeStart))
            // A slur's end is its last note's tick; a hairpin or pedal stops before its end tick.
            let last = d.systemIndex(ofTick: max(rangeStart, s.kind == .slur ? min(s.end, rangeEnd - 1) : min(s.end, rangeEnd) - 1))
            guard d.systems.indices.contains(first), d.systems.indices.contains(last), first <= last else { continue }
            for si in first...last {
                let system = d.systems[si]
                let opens = s.start >= system.startTick
                // A slur ends on its last note; a hairpin or pedal just before the tick it stops at.
                let closes = s.kind == .slur ? s.end < system.endTick : s.end <= system.endTick
                let end = system.bars.last?.endColumn ?? system.width - 1
                let from = opens ? column(s.start, in: system, cpq: d.cpq) : (system.bars.first?.lineColumn ?? 1) + 1
                var to = closes ? column(s.end, in: system, cpq: d.cpq) : end - 1
                if s.kind != .slur, closes { to -= 1 }
                to = max(from, min(to, end - 1))
                let changes = s.changes.filter { $0 >= system.startTick && $0 < system.endTick && $0 > s.start }.map { column($0, in: system, cpq: d.cpq) }
                d.systems[si].spans.append(PlacedSpan(kind: s.kind, staff: s.staff, startTick: s.start, endTick: s.end, fromColumn: from, toColumn: to,
                                                      opens: opens, closes: closes, changes: changes, barIndex: barIndex(atTick: s.start),
                                                      endBarIndex: barIndex(atTick: s.end)))
            }
        }
        for si in d.systems.indices {
            d.systems[si].spans.sort { ($0.startTick, $0.kind.rawValue, $0.endTick) < ($1.startTick, $1.kind.rawValue, $1.endTick) }
        }
    }

    /// The sustain pedal of the lesson (CC64 at or above 64 is down), as spans from down to up,
    /// with the changes (up and down again within a 32nd) inside them.
    func pedalSpans() -> [(start: Int, end: Int, changes: [Int])] {
        var out: [(start: Int, end: Int, changes: [Int])] = []
        var down: Int?
        var upAt: Int?
        var changes: [Int] = []
        let quick = max(1, tpq / 8)
        for e in lesson.channelEvents {
            guard case .controlChange(_, 64, let value) = e.kind else { continue }
            if value >= 64 {
                if let u = upAt, let start = down {
                    if e.tick - u <= quick {
                        changes.append(e.tick)
                        upAt = nil
                        continue
                    }
                    if u > start { out.append((start, u, changes)) }
                    down = nil
                }
                upAt = nil
                if down == nil {
                    down = e.tick
                    changes = []
                }
            } else if down != nil, upAt == nil {
                upAt = e.tick
            }
        }
        if let start = down {
            let end = upAt ?? lesson.endTick
            if end > start { out.append((start, end, changes)) }
        }
        return out
    }
}

extension Painter {
    /// Cells a span may take: blank ones, and bar lines it passes (left as they are).
    func spanFree(_ x: Int, _ y: Int) -> Bool {
        let ink = cell(x, y).ink
        return ink == .blank || ink == .barLine
    }

    mutating func spanCell(_ x: Int, _ y: Int, _ g: Unicode.Scalar, _ ink: Ink) {
        if cell(x, y).ink == .blank { put(x, y, g, ink) }
    }

    mutating func paintSpans() {
        for s in system.spans {
            switch s.kind {
            case .crescendo, .diminuendo: paintHairpin(s)
            case .slur: paintSlur(s)
            case .pedal: paintPedal(s)
            }
        }
    }

    /// A hairpin between the staves, in the rows dynamics take: `<───` or `───>` (on the compact
    /// staff `cresc.` / `dim.`), sharing a row with a mark at its start; else not drawn.
    mutating func paintHairpin(_ s: PlacedSpan) {
        let crescendo = s.kind == .crescendo
        for y in Painter.dynamicRows(s.staff, geometry: geometry, height: height) {
            var from = s.fromColumn
            while from <= s.toColumn, cell(from, y).ink == .dot { from += 1 }
            if from > s.fromColumn { from += 1 }
            let to = s.toColumn
            guard from <= to, to < lastColumn, (from...to).allSatisfy({ spanFree($0, y) }) else { continue }
            if density == .compact {
                let word = crescendo ? "cresc." : "dim."
                guard s.opens, from + word.unicodeScalars.count - 1 <= lastColumn - 1,
                      (0..<word.unicodeScalars.count).allSatisfy({ cell(from + $0, y).ink == .blank }) else { continue }
                text(word, x: from, y: y, .dot)
                return
            }
            for x in from...to {
                var g: Unicode.Scalar = "─"
                if crescendo, x == from, s.opens { g = "<" }
                if !crescendo, x == to, s.closes { g = ">" }
                spanCell(x, y, g, .dot)
            }
            return
        }
    }

    /// A slur as an arc over the upper staff's notes or under the lower one's (the other side
    /// when that has no room): `╭───╮` / `╰───╯` in the nearest rows free across its columns.
    mutating func paintSlur(_ s: PlacedSpan) {
        guard s.toColumn > s.fromColumn else { return }
        let trebleBottom = geometry.lineRow(.treble, step: 0), bassTop = geometry.lineRow(.bass, step: 8)
        let middle = (trebleBottom + bassTop) / 2
        let region = s.staff == .treble ? 1...max(1, middle) : min(height - 1, middle + 1)...max(middle + 1, height - 1)
        let columns = s.fromColumn...s.toColumn
        // The rows the notes take in the span's columns, inside the staff's region.
        let inked = region.filter { y in columns.contains { x in
            let ink = cell(x, y).ink
            return ink != .blank && ink != .staffLine && ink != .barLine && ink != .dot
        } }
        guard let top = inked.min(), let bottom = inked.max() else { return }
        let above = Array(stride(from: top - 1, through: region.lowerBound, by: -1))
        let below = bottom + 1 <= region.upperBound ? Array((bottom + 1)...region.upperBound) : []
        let sides = s.staff == .treble ? [(above, true), (below, false)] : [(below, false), (above, true)]
        for (rows, up) in sides {
            for y in rows where columns.allSatisfy({ spanFree($0, y) }) {
                for x in columns {
                    var g: Unicode.Scalar = "─"
                    if x == s.fromColumn, s.opens { g = up ? "╭" : "╰" }
                    if x == s.toColumn, s.closes { g = up ? "╮" : "╯" }
                    spanCell(x, y, g, .tie)
                }
                return
            }
        }
    }

    /// A pedal mark under the lower staff: `Ped──∧──┘` (`└` when `Ped` has no room), in the row
    /// the full staff keeps for it or a free row under the staff; else not drawn.
    mutating func paintPedal(_ s: PlacedSpan) {
        let bassBottom = geometry.lineRow(.bass, step: 0)
        let rows = geometry.pedalRow.map { [$0] } ?? (bassBottom + 1 < height ? Array(((bassBottom + 1)..<height).reversed()) : [])
        let columns = s.fromColumn...max(s.fromColumn, s.toColumn)
        for y in rows where columns.allSatisfy({ spanFree($0, y) }) {
            let changes = Set(s.changes)
            let firstChange = s.changes.min() ?? Int.max
            let word = s.opens && s.fromColumn + 3 < min(firstChange, s.toColumn + 1)
            for x in columns {
                var g: Unicode.Scalar = "─"
                if x == s.fromColumn, s.opens { g = "└" }
                if changes.contains(x) { g = "∧" }
                if x == s.toColumn, s.closes { g = "┘" }
                spanCell(x, y, g, .dot)
            }
            if word { text("Ped", x: s.fromColumn, y: y, .dot) }
            return
        }
    }
}
