import Lesson
import MIDIFile

/// Lays a lesson out on the grand staff. Pure: the same lesson and options give the same score,
/// so it is computed once per lesson and width and kept.
///
/// What it decides, in order: which staff a note goes on (its hand: right on the upper staff,
/// left on the lower; accompaniment, when asked for, by register), the written values (ticks
/// snapped to the piece's own grid, split at bar lines and into plain or dotted values with
/// ties), rests where a staff is silent, the spelling (the file's, else `Speller`), the clef
/// (the file's clef changes for that staff, else treble over bass), the staff step, 8va/8vb
/// where a chord would need more than `maxLedgerLines` ledger lines, accidentals as a bar needs
/// them, seconds side by side, stems and beams, and the columns: proportional to time, the
/// same scale in every bar, whole bars to a system.
public enum ScoreLayout {
    public static func layout(_ lesson: Lesson, options: NotationOptions = NotationOptions()) -> Score {
        var builder = LayoutBuilder(lesson: lesson, options: options)
        return builder.build()
    }

    /// The written values a length is split into (longest first; dotted values count), for
    /// notes and rests alike: a half tied to an eighth for five eighths.
    public static func values(forTicks ticks: Int, tpq: Int) -> [NoteDuration] {
        var out: [NoteDuration] = []
        var left = ticks
        let smallest = NoteDuration(.sixtyFourth).ticks(tpq: tpq)
        while left > 0 {
            guard let d = LayoutBuilder.candidates.first(where: { let t = $0.ticks(tpq: tpq); return t > 0 && t <= left }) else {
                // Shorter than the shortest value (a grid finer than 64ths): the last head takes it.
                if out.isEmpty { out.append(NoteDuration(.sixtyFourth)) }
                break
            }
            out.append(d)
            left -= d.ticks(tpq: tpq)
            if left < smallest { break }
        }
        return out
    }
}

/// A lesson note with what the layout decided about it.
struct NoteInfo {
    var index: Int
    var staff: Staff
    var start: Int
    var end: Int
    var pitch: Int
    var startTick: Int
    var spelling: SpelledPitch
    var diatonic: Int
    var finger: Int?
    var hand: Hand?
}

/// One head to write: a note's value at a tick (a long note makes several, tied).
struct HeadEvent {
    var note: Int
    var tick: Int
    var duration: NoteDuration
    var ticks: Int
    var tiedFrom: Bool
    var tiesTo: Bool
}

struct LayoutBuilder {
    let lesson: Lesson
    let options: NotationOptions
    let tpq: Int
    let bars: [Bar]
    /// Indices into `lesson.bars.bars` laid out.
    let barRange: Range<Int>
    var estimatedKey: MusicKey?

    static let candidates: [NoteDuration] = {
        var out: [NoteDuration] = []
        for v in NoteValue.allCases {
            if v != .sixtyFourth { out.append(NoteDuration(v, dots: 1)) }
            out.append(NoteDuration(v))
        }
        return out
    }()

    init(lesson: Lesson, options: NotationOptions) {
        self.lesson = lesson
        self.options = options
        tpq = max(1, lesson.ticksPerQuarter)
        bars = lesson.bars.bars
        if let wanted = options.bars {
            let first = bars.firstIndex { $0.number >= wanted.lowerBound } ?? bars.count
            let last = bars.lastIndex { $0.number <= wanted.upperBound } ?? -1
            barRange = first <= last ? first..<(last + 1) : 0..<0
        } else {
            barRange = 0..<bars.count
        }
    }

    var rangeStart: Int { barRange.isEmpty ? 0 : bars[barRange.lowerBound].startTick }
    var rangeEnd: Int { barRange.isEmpty ? 0 : bars[barRange.upperBound - 1].endTick }

    func key(atTick tick: Int) -> MusicKey {
        if let k = lesson.keySignature(atTick: tick) { return MusicKey(k) }
        if let first = lesson.keySignatures.first { return MusicKey(first.value) }
        return estimatedKey ?? .cMajor
    }

    // MARK: - Build

    mutating func build() -> Score {
        if lesson.keySignatures.isEmpty {
            let weighted = lesson.notes.filter { $0.channel != 9 }.map { (pitch: Int($0.pitch), weight: Double(max(1, $0.endTick - $0.startTick))) }
            let hasSpelling = !lesson.annotations.spellings.isEmpty
            estimatedKey = weighted.isEmpty || hasSpelling ? nil : Speller.estimateKey(pitches: weighted)
        }
        var notes = collectNotes()
        spell(&notes)
        var events: [Staff: [HeadEvent]] = [:]
        for staff in Staff.allCases {
            events[staff] = headEvents(notes.indices.filter { notes[$0].staff == staff }, notes: notes)
        }
        let cpq = columnsPerQuarter(notes: notes)
        return place(notes: notes, events: events, cpq: cpq)
    }

    /// The notes laid out, quantized, with their staff; sorted by start then pitch.
    func collectNotes() -> [NoteInfo] {
        guard !barRange.isEmpty else { return [] }
        let wanted = lesson.notes.indices.filter { i in
            let n = lesson.notes[i]
            guard n.channel != 9 else { return false }
            if n.part.hand == nil && !options.includeAccompaniment { return false }
            return n.startTick < rangeEnd && n.endTick > rangeStart && n.startTick >= rangeStart
        }
        let grid = LayoutBuilder.grid(onsets: wanted.map { lesson.notes[$0].startTick }, tpq: tpq)
        func snap(_ t: Int) -> Int { ((t + grid / 2) / grid) * grid }
        var out: [NoteInfo] = []
        out.reserveCapacity(wanted.count)
        for i in wanted {
            let n = lesson.notes[i]
            let staff: Staff
            switch n.part {
            case .hand(.right): staff = .treble
            case .hand(.left): staff = .bass
            case .accompaniment: staff = n.pitch >= 60 ? .treble : .bass
            }
            let start = max(rangeStart, min(snap(n.startTick), rangeEnd - 1))
            let end = min(rangeEnd, max(start + grid, snap(n.endTick)))
            let finger = options.showFingering ? lesson.finger(of: n) : nil
            out.append(NoteInfo(index: i, staff: staff, start: start, end: end, pitch: Int(n.pitch), startTick: n.startTick,
                                spelling: SpelledPitch(letter: 0, alter: 0), diatonic: 0, finger: finger, hand: n.part.hand))
        }
        out.sort { a, b in a.start != b.start ? a.start < b.start : (a.pitch != b.pitch ? a.pitch < b.pitch : a.index < b.index) }
        return out
    }

    /// The coarsest grid (quarter, eighth, triplet eighth, sixteenth…) nearly every onset lies on.
    static func grid(onsets: [Int], tpq: Int) -> Int {
        let candidates = [tpq, tpq / 2, tpq / 3, tpq / 4, tpq / 6, tpq / 8, tpq / 12, tpq / 16, tpq / 32].filter { $0 > 0 }
        guard !onsets.isEmpty else { return candidates.first ?? 1 }
        let tolerance = max(0, tpq / 48)
        for g in candidates {
            var on = 0
            for o in onsets {
                let r = ((o % g) + g) % g
                if min(r, g - r) <= tolerance { on += 1 }
            }
            if Double(on) >= 0.95 * Double(onsets.count) { return g }
        }
        return candidates.last ?? 1
    }

    /// Spellings: the file's when it gives one that fits the key number, else `Speller` with
    /// the line's direction and the chord's letters.
    func spell(_ notes: inout [NoteInfo]) {
        // Onsets per staff, for the direction each line takes.
        var onsetsByStaff: [[(start: Int, members: [Int])]] = [[], []]
        for (i, n) in notes.enumerated() {
            let s = n.staff == .treble ? 0 : 1
            if let last = onsetsByStaff[s].last, last.start == n.start {
                onsetsByStaff[s][onsetsByStaff[s].count - 1].members.append(i)
            } else {
                onsetsByStaff[s].append((n.start, [i]))
            }
        }
        for onsets in onsetsByStaff {
            for (k, onset) in onsets.enumerated() {
                let key = self.key(atTick: notes[onset.members[0]].start)
                var letters = Set<Int>()
                var pending: [Int] = []
                for i in onset.members {
                    let note = lesson.notes[notes[i].index]
                    if let s = lesson.spelling(of: note), s.octave(forPitch: notes[i].pitch) != nil {
                        notes[i].spelling = s
                        letters.insert(s.letter)
                    } else if let letter = key.diatonicLetter(of: ((notes[i].pitch % 12) + 12) % 12) {
                        notes[i].spelling = SpelledPitch(letter: letter, alter: key.alter(ofLetter: letter))
                        letters.insert(letter)
                    } else {
                        pending.append(i)
                    }
                }
                for i in pending {
                    let p = notes[i].pitch
                    var direction = Speller.Direction.none
                    var j = k + 1
                    while j < onsets.count, j <= k + 4 {
                        let nearest = onsets[j].members.map { notes[$0].pitch }.min { abs($0 - p) < abs($1 - p) } ?? p
                        if nearest != p {
                            direction = nearest > p ? .up : .down
                            break
                        }
                        j += 1
                    }
                    let s = Speller.spell(pitch: p, key: key, direction: direction, chordLetters: letters)
                    notes[i].spelling = s
                    letters.insert(s.letter)
                }
            }
        }
        for i in notes.indices {
            notes[i].diatonic = notes[i].spelling.diatonic(forPitch: notes[i].pitch) ?? (notes[i].pitch / 12 - 1) * 7
        }
    }

    /// Index into `bars` of the bar holding a tick.
    func barIndex(atTick tick: Int) -> Int {
        var lo = barRange.lowerBound, hi = barRange.upperBound - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if bars[mid].startTick <= tick { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The heads of one staff: each note split at bar lines and into written values.
    func headEvents(_ members: [Int], notes: [NoteInfo]) -> [HeadEvent] {
        var out: [HeadEvent] = []
        for i in members {
            let n = notes[i]
            var t = n.start
            var pieces: [(Int, NoteDuration, Int)] = []
            while t < n.end {
                let bar = bars[barIndex(atTick: t)]
                let segmentEnd = min(n.end, max(bar.endTick, t + 1))
                for d in ScoreLayout.values(forTicks: segmentEnd - t, tpq: tpq) {
                    let ticks = d.ticks(tpq: tpq)
                    pieces.append((t, d, ticks))
                    t += max(1, ticks)
                    if t >= segmentEnd { break }
                }
                t = max(t, segmentEnd)
            }
            for (k, p) in pieces.enumerated() {
                out.append(HeadEvent(note: i, tick: p.0, duration: p.1, ticks: p.2, tiedFrom: k > 0, tiesTo: k < pieces.count - 1))
            }
        }
        out.sort { a, b in a.tick != b.tick ? a.tick < b.tick : (notes[a.note].pitch != notes[b.note].pitch ? notes[a.note].pitch < notes[b.note].pitch : a.note < b.note) }
        return out
    }

    /// Columns per quarter: room for an accidental, a head and a finger at the closest onsets
    /// that matter, two bars to a line where that fits, never a bar wider than the width.
    func columnsPerQuarter(notes: [NoteInfo]) -> Double {
        guard !barRange.isEmpty else { return 4 }
        var onsets = Array(Set(notes.map(\.start))).sorted()
        if onsets.isEmpty { onsets = [rangeStart] }
        var gaps: [Int] = []
        for k in 1..<max(1, onsets.count) where k < onsets.count {
            let a = onsets[k - 1], b = onsets[k]
            // A gap across a bar line is measured to the bar line (the next bar has its own room).
            let bar = bars[barIndex(atTick: a)]
            gaps.append(min(b, bar.endTick) - a)
        }
        gaps.sort()
        let shortest = gaps.isEmpty ? tpq : max(1, gaps[min(gaps.count - 1, gaps.count / 50)])
        let g = Double(shortest) / Double(tpq)
        let barQuarters = barRange.map { Double(bars[$0].lengthTicks) / Double(tpq) }
        let longest = barQuarters.max() ?? 4
        var counts: [Double: Int] = [:]
        for q in barQuarters { counts[q, default: 0] += 1 }
        let typical = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key < b.key }?.key ?? 4
        let maxKey = barRange.map { abs(key(atTick: bars[$0].startTick).sharps) }.max() ?? 0
        let prefix = Double(LayoutBuilder.prefixWidth(keyAccidentals: maxKey, time: lesson.timeSignature(atTick: rangeStart)))
        let width = Double(max(NotationOptions.minimumWidth, options.width))
        let need = 3.0 / g
        let tight = 2.0 / g
        let twoBars = (width - prefix - 6) / (2 * max(0.25, typical))
        let oneBar = (width - prefix - 4) / max(0.25, longest)
        var cpq = max(2.0, need)
        if cpq > twoBars { cpq = max(tight, twoBars) }
        cpq = min(cpq, oneBar, 16)
        return max(0.5, cpq)
    }

    /// Columns a system's opening takes: brace, line, clef, key signature, time signature.
    static func prefixWidth(keyAccidentals: Int, time: TimeSignature) -> Int {
        let keyWidth = keyAccidentals > 0 ? keyAccidentals + 1 : 0
        return 4 + keyWidth + timeWidth(time) + 1
    }

    static func timeWidth(_ t: TimeSignature) -> Int {
        max(String(t.numerator).count, String(t.denominator).count)
    }

    // MARK: - Placing

    func clefChanges(for staff: Staff) -> [(tick: Int, clef: Clef)] {
        let ann = lesson.annotations
        guard !ann.clefs.isEmpty else { return [] }
        let hand: HandTag = staff == .treble ? .right : .left
        var tracks = Set(ann.hands.filter { $0.value == hand }.map(\.key))
        if tracks.isEmpty {
            let own: Hand = staff == .treble ? .right : .left
            tracks = Set(lesson.notes.filter { $0.part.hand == own }.map(\.track))
        }
        var changes: [(tick: Int, clef: Clef)] = []
        for t in tracks.sorted() { changes += ann.clefs[t] ?? [] }
        changes.sort { $0.tick < $1.tick }
        var out: [(tick: Int, clef: Clef)] = []
        for c in changes {
            let clef = c.clef == .percussion ? staff.defaultClef : c.clef
            if let last = out.last, last.tick == c.tick { out[out.count - 1] = (c.tick, clef) } else { out.append((c.tick, clef)) }
        }
        return out
    }

    static func clef(at tick: Int, in changes: [(tick: Int, clef: Clef)], default d: Clef) -> Clef {
        var c = d
        for change in changes {
            if change.tick <= tick { c = change.clef } else { break }
        }
        return c
    }

    func place(notes: [NoteInfo], events: [Staff: [HeadEvent]], cpq: Double) -> Score {
        let clefLists = Dictionary(uniqueKeysWithValues: Staff.allCases.map { ($0, clefChanges(for: $0)) })
        func clef(_ staff: Staff, _ tick: Int) -> Clef {
            LayoutBuilder.clef(at: tick, in: clefLists[staff] ?? [], default: staff.defaultClef)
        }

        // Chords per staff: heads grouped by tick, with drawn steps, ottava and stems.
        struct ChordDraft {
            var staff: Staff
            var tick: Int
            var heads: [HeadEvent]
            var steps: [Int]
            var ottava: Int
            var duration: NoteDuration
            var stemUp: Bool
            var beamGroup: Int?
        }
        var drafts: [Staff: [ChordDraft]] = [:]
        let limitAbove = 8 + 2 * max(0, options.maxLedgerLines) + 1
        let limitBelow = -(2 * max(0, options.maxLedgerLines) + 1)
        for staff in Staff.allCases {
            var list: [ChordDraft] = []
            for e in events[staff] ?? [] {
                let c = clef(staff, e.tick)
                let step = notes[e.note].diatonic - c.bottomLineDiatonic
                if let last = list.last, last.tick == e.tick {
                    list[list.count - 1].heads.append(e)
                    list[list.count - 1].steps.append(step)
                } else {
                    list.append(ChordDraft(staff: staff, tick: e.tick, heads: [e], steps: [step], ottava: 0,
                                           duration: e.duration, stemUp: true, beamGroup: nil))
                }
            }
            // 8va / 8vb: a chord beyond the ledger limit moves an octave (two if need be); its
            // neighbours (within a whole note) still high or low join the run, so the mark does
            // not flicker on and off.
            for k in list.indices {
                let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                if hi > limitAbove { list[k].ottava = hi - 7 > limitAbove ? 2 : 1 }
                else if lo < limitBelow { list[k].ottava = lo + 7 < limitBelow ? -2 : -1 }
            }
            var changed = true
            while changed {
                changed = false
                for k in list.indices where list[k].ottava == 0 {
                    for n in [k - 1, k + 1] where list.indices.contains(n) && list[n].ottava != 0 && abs(list[n].tick - list[k].tick) < 4 * tpq {
                        let dir = list[n].ottava > 0 ? 1 : -1
                        let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                        if dir > 0, hi >= 12, lo - 7 >= -4 { list[k].ottava = 1; changed = true; break }
                        if dir < 0, lo <= -4, hi + 7 <= 12 { list[k].ottava = -1; changed = true; break }
                    }
                }
            }
            for k in list.indices {
                let shift = 7 * list[k].ottava
                list[k].steps = list[k].steps.map { $0 - shift }
                list[k].duration = list[k].heads.map(\.duration).min { a, b in a.ticks(tpq: tpq) < b.ticks(tpq: tpq) } ?? list[k].duration
                let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                list[k].stemUp = hi + lo < 8
            }
            drafts[staff] = list
        }

        // Beams: neighbouring flagged chords of one beat, with no rest between them.
        var nextGroup = 0
        for staff in Staff.allCases {
            guard var list = drafts[staff] else { continue }
            var k = 0
            while k < list.count {
                guard list[k].duration.value.flags > 0 else { k += 1; continue }
                let bar = bars[barIndex(atTick: list[k].tick)]
                let beat = LayoutBuilder.beamSpan(bar)
                let beatIndex = (list[k].tick - bar.downbeatTick) / beat
                var end = k
                while end + 1 < list.count {
                    let a = list[end], b = list[end + 1]
                    guard b.duration.value.flags > 0, a.tick + a.duration.ticks(tpq: tpq) == b.tick,
                          barIndex(atTick: b.tick) == barIndex(atTick: list[k].tick),
                          (b.tick - bar.downbeatTick) / beat == beatIndex else { break }
                    end += 1
                }
                if end > k {
                    let allSteps = list[k...end].flatMap(\.steps)
                    let hi = allSteps.max() ?? 0, lo = allSteps.min() ?? 0
                    let up = hi + lo < 8
                    for m in k...end {
                        list[m].beamGroup = nextGroup
                        list[m].stemUp = up
                    }
                    nextGroup += 1
                }
                k = end + 1
            }
            drafts[staff] = list
        }

        // Rests where a staff is silent, per bar.
        var rests: [Staff: [(tick: Int, duration: NoteDuration, wholeBar: Bool)]] = [:]
        for staff in Staff.allCases {
            var sounding: [(Int, Int)] = notes.filter { $0.staff == staff }.map { ($0.start, $0.end) }
            sounding.sort { $0.0 < $1.0 }
            var merged: [(Int, Int)] = []
            for s in sounding {
                if let last = merged.last, s.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, s.1) } else { merged.append(s) }
            }
            var out: [(tick: Int, duration: NoteDuration, wholeBar: Bool)] = []
            var m = 0
            for bi in barRange {
                let bar = bars[bi]
                var gaps: [(Int, Int)] = []
                var t = bar.startTick
                while m < merged.count, merged[m].1 <= bar.startTick { m += 1 }
                var j = m
                while j < merged.count, merged[j].0 < bar.endTick {
                    if merged[j].0 > t { gaps.append((t, merged[j].0)) }
                    t = max(t, merged[j].1)
                    j += 1
                }
                if t < bar.endTick { gaps.append((t, bar.endTick)) }
                if gaps.count == 1, gaps[0].0 == bar.startTick, gaps[0].1 == bar.endTick {
                    out.append((bar.startTick, NoteDuration(.whole), true))
                    continue
                }
                for (a, b) in gaps {
                    var s = a
                    // First up to the next beat, then the longest values that fit.
                    let beat = max(1, bar.beatTicks)
                    let intoBeat = ((s - bar.downbeatTick) % beat + beat) % beat
                    if intoBeat != 0 {
                        let toBeat = min(b, s + beat - intoBeat)
                        for d in ScoreLayout.values(forTicks: toBeat - s, tpq: tpq) {
                            out.append((s, d, false))
                            s += max(1, d.ticks(tpq: tpq))
                        }
                        s = toBeat
                    }
                    if s < b {
                        for d in ScoreLayout.values(forTicks: b - s, tpq: tpq) {
                            out.append((s, d, false))
                            s += max(1, d.ticks(tpq: tpq))
                            if s >= b { break }
                        }
                    }
                }
            }
            rests[staff] = out
        }

        // Systems: whole bars, as many as the width takes.
        var systems: [PlacedSystem] = []
        var bi = barRange.lowerBound
        let width = max(NotationOptions.minimumWidth, options.width)
        func cols(_ ticks: Int) -> Int { Int((Double(ticks) * cpq / Double(tpq)).rounded()) }
        while bi < barRange.upperBound {
            let startBar = bars[bi]
            let key = self.key(atTick: startBar.startTick)
            let time = startBar.signature
            var clefs: [Staff: Clef] = [:]
            for s in Staff.allCases { clefs[s] = clef(s, startBar.startTick) }
            let keyWidth = key.sharps != 0 ? abs(key.sharps) + 1 : 0
            let clefColumn = 2
            let keyColumn = 4
            let timeColumn = keyColumn + keyWidth
            let prefixEnd = timeColumn + LayoutBuilder.timeWidth(time) + 1
            var system = PlacedSystem(index: systems.count, bars: [], clefs: clefs, key: key, time: time, clefColumn: clefColumn,
                                      keyColumn: keyColumn, timeColumn: timeColumn, width: 0, heads: [], chords: [], rests: [],
                                      clefChanges: [], ottavas: [])
            var x = prefixEnd
            var barKey = key, barTime = time, barClefs = clefs
            while bi < barRange.upperBound {
                let bar = bars[bi]
                let first = system.bars.isEmpty
                let k = self.key(atTick: bar.startTick)
                var keyChange: MusicKey?, previous: MusicKey?, timeChange: TimeSignature?
                var clefChange: [Staff: Clef] = [:]
                var changeWidth = 0
                if !first {
                    if k != barKey {
                        keyChange = k
                        previous = barKey
                        changeWidth += LayoutBuilder.cancellations(from: barKey, to: k).count + abs(k.sharps) + 1
                    }
                    if bar.signature != barTime, !bar.isPickup {
                        timeChange = bar.signature
                        changeWidth += LayoutBuilder.timeWidth(bar.signature) + 1
                    }
                    for s in Staff.allCases {
                        let c = clef(s, bar.startTick)
                        if c != barClefs[s] { clefChange[s] = c }
                    }
                    if !clefChange.isEmpty { changeWidth += 3 }
                }
                let lineColumn = first ? 1 : x
                let contentColumn = (first ? x : x + 1 + changeWidth) + 1
                let endColumn = contentColumn + max(2, cols(bar.lengthTicks))
                if !first, endColumn + 1 > width { break }
                system.bars.append(PlacedBar(index: bi, number: bar.number, displayNumber: BarNumbering.displayNumber(of: bar, in: lesson),
                                             startTick: bar.startTick, endTick: bar.endTick, lineColumn: lineColumn,
                                             contentColumn: contentColumn, endColumn: endColumn, keyChange: keyChange,
                                             previousKey: previous, timeChange: timeChange, clefChanges: clefChange))
                barKey = k
                barTime = bar.isPickup ? barTime : bar.signature
                for (s, c) in clefChange { barClefs[s] = c }
                x = endColumn
                bi += 1
            }
            system.width = x + 1
            systems.append(system)
        }

        // Heads, chords, rests and clef changes into their systems.
        let noteStart = Dictionary(notes.map { ($0.index, $0.startTick) }, uniquingKeysWith: { a, _ in a })
        var extents: [Staff: ClosedRange<Int>] = [.treble: 0...8, .bass: 0...8]
        func systemIndex(ofTick tick: Int) -> Int {
            var lo = 0, hi = systems.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if systems[mid].startTick <= tick { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }
        func column(_ tick: Int, in system: PlacedSystem) -> Int {
            let bar = system.bars.last { $0.startTick <= tick } ?? system.bars[0]
            return bar.contentColumn + cols(tick - bar.startTick)
        }
        var accidentals: [Staff: AccidentalState] = [:]
        var accidentalBar: [Staff: Int] = [:]
        guard !systems.isEmpty else {
            return Score(title: lesson.title, options: options, ticksPerQuarter: tpq, columnsPerQuarter: cpq, systems: [],
                         estimatedKey: estimatedKey, extents: extents)
        }
        for staff in Staff.allCases {
            for draft in drafts[staff] ?? [] {
                let si = systemIndex(ofTick: draft.tick)
                let c = column(draft.tick, in: systems[si])
                let barIdx = barIndex(atTick: draft.tick)
                let bar = bars[barIdx]
                if accidentalBar[staff] != barIdx {
                    var state = accidentals[staff] ?? AccidentalState(key: key(atTick: bar.startTick))
                    state.newBar(key: key(atTick: bar.startTick))
                    accidentals[staff] = state
                    accidentalBar[staff] = barIdx
                }
                // Lowest step first; a head a second above an undisplaced one goes right.
                let order = draft.heads.indices.sorted { draft.steps[$0] != draft.steps[$1] ? draft.steps[$0] < draft.steps[$1] : draft.heads[$0].note < draft.heads[$1].note }
                let first = systems[si].heads.count
                var previousStep: Int?
                var previousDisplaced = false
                let clefHere = clef(staff, draft.tick)
                for o in order {
                    let e = draft.heads[o]
                    let n = notes[e.note]
                    let step = draft.steps[o]
                    var displaced = false
                    if let p = previousStep, step - p == 1, !previousDisplaced { displaced = true }
                    if let p = previousStep, step == p { displaced = previousDisplaced }
                    previousStep = step
                    previousDisplaced = displaced
                    var accidental: Accidental?
                    if !e.tiedFrom {
                        accidental = accidentals[staff]?.draw(diatonic: n.diatonic, alter: n.spelling.alter)
                    }
                    systems[si].heads.append(PlacedHead(
                        noteIndex: n.index, pitch: n.pitch, hand: n.hand, staff: staff, clef: clefHere, step: step,
                        ottava: draft.ottava, spelling: n.spelling, accidental: accidental, finger: e.tiedFrom ? nil : n.finger,
                        tick: e.tick, duration: e.duration, column: c + (displaced ? 1 : 0), displaced: displaced,
                        tiedFromPrevious: e.tiedFrom, tiesToNext: e.tiesTo, barIndex: barIdx))
                }
                let lead = draft.heads[order[0]]
                systems[si].chords.append(PlacedChord(staff: staff, tick: draft.tick, column: c, heads: first..<systems[si].heads.count,
                                                      duration: draft.duration, stemUp: draft.stemUp, beamGroup: draft.beamGroup,
                                                      leadNote: notes[lead.note].index, startTickOfNote: noteStart[notes[lead.note].index] ?? draft.tick))
                // Extents: heads, ledger lines, stems.
                let hi = draft.steps.max() ?? 4, lo = draft.steps.min() ?? 4
                var top = hi, bottom = lo
                if draft.duration.value.hasStem {
                    if draft.stemUp { top = max(top, hi + 7) } else { bottom = min(bottom, lo - 7) }
                }
                let e = extents[staff] ?? 0...8
                extents[staff] = min(e.lowerBound, bottom)...max(e.upperBound, top)
            }
            for r in rests[staff] ?? [] {
                let si = systemIndex(ofTick: r.tick)
                var c = column(r.tick, in: systems[si])
                if r.wholeBar, let bar = systems[si].bars.last(where: { $0.startTick <= r.tick }) {
                    c = (bar.contentColumn + bar.endColumn - 1) / 2
                }
                systems[si].rests.append(PlacedRest(staff: staff, tick: r.tick, column: c, duration: r.duration, wholeBar: r.wholeBar))
            }
            // Clef changes inside a bar (those at a bar's start are drawn with the bar).
            for change in clefLists[staff] ?? [] where change.tick > rangeStart && change.tick < rangeEnd {
                let si = systemIndex(ofTick: change.tick)
                if systems[si].bars.contains(where: { $0.startTick == change.tick }) { continue }
                let c = column(change.tick, in: systems[si]) - 2
                systems[si].clefChanges.append(PlacedClef(staff: staff, tick: change.tick, column: c, clef: change.clef))
            }
        }
        // Ottava spans: runs of heads under the same mark within a system.
        for si in systems.indices {
            for staff in Staff.allCases {
                var current: OttavaSpan?
                for chord in systems[si].chords where chord.staff == staff {
                    let oct = systems[si].heads[chord.heads.lowerBound].ottava
                    if var span = current, span.octaves == oct, oct != 0 {
                        span.toColumn = chord.column + 1
                        current = span
                    } else {
                        if let span = current { systems[si].ottavas.append(span) }
                        current = oct != 0 ? OttavaSpan(staff: staff, octaves: oct, fromColumn: chord.column, toColumn: chord.column + 1) : nil
                    }
                }
                if let span = current { systems[si].ottavas.append(span) }
            }
        }
        return Score(title: lesson.title, options: options, ticksPerQuarter: tpq, columnsPerQuarter: cpq, systems: systems,
                     estimatedKey: estimatedKey, extents: extents)
    }

    /// Ticks one beam may span: a beat (a dotted quarter in compound time), a whole bar of
    /// eighths in 2/8 and 3/8.
    static func beamSpan(_ bar: Bar) -> Int {
        let sig = bar.signature
        if sig.denominator >= 8, !BarMap.isCompound(sig), sig.numerator <= 3 {
            return max(1, bar.beatTicks * sig.numerator)
        }
        return max(1, bar.beatTicks)
    }

    /// The accidentals of the old key a change to the new one cancels with naturals.
    static func cancellations(from old: MusicKey, to new: MusicKey) -> [Int] {
        old.signature.map(\.letter).filter { new.alter(ofLetter: $0) == 0 }
    }
}
