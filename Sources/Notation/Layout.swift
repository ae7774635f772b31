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
    /// Another voice's head on this note's key at its start (`etude:unison`), drawn beside it.
    var unison: UnisonHead? = nil
}

/// One head to write: a note's value at a tick (a long note makes several, tied).
struct HeadEvent {
    var note: Int
    var tick: Int
    var duration: NoteDuration
    var ticks: Int
    var tiedFrom: Bool
    var tiesTo: Bool
    var tuplet: Tuplet? = nil
}

/// The heads of one staff that start together, before they are placed in a system.
struct ChordDraft {
    var staff: Staff
    var tick: Int
    var heads: [HeadEvent]
    /// Steps in the clef in force, one per head (under the ottava once `settleChords` ran).
    var steps: [Int]
    var ottava: Int
    var duration: NoteDuration
    var stemUp: Bool
    var beamGroup: Int?
    /// Ticks the chord lasts (its shortest head; a tuplet's are shorter than its written value).
    var ticks: Int = 0
    var tuplet: Tuplet? = nil
}

/// A rest one staff needs where it is silent.
struct RestDraft: Equatable {
    var tick: Int
    var duration: NoteDuration
    var wholeBar: Bool
    /// A rest inside a tuplet is one of its values (a triplet eighth rest).
    var tuplet: Tuplet? = nil
}

/// What the placing passes build up, pass by pass (see `LayoutBuilder.place`).
struct LayoutDraft {
    var notes: [NoteInfo]
    var events: [Staff: [HeadEvent]]
    var cpq: Double
    /// Clef changes per staff, in tick order.
    var clefs: [Staff: [(tick: Int, clef: Clef)]]
    var chords: [Staff: [ChordDraft]] = [:]
    var rests: [Staff: [RestDraft]] = [:]
    var systems: [PlacedSystem] = []
    var extents: [Staff: ClosedRange<Int>] = [.treble: 0...8, .bass: 0...8]

    init(notes: [NoteInfo], events: [Staff: [HeadEvent]], cpq: Double, clefs: [Staff: [(tick: Int, clef: Clef)]]) {
        self.notes = notes
        self.events = events
        self.cpq = cpq
        self.clefs = clefs
    }

    /// The clef in force on a staff at a tick.
    func clef(_ staff: Staff, _ tick: Int) -> Clef {
        LayoutBuilder.clef(at: tick, in: clefs[staff] ?? [], default: staff.defaultClef)
    }

    /// The system holding a tick (the first when before every system).
    func systemIndex(ofTick tick: Int) -> Int {
        var lo = 0, hi = systems.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if systems[mid].startTick <= tick { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
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
        var draft = startDraft()
        place(&draft)
        return score(draft)
    }

    /// The draft the placing passes start from: the notes collected and spelled, split into
    /// heads, and the horizontal scale (the key is estimated first when the file has none).
    mutating func startDraft() -> LayoutDraft {
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
        // A score's clefs are its own; a lesson with none (MIDI, ABC) gets the ones an engraver
        // would write.
        let clefs = Dictionary(uniqueKeysWithValues: Staff.allCases.map { staff in
            (staff, isEngraved ? clefChanges(for: staff) : plannedClefs(for: staff, notes: notes))
        })
        return LayoutDraft(notes: notes, events: events, cpq: cpq, clefs: clefs)
    }

    /// The lesson is a score with an engraving of its own (it says its clefs): its clefs and
    /// ottava lines are drawn as written, and no other is made up.
    var isEngraved: Bool {
        let a = lesson.annotations
        return !a.clefs.isEmpty || !a.ottavas.isEmpty || !a.values.isEmpty
    }

    /// A note's heads as its score writes them (`etude:value`, one per tied head), from its
    /// start for as long as it sounds; empty when the score does not say.
    func writtenHeads(of note: LessonNote) -> [(tick: Int, value: WrittenValue)] {
        let values = lesson.annotations.values
        guard !values.isEmpty else { return [] }
        var out: [(tick: Int, value: WrittenValue)] = []
        var t = note.startTick
        while let v = values[Annotations.Key(track: note.track, tick: t, pitch: Int(note.pitch))], out.count < 64 {
            out.append((t, v))
            t += v.ticks
            if t >= note.endTick { break }
        }
        return out
    }

    /// Ledger lines a chord spanning `lo...hi` (steps from the bottom line) needs.
    static func ledgerLines(lo: Int, hi: Int) -> Int {
        (hi >= 10 ? (hi - 8) / 2 : 0) + (lo <= -2 ? -lo / 2 : 0)
    }

    /// Clefs for a staff of a lesson with no engraving, as engravers write them: ledger lines up
    /// to `maxLedgerLines`, then a change to the other clef of the grand staff (bass on the
    /// upper staff, treble on the lower), at a bar line rather than mid-bar, and back to the
    /// staff's own clef when it reads as well; an ottava (`markOttavas`) only for what neither
    /// clef can hold. Chosen over the whole staff at once, so a two-octave scale in the left hand
    /// goes to the treble clef for its top bars and comes back, not note by note.
    func plannedClefs(for staff: Staff, notes: [NoteInfo]) -> [(tick: Int, clef: Clef)] {
        guard !barRange.isEmpty else { return [] }
        var onsets: [(tick: Int, lo: Int, hi: Int)] = []
        for n in notes where n.staff == staff {
            if let last = onsets.last, last.tick == n.start {
                onsets[onsets.count - 1].lo = min(last.lo, n.diatonic)
                onsets[onsets.count - 1].hi = max(last.hi, n.diatonic)
            } else {
                onsets.append((n.start, n.diatonic, n.diatonic))
            }
        }
        guard !onsets.isEmpty else { return [] }
        let clefs = [staff.defaultClef, staff == .treble ? Clef.bass : Clef.treble]
        let limit = max(0, options.maxLedgerLines)
        // Costs: beyond the limit, out of the question; a fourth ledger line, 4 (up to three are
        // read at a glance); a chord in the other clef, 2 (a staff keeps to its own clef when it
        // can); a change, 6 at a bar line and 30 inside a bar (only where a bar cannot do without).
        func cost(_ o: (tick: Int, lo: Int, hi: Int), _ s: Int) -> Int {
            let clef = clefs[s]
            let lo = o.lo - clef.bottomLineDiatonic, hi = o.hi - clef.bottomLineDiatonic
            let beyond = hi > 8 + 2 * limit + 1 || lo < -(2 * limit + 1)
            return 4 * max(0, LayoutBuilder.ledgerLines(lo: lo, hi: hi) - 3) + (beyond ? 10_000 : 0) + 2 * s
        }
        let atBar = onsets.indices.map { k in k == 0 || barIndex(atTick: onsets[k].tick) != barIndex(atTick: onsets[k - 1].tick) }
        var total = [cost(onsets[0], 0), cost(onsets[0], 1) + 6]  // opening in the other clef is a change too
        var from: [[Int]] = [[0, 1]]
        for k in 1..<onsets.count {
            let change = atBar[k] ? 6 : 30
            var next = [0, 0], back = [0, 0]
            for s in 0..<2 {
                let stay = total[s], moved = total[1 - s] + change
                back[s] = stay <= moved ? s : 1 - s
                next[s] = min(stay, moved) + cost(onsets[k], s)
            }
            total = next
            from.append(back)
        }
        var state = total[0] <= total[1] ? 0 : 1
        var states = Array(repeating: 0, count: onsets.count)
        for k in stride(from: onsets.count - 1, through: 0, by: -1) {
            states[k] = state
            state = from[k][state]
        }
        var out: [(tick: Int, clef: Clef)] = []
        var current = 0
        for k in onsets.indices where states[k] != current || (k == 0 && states[0] != 0) {
            current = states[k]
            let tick = atBar[k] ? bars[barIndex(atTick: onsets[k].tick)].startTick : onsets[k].tick
            out.append((max(rangeStart, tick), clefs[current]))
        }
        return out
    }

    /// The notes laid out, quantized, with their staff; sorted by start then pitch.
    func collectNotes() -> [NoteInfo] {
        guard !barRange.isEmpty else { return [] }
        var wanted = lesson.notes.indices.filter { i in
            let n = lesson.notes[i]
            guard n.channel != 9 else { return false }
            if n.part.hand == nil && !options.includeAccompaniment { return false }
            return n.startTick < rangeEnd && n.endTick > rangeStart && n.startTick >= rangeStart
        }
        // Grace notes are drawn apart (`placeGraces`); a note after appoggiaturas is written
        // where they start, on the beat.
        let graces = lesson.annotations.graces
        var lead: [Annotations.Key: Int] = [:]
        // A rolled chord's upper notes are written with its lowest.
        for (k, d) in lesson.annotations.rolls { lead[Annotations.Key(track: k.track, tick: k.tick, pitch: -1 - k.pitch)] = k.tick - d }
        if !graces.isEmpty {
            for n in lesson.notes where graces[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))] == false {
                lead[Annotations.Key(track: n.track, tick: n.endTick, pitch: 0)] = lead[Annotations.Key(track: n.track, tick: n.startTick, pitch: 0)] ?? n.startTick
            }
        }
        if !graces.isEmpty || !lesson.annotations.ornamentNotes.isEmpty { wanted = wanted.filter { !lesson.isAccepted(lesson.notes[$0]) } }
        let ornaments = lesson.annotations.ornaments
        // A score's ticks are exact: nothing to snap.
        let grid = isEngraved ? 1 : LayoutBuilder.grid(onsets: wanted.map { i in
            let n = lesson.notes[i]
            return lead[Annotations.Key(track: n.track, tick: n.startTick, pitch: -1 - Int(n.pitch))]
                ?? lead[Annotations.Key(track: n.track, tick: n.startTick, pitch: 0)] ?? n.startTick
        }, tpq: tpq)
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
            let onBeat = lead[Annotations.Key(track: n.track, tick: n.startTick, pitch: -1 - Int(n.pitch))]
                ?? lead[Annotations.Key(track: n.track, tick: n.startTick, pitch: 0)] ?? n.startTick
            let start = max(rangeStart, min(snap(onBeat), rangeEnd - 1))
            // A score's note lasts as written (a staccato quarter sounds shorter, but is a quarter).
            var written = writtenHeads(of: n).last.map { $0.tick + $0.value.ticks } ?? n.endTick
            // An ornamented note sounds as the ornament's first note; it is written as long as it is.
            if !ornaments.isEmpty, let o = ornaments[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))] {
                written = max(written, n.startTick + o.ticks)
            }
            let end = min(rangeEnd, max(start + grid, snap(max(n.endTick, written))))
            let finger = options.showFingering ? lesson.finger(of: n) : nil
            out.append(NoteInfo(index: i, staff: staff, start: start, end: end, pitch: Int(n.pitch), startTick: n.startTick,
                                spelling: SpelledPitch(letter: 0, alter: 0), diatonic: 0, finger: finger, hand: n.part.hand))
            for u in lesson.annotations.unisons[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))] ?? [] {
                var other = out[out.count - 1]
                other.unison = u
                other.finger = nil
                other.end = min(rangeEnd, start + max(1, u.value.ticks))
                out.append(other)
            }
        }
        out.sort { a, b in a.start != b.start ? a.start < b.start : (a.pitch != b.pitch ? a.pitch < b.pitch : (a.index != b.index ? a.index < b.index : a.unison == nil && b.unison != nil)) }
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
            var pieces: [(Int, NoteDuration, Int, Tuplet?)] = []
            if let u = n.unison {
                // Another voice's head: its one value as written, tied as that voice ties it.
                let v = u.value
                out.append(HeadEvent(note: i, tick: n.start, duration: NoteDuration(NoteValue(rawValue: v.value) ?? .quarter, dots: v.dots), ticks: v.ticks,
                                     tiedFrom: u.tiedFrom, tiesTo: u.tiesTo, tuplet: v.actual != v.normal ? Tuplet(actual: v.actual, normal: v.normal, bracket: v.bracket) : nil))
                continue
            }
            // The score's own heads first (values, dots, tuplets, ties as printed).
            // (A note after appoggiaturas sounds later than it is written: its first head from n.start.)
            for (k, h) in writtenHeads(of: lesson.notes[n.index]).enumerated() where (h.tick == t || (k == 0 && h.tick == n.startTick && h.tick > t)) && t < n.end {
                let v = h.value
                let ticks = v.ticks + (h.tick - t)
                pieces.append((t, NoteDuration(NoteValue(rawValue: v.value) ?? .quarter, dots: v.dots), ticks,
                               v.actual != v.normal ? Tuplet(actual: v.actual, normal: v.normal, bracket: v.bracket) : nil))
                t += max(1, ticks)
            }
            while t < n.end {
                let bar = bars[barIndex(atTick: t)]
                let segmentEnd = min(n.end, max(bar.endTick, t + 1))
                if let d = tripletValue(forTicks: segmentEnd - t) {
                    pieces.append((t, d, segmentEnd - t, .triplet))
                    t = segmentEnd
                    continue
                }
                for d in ScoreLayout.values(forTicks: segmentEnd - t, tpq: tpq) {
                    let ticks = d.ticks(tpq: tpq)
                    pieces.append((t, d, ticks, nil))
                    t += max(1, ticks)
                    if t >= segmentEnd { break }
                }
                t = max(t, segmentEnd)
            }
            for (k, p) in pieces.enumerated() {
                out.append(HeadEvent(note: i, tick: p.0, duration: p.1, ticks: p.2, tiedFrom: k > 0, tiesTo: k < pieces.count - 1, tuplet: p.3))
            }
        }
        out.sort { a, b in a.tick != b.tick ? a.tick < b.tick : (notes[a.note].pitch != notes[b.note].pitch ? notes[a.note].pitch < notes[b.note].pitch : a.note < b.note) }
        return out
    }

    /// The value a length is written as in a triplet, when no plain or dotted values add up to
    /// it but one value does in 3:2 (a triplet eighth lasts two thirds of an eighth); nil otherwise.
    func tripletValue(forTicks ticks: Int) -> NoteDuration? {
        guard ticks > 0 else { return nil }
        let plain = ScoreLayout.values(forTicks: ticks, tpq: tpq)
        if plain.reduce(0, { $0 + $1.ticks(tpq: tpq) }) == ticks { return nil }
        guard (ticks * 3) % 2 == 0 else { return nil }
        let written = ticks * 3 / 2
        return LayoutBuilder.candidates.first { $0.dots == 0 && $0.ticks(tpq: tpq) == written }
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

    /// Columns a clef change at a bar line takes: the clef (its letter and octave mark, or the
    /// compact staff's two-cell bass clef `ɔ:`), a space.
    static func clefChangeWidth<C: Sequence>(_ clefs: C) -> Int where C.Element == Clef {
        clefs.contains { [.treble8va, .treble8vb, .bass, .bass8va, .bass8vb].contains($0) } ? 3 : 2
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

    /// A score's ottava lines on a staff (the tracks its hand reads, as for clefs), in tick order.
    func ottavaLines(for staff: Staff) -> [(tick: Int, octaves: Int)] {
        let ann = lesson.annotations
        guard !ann.ottavas.isEmpty else { return [] }
        let hand: HandTag = staff == .treble ? .right : .left
        var tracks = Set(ann.hands.filter { $0.value == hand }.map(\.key))
        if tracks.isEmpty {
            let own: Hand = staff == .treble ? .right : .left
            tracks = Set(lesson.notes.filter { $0.part.hand == own }.map(\.track))
        }
        var out: [(tick: Int, octaves: Int)] = []
        for t in tracks.sorted() { out += ann.ottavas[t] ?? [] }
        return out.sorted { $0.tick < $1.tick }
    }

    static func clef(at tick: Int, in changes: [(tick: Int, clef: Clef)], default d: Clef) -> Clef {
        var c = d
        for change in changes {
            if change.tick <= tick { c = change.clef } else { break }
        }
        return c
    }

    /// The placing passes in order, over one draft. Each pass reads what the ones before it
    /// wrote and adds one thing; each is tested on its own (`LayoutPassTests`).
    func place(_ draft: inout LayoutDraft) {
        groupChords(&draft)
        markOttavas(&draft)
        settleChords(&draft)
        beam(&draft)
        findRests(&draft)
        breakSystems(&draft)
        guard !draft.systems.isEmpty else { return }
        placeChords(&draft)
        placeRests(&draft)
        placeClefChanges(&draft)
        spanOttavas(&draft)
        placeGraces(&draft)
        placeDynamics(&draft)
        placeSpans(&draft)
    }

    /// Pass 12. Dynamic marks of the staves laid out, at their tick's column.
    func placeDynamics(_ d: inout LayoutDraft) {
        let a = lesson.annotations
        let printed = lesson.markedDynamics.marks
        guard !printed.isEmpty else { return }
        for (track, marks) in printed {
            let staff: Staff
            switch a.hands[track] {
            case .right?: staff = .treble
            case .left?: staff = .bass
            case nil:
                guard options.includeAccompaniment || a.hands.isEmpty else { continue }
                staff = .treble
            }
            for m in marks where m.tick >= rangeStart && m.tick < rangeEnd {
                let si = d.systemIndex(ofTick: m.tick)
                guard d.systems.indices.contains(si) else { continue }
                d.systems[si].dynamics.append(PlacedDynamic(staff: staff, tick: m.tick, column: column(m.tick, in: d.systems[si], cpq: d.cpq),
                                                            mark: m.mark, barIndex: barIndex(atTick: m.tick)))
            }
        }
        for si in d.systems.indices { d.systems[si].dynamics.sort { ($0.tick, $0.staff == .treble ? 0 : 1) < ($1.tick, $1.staff == .treble ? 0 : 1) } }
    }

    /// The score a finished draft makes.
    func score(_ draft: LayoutDraft) -> Score {
        Score(title: lesson.title, options: options, ticksPerQuarter: tpq, columnsPerQuarter: draft.cpq, systems: draft.systems,
              estimatedKey: estimatedKey, extents: draft.extents, endsPiece: !barRange.isEmpty && barRange.upperBound == bars.count)
    }

    /// Pass 1. Chords per staff: heads grouped by tick, each with its step in the clef in force.
    func groupChords(_ d: inout LayoutDraft) {
        for staff in Staff.allCases {
            var list: [ChordDraft] = []
            for e in d.events[staff] ?? [] {
                let c = d.clef(staff, e.tick)
                let step = d.notes[e.note].diatonic - c.bottomLineDiatonic
                if let last = list.last, last.tick == e.tick {
                    list[list.count - 1].heads.append(e)
                    list[list.count - 1].steps.append(step)
                } else {
                    list.append(ChordDraft(staff: staff, tick: e.tick, heads: [e], steps: [step], ottava: 0,
                                           duration: e.duration, stemUp: true, beamGroup: nil, ticks: e.ticks, tuplet: e.tuplet))
                }
            }
            d.chords[staff] = list
        }
    }

    /// Pass 2. 8va / 8vb. A score's are its own (`etude:ottava`), and only those. Otherwise a
    /// chord beyond the ledger limit in the clef planned for it moves an octave (two if need
    /// be); its neighbours (within a whole note) still high or low join the run, so the mark
    /// does not flicker on and off. Steps are not shifted yet (`settleChords` does).
    func markOttavas(_ d: inout LayoutDraft) {
        if isEngraved {
            for staff in Staff.allCases {
                let lines = ottavaLines(for: staff)
                guard !lines.isEmpty, var list = d.chords[staff] else { continue }
                for k in list.indices { list[k].ottava = lines.last { $0.tick <= list[k].tick }?.octaves ?? 0 }
                d.chords[staff] = list
            }
            return
        }
        let limitAbove = 8 + 2 * max(0, options.maxLedgerLines) + 1
        let limitBelow = -(2 * max(0, options.maxLedgerLines) + 1)
        for staff in Staff.allCases {
            guard var list = d.chords[staff] else { continue }
            for k in list.indices {
                let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                if hi > limitAbove { list[k].ottava = hi - 7 > limitAbove ? 2 : 1 }
                else if lo < limitBelow { list[k].ottava = lo + 7 < limitBelow ? -2 : -1 }
            }
            // A lone peak one ledger line past the limit (a scale's top note) is written out:
            // an ottava is for a passage, not for one note with no other past the limit within
            // two whole notes.
            let marked = list.indices.filter { list[$0].ottava != 0 }
            for k in marked {
                let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                let justPast = list[k].ottava > 0 ? hi <= limitAbove + 2 : lo >= limitBelow - 2
                let alone = !marked.contains { $0 != k && abs(list[$0].tick - list[k].tick) <= 8 * tpq }
                if justPast && alone { list[k].ottava = 0 }
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
            d.chords[staff] = list
        }
    }

    /// Pass 3. Steps as drawn (under the ottava), the chord's value (its shortest head) and its
    /// stem direction (away from the middle line).
    func settleChords(_ d: inout LayoutDraft) {
        for staff in Staff.allCases {
            guard var list = d.chords[staff] else { continue }
            for k in list.indices {
                let shift = 7 * list[k].ottava
                list[k].steps = list[k].steps.map { $0 - shift }
                if let shortest = list[k].heads.min(by: { $0.ticks < $1.ticks }) {
                    list[k].duration = shortest.duration
                    list[k].ticks = shortest.ticks
                    list[k].tuplet = shortest.tuplet
                }
                let hi = list[k].steps.max() ?? 0, lo = list[k].steps.min() ?? 0
                list[k].stemUp = hi + lo < 8
            }
            d.chords[staff] = list
        }
    }

    /// Pass 4. Beams: neighbouring flagged chords of one beat, with no rest between them.
    func beam(_ d: inout LayoutDraft) {
        var nextGroup = 0
        for staff in Staff.allCases {
            guard var list = d.chords[staff] else { continue }
            var k = 0
            while k < list.count {
                guard list[k].duration.value.flags > 0 else { k += 1; continue }
                let bar = bars[barIndex(atTick: list[k].tick)]
                let beat = LayoutBuilder.beamSpan(bar)
                let beatIndex = (list[k].tick - bar.downbeatTick) / beat
                var end = k
                while end + 1 < list.count {
                    let a = list[end], b = list[end + 1]
                    guard b.duration.value.flags > 0, a.tick + a.ticks == b.tick,
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
            d.chords[staff] = list
        }
    }

    /// Pass 5. Rests where a staff is silent, per bar: a whole-bar rest for an empty bar, else
    /// up to the next beat, then the longest values that fit.
    func findRests(_ d: inout LayoutDraft) {
        for staff in Staff.allCases {
            var sounding: [(Int, Int)] = d.notes.filter { $0.staff == staff }.map { ($0.start, $0.end) }
            sounding.sort { $0.0 < $1.0 }
            var merged: [(Int, Int)] = []
            for s in sounding {
                if let last = merged.last, s.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, s.1) } else { merged.append(s) }
            }
            var out: [RestDraft] = []
            var m = 0
            // Tuplet chords by where they end and start: a rest beside one may be inside its tuplet.
            var tupletEnding: [Int: ChordDraft] = [:], tupletStarting: [Int: ChordDraft] = [:]
            for c in d.chords[staff] ?? [] where c.tuplet != nil {
                tupletEnding[c.tick + c.ticks] = c
                if tupletStarting[c.tick] == nil { tupletStarting[c.tick] = c }
            }
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
                    out.append(RestDraft(tick: bar.startTick, duration: NoteDuration(.whole), wholeBar: true))
                    continue
                }
                var plain: [(Int, Int)] = []
                for (a, b) in gaps {
                    let split = tupletRests(from: a, to: b, bar: bar, ending: tupletEnding[a], starting: tupletStarting[b])
                    out += split.rests
                    plain += split.rest
                }
                for (a, b) in plain {
                    var s = a
                    // First up to the next beat, then the longest values that fit.
                    let beat = max(1, bar.beatTicks)
                    let intoBeat = ((s - bar.downbeatTick) % beat + beat) % beat
                    if intoBeat != 0 {
                        let toBeat = min(b, s + beat - intoBeat)
                        for v in ScoreLayout.values(forTicks: toBeat - s, tpq: tpq) {
                            out.append(RestDraft(tick: s, duration: v, wholeBar: false))
                            s += max(1, v.ticks(tpq: tpq))
                        }
                        s = toBeat
                    }
                    while s < b {
                        let v = restValue(at: s - bar.downbeatTick, upTo: b - s, bar: bar)
                        out.append(RestDraft(tick: s, duration: v, wholeBar: false))
                        s += max(1, v.ticks(tpq: tpq))
                    }
                }
            }
            d.rests[staff] = out.sorted { $0.tick < $1.tick }
        }
    }

    /// The part of a silence `a..<b` that lies in the time of the tuplet of the chord ending at
    /// `a` (or else starting at `b`), written as that tuplet's rests (a triplet eighth rest, not
    /// a sixteenth tied to a 64th), and what is left of the silence for plain rests.
    func tupletRests(from a: Int, to b: Int, bar: Bar, ending: ChordDraft?, starting: ChordDraft?) -> (rests: [RestDraft], rest: [(Int, Int)]) {
        for (chord, after) in [(ending, true), (starting, false)] {
            guard let c = chord, let t = c.tuplet, t.actual > 0, t.normal > 0 else { continue }
            // The tuplet's time: `normal` of the chord's written value, from the bar's downbeat.
            let span = t.normal * NoteDuration(c.duration.value).ticks(tpq: tpq)
            guard span > 0 else { continue }
            let start = bar.downbeatTick + Int((Double(c.tick - bar.downbeatTick) / Double(span)).rounded(.down)) * span
            let lo = after ? a : max(a, start), hi = after ? min(b, start + span) : b
            guard hi > lo, ((hi - lo) * t.actual) % t.normal == 0 else { continue }
            let written = (hi - lo) * t.actual / t.normal
            let values = ScoreLayout.values(forTicks: written, tpq: tpq)
            guard values.reduce(0, { $0 + $1.ticks(tpq: tpq) }) == written else { continue }
            var rests: [RestDraft] = []
            var tick = lo
            for v in values {
                rests.append(RestDraft(tick: tick, duration: v, wholeBar: false, tuplet: t))
                tick += v.ticks(tpq: tpq) * t.normal / t.actual
            }
            var left: [(Int, Int)] = []
            if lo > a { left.append((a, lo)) }
            if hi < b { left.append((hi, b)) }
            return (rests, left)
        }
        return ([], [(a, b)])
    }

    /// The rest to write at a beat (`offset` ticks after the downbeat) for at most `room` ticks:
    /// the longest value that starts where such a value may, as engravers write rests (a half
    /// rest on beat 1 or 3 of 4/4, never one from beat 2; a dotted rest only for a beat of
    /// compound time), so a quarter and a half rest are not drawn as one dotted half.
    func restValue(at offset: Int, upTo room: Int, bar: Bar) -> NoteDuration {
        let compound = BarMap.isCompound(bar.signature)
        let beat = max(1, bar.beatTicks)
        for d in LayoutBuilder.candidates {
            let t = d.ticks(tpq: tpq)
            guard t > 0, t <= room else { continue }
            if compound {
                // Within a beat from the beat's start; a whole beat or more only as dotted values.
                if d.dots == 0, t < beat, (offset % beat) % t == 0 { return d }
                if d.dots > 0, t % beat == 0, offset % beat == 0 { return d }
            } else if d.dots == 0, offset % t == 0 {
                return d
            }
        }
        return ScoreLayout.values(forTicks: room, tpq: tpq).first ?? NoteDuration(.sixtyFourth)
    }

    /// Columns a span of ticks takes at the draft's scale.
    func columns(_ ticks: Int, cpq: Double) -> Int { Int((Double(ticks) * cpq / Double(tpq)).rounded()) }

    /// Pass 6. Systems: whole bars, as many as the width takes, with their columns and the
    /// clef, key and time changes drawn at a bar's start.
    func breakSystems(_ d: inout LayoutDraft) {
        var systems: [PlacedSystem] = []
        var bi = barRange.lowerBound
        let width = max(NotationOptions.minimumWidth, options.width)
        while bi < barRange.upperBound {
            let startBar = bars[bi]
            let key = self.key(atTick: startBar.startTick)
            let time = startBar.signature
            var clefs: [Staff: Clef] = [:]
            for s in Staff.allCases { clefs[s] = d.clef(s, startBar.startTick) }
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
                        let c = d.clef(s, bar.startTick)
                        if c != barClefs[s] { clefChange[s] = c }
                    }
                    if !clefChange.isEmpty { changeWidth += LayoutBuilder.clefChangeWidth(clefChange.values) }
                }
                let lineColumn = first ? 1 : x
                let contentColumn = (first ? x : x + 1 + changeWidth) + 1
                let endColumn = contentColumn + max(2, columns(bar.lengthTicks, cpq: d.cpq))
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
        d.systems = systems
    }

    /// The column of a tick in a system (of the bar holding it).
    func column(_ tick: Int, in system: PlacedSystem, cpq: Double) -> Int {
        let bar = system.bars.last { $0.startTick <= tick } ?? system.bars[0]
        return bar.contentColumn + columns(tick - bar.startTick, cpq: cpq)
    }

    /// Pass 7. Heads and chords into their systems: accidentals as the bar needs them (a tied
    /// continuation has none), seconds side by side, and each staff's extent.
    func placeChords(_ d: inout LayoutDraft) {
        let noteStart = Dictionary(d.notes.map { ($0.index, $0.startTick) }, uniquingKeysWith: { a, _ in a })
        let tremoloFirsts = twoNoteTremoloFirsts()
        var accidentals: [Staff: AccidentalState] = [:]
        var accidentalBar: [Staff: Int] = [:]
        for staff in Staff.allCases {
            for draft in d.chords[staff] ?? [] {
                let si = d.systemIndex(ofTick: draft.tick)
                let c = column(draft.tick, in: d.systems[si], cpq: d.cpq)
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
                let first = d.systems[si].heads.count
                var previousStep: Int?
                var previousDisplaced = false
                let clefHere = d.clef(staff, draft.tick)
                for o in order {
                    let e = draft.heads[o]
                    let n = d.notes[e.note]
                    let step = draft.steps[o]
                    var displaced = false
                    if let p = previousStep, step - p == 1, !previousDisplaced { displaced = true }
                    // Another voice's head on the same line (a unison) is drawn beside the first, as engravers do.
                    if let p = previousStep, step == p { displaced = n.unison != nil ? !previousDisplaced : previousDisplaced }
                    previousStep = step
                    previousDisplaced = displaced
                    var accidental: Accidental?
                    if !e.tiedFrom {
                        accidental = accidentals[staff]?.draw(diatonic: n.diatonic, alter: n.spelling.alter)
                    }
                    d.systems[si].heads.append(PlacedHead(
                        noteIndex: n.index, pitch: n.pitch, hand: n.hand, staff: staff, clef: clefHere, step: step,
                        ottava: draft.ottava, spelling: n.spelling, accidental: accidental, finger: e.tiedFrom ? nil : n.finger,
                        tick: e.tick, duration: e.duration, tuplet: e.tuplet, articulations: e.tiedFrom ? [] : articulations(of: n),
                        column: c + (displaced ? 1 : 0), displaced: displaced,
                        tiedFromPrevious: e.tiedFrom, tiesToNext: e.tiesTo, barIndex: barIdx,
                        ornament: e.tiedFrom ? nil : ornament(of: n),
                        opensTwoNoteTremolo: !e.tiedFrom && n.unison == nil && tremoloFirsts.contains(n.index)))
                }
                let lead = draft.heads[order[0]]
                d.systems[si].chords.append(PlacedChord(staff: staff, tick: draft.tick, column: c, heads: first..<d.systems[si].heads.count,
                                                        duration: draft.duration, tuplet: draft.tuplet, stemUp: draft.stemUp, beamGroup: draft.beamGroup,
                                                        leadNote: d.notes[lead.note].index, startTickOfNote: noteStart[d.notes[lead.note].index] ?? draft.tick))
                // Extents: heads, ledger lines, stems.
                let hi = draft.steps.max() ?? 4, lo = draft.steps.min() ?? 4
                var top = hi, bottom = lo
                if draft.duration.value.hasStem {
                    if draft.stemUp { top = max(top, hi + 7) } else { bottom = min(bottom, lo - 7) }
                }
                let e = d.extents[staff] ?? 0...8
                d.extents[staff] = min(e.lowerBound, bottom)...max(e.upperBound, top)
            }
        }
    }

    /// Pass 11. Grace notes, drawn small just left of the chord of their staff they lead to (the
    /// first at or after them), in the clef and under the ottava of that chord.
    func placeGraces(_ d: inout LayoutDraft) {
        let graces = lesson.annotations.graces
        guard !graces.isEmpty else { return }
        var placed: [(system: Int, head: PlacedHead)] = []
        for (i, n) in lesson.notes.enumerated() {
            guard let slashed = graces[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))], n.channel != 9,
                  n.startTick < rangeEnd, n.endTick > rangeStart, n.part.hand != nil || options.includeAccompaniment else { continue }
            let staff: Staff = n.part == .hand(.left) ? .bass : (n.part == .hand(.right) ? .treble : (n.pitch >= 60 ? .treble : .bass))
            var found: (Int, PlacedChord)?
            for (si, s) in d.systems.enumerated() where s.endTick >= n.startTick {
                if let c = s.chords.first(where: { $0.staff == staff && $0.tick >= n.startTick }) { found = (si, c); break }
            }
            guard let (si, chord) = found, let lead = d.systems[si].heads[chord.heads].first else { continue }
            let spelling = lesson.spelling(of: n) ?? Speller.spell(pitch: Int(n.pitch), key: key(atTick: chord.tick))
            guard let diatonic = spelling.diatonic(forPitch: Int(n.pitch)) else { continue }
            let step = diatonic - 7 * lead.ottava - lead.clef.bottomLineDiatonic
            let hasAccidental = d.systems[si].heads[chord.heads].contains { $0.accidental != nil }
            var head = lead
            head.noteIndex = i
            head.pitch = Int(n.pitch)
            head.step = step
            head.spelling = spelling
            head.accidental = nil
            head.finger = nil
            head.tick = n.startTick
            head.duration = NoteDuration(.eighth)
            head.tuplet = nil
            head.articulations = []
            head.ornament = nil
            head.opensTwoNoteTremolo = false
            head.column = chord.column - 1 - (hasAccidental ? 1 : 0)
            head.displaced = false
            head.tiedFromPrevious = false
            head.tiesToNext = false
            head.grace = slashed
            placed.append((si, head))
        }
        // Several before one chord stand side by side, the first furthest left.
        for (si, head) in placed.reversed() {
            let key = "\(si):\(head.staff):\(head.column)"
            var h = head
            let later = Set(placed.filter { "\($0.system):\($0.head.staff):\($0.head.column)" == key && $0.head.tick > head.tick }.map(\.head.tick))
            h.column -= later.count
            d.systems[si].graces.insert(h, at: 0)
        }
    }

    /// The ornament a score prints on a note (`etude:ornament`, MusicXML and ABC alike); nil on
    /// another voice's unison head.
    func ornament(of n: NoteInfo) -> Ornament? {
        let ornaments = lesson.annotations.ornaments
        guard !ornaments.isEmpty, n.unison == nil else { return nil }
        let note = lesson.notes[n.index]
        return ornaments[Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))]?.ornament
    }

    /// The notes that open a two-note tremolo: per track, the onsets of its two-note tremolo
    /// notes taken in pairs (first, second), so a pair is told from the next one even where a
    /// system breaks between them.
    func twoNoteTremoloFirsts() -> Set<Int> {
        let ornaments = lesson.annotations.ornaments
        func alternating(_ o: Ornament?) -> Bool { o == .alternate8 || o == .alternate16 || o == .alternate32 }
        guard ornaments.values.contains(where: { alternating($0.ornament) }) else { return [] }
        var byTrack: [Int: [(tick: Int, index: Int)]] = [:]
        for (i, n) in lesson.notes.enumerated() where alternating(ornaments[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))]?.ornament) {
            byTrack[n.track, default: []].append((n.startTick, i))
        }
        var out = Set<Int>()
        for list in byTrack.values {
            let ticks = Set(list.map(\.tick)).sorted()
            let firsts = Set(ticks.indices.filter { $0 % 2 == 0 }.map { ticks[$0] })
            for e in list where firsts.contains(e.tick) { out.insert(e.index) }
        }
        return out
    }

    /// The articulations a score prints on a note (`etude:marks`).
    func articulations(of n: NoteInfo) -> [Articulation] {
        let marks = lesson.annotations.articulations
        guard !marks.isEmpty else { return [] }
        let note = lesson.notes[n.index]
        return marks[Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))] ?? []
    }

    /// Pass 8. Rests into their systems (a whole-bar rest in the middle of its bar).
    func placeRests(_ d: inout LayoutDraft) {
        for staff in Staff.allCases {
            for r in d.rests[staff] ?? [] {
                let si = d.systemIndex(ofTick: r.tick)
                var c = column(r.tick, in: d.systems[si], cpq: d.cpq)
                if r.wholeBar, let bar = d.systems[si].bars.last(where: { $0.startTick <= r.tick }) {
                    c = (bar.contentColumn + bar.endColumn - 1) / 2
                }
                d.systems[si].rests.append(PlacedRest(staff: staff, tick: r.tick, column: c, duration: r.duration, wholeBar: r.wholeBar, tuplet: r.tuplet))
            }
        }
    }

    /// Pass 9. Clef changes inside a bar (those at a bar's start are drawn with the bar).
    func placeClefChanges(_ d: inout LayoutDraft) {
        for staff in Staff.allCases {
            for change in d.clefs[staff] ?? [] where change.tick > rangeStart && change.tick < rangeEnd {
                let si = d.systemIndex(ofTick: change.tick)
                if d.systems[si].bars.contains(where: { $0.startTick == change.tick }) { continue }
                let c = column(change.tick, in: d.systems[si], cpq: d.cpq) - 2
                d.systems[si].clefChanges.append(PlacedClef(staff: staff, tick: change.tick, column: c, clef: change.clef))
            }
        }
    }

    /// Pass 10. Ottava spans: runs of heads under the same mark within a system.
    func spanOttavas(_ d: inout LayoutDraft) {
        for si in d.systems.indices {
            for staff in Staff.allCases {
                var current: OttavaSpan?
                for chord in d.systems[si].chords where chord.staff == staff {
                    let oct = d.systems[si].heads[chord.heads.lowerBound].ottava
                    if var span = current, span.octaves == oct, oct != 0 {
                        span.toColumn = chord.column + 1
                        current = span
                    } else {
                        if let span = current { d.systems[si].ottavas.append(span) }
                        current = oct != 0 ? OttavaSpan(staff: staff, octaves: oct, fromColumn: chord.column, toColumn: chord.column + 1) : nil
                    }
                }
                if let span = current { d.systems[si].ottavas.append(span) }
            }
        }
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
