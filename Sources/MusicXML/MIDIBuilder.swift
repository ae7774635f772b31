import MIDIFile

/// Writes the performance of a score as a format-1 `MIDIFile` with `etude:` annotations
/// (see `MusicXMLImport` for the layout).
enum MIDIBuilder {
    struct PlayedNote {
        var start: Int
        var end: Int
        var pitch: Int
        var velocity: UInt8
        var finger: Int?
        var spelling: SpelledPitch?
        var tieStart: Bool
        var tieStop: Bool
        var written: WrittenValue?
        var marks: [Articulation] = []
        var grace: Bool?
        var ornament: Ornament?
        var neighbours: (upper: Int, lower: Int) = (0, 0)
        /// One of an ornament's played notes.
        var ornamentNote = false
        var rolled = false
        /// Ticks after its chord's tick it is struck (a rolled chord's upper notes).
        var rollDelay = 0
    }

    /// An event with its place among the events of its tick: releases, then controllers and
    /// clefs, then annotations, then note-ons.
    struct Placed {
        var tick: Int
        var rank: Int
        var seq: Int
        var event: MIDIEvent
    }

    static func build(score: Score, performance: Performance, limits: MusicXMLLimits,
                      warnings: inout [MusicXMLWarning]) throws(MusicXMLError) -> MIDIFile {
        let bars = performance.bars
        let measureCount = score.measures.count
        let total = (bars.last.map { $0.startTick + $0.length }) ?? 0
        // A bar reached by a jump starts from the state in force before its written measure.
        let jumpedTo = bars.indices.map { k in k > 0 && bars[k - 1].written != bars[k].written - 1 }

        // Conductor.
        var conductor: [Placed] = []
        var seq = 0
        func add(_ list: inout [Placed], _ tick: Int, _ rank: Int, _ kind: MIDIEvent.Kind) {
            list.append(Placed(tick: tick, rank: rank, seq: seq, event: MIDIEvent(tick: tick, kind)))
            seq += 1
        }
        if let title = score.title, !title.isEmpty {
            add(&conductor, 0, 1, .meta(type: MetaType.trackName, data: Array(title.utf8)))
        }
        for e in LessonTags(title: score.title, composer: score.composer, level: score.level, description: score.description).events {
            add(&conductor, 0, 1, e.kind)
        }
        let tempos = TimelineIndex(score.tempos, measures: measureCount)
        let times = TimelineIndex(score.times, measures: measureCount)
        let keys = TimelineIndex(score.keys, measures: measureCount)
        var tempo: Double?
        var time: TimeSignature?
        var key: KeySignature?
        func emitTempo(_ v: Double, _ tick: Int) {
            guard v != tempo else { return }
            tempo = v
            let us = max(1, min(0xFF_FFFF, Int((60_000_000 / v).rounded())))
            add(&conductor, tick, 1, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
        }
        func emitTime(_ v: TimeSignature, _ tick: Int) {
            guard v != time else { return }
            time = v
            add(&conductor, tick, 1, .meta(type: MetaType.timeSignature, data: v.bytes))
        }
        func emitKey(_ v: KeySignature, _ tick: Int) {
            guard v != key else { return }
            key = v
            add(&conductor, tick, 1, .meta(type: MetaType.keySignature, data: v.bytes))
        }
        let markersByMeasure = group(score.markers, measureCount)
        for (k, bar) in bars.enumerated() {
            let w = bar.written, t0 = bar.startTick
            if bar.startsBar {
                add(&conductor, t0, 0, Annotation.bar(bar.printed).event(tick: t0).kind)
            }
            guard bar.extra == 0 else { continue }
            if k == 0 || jumpedTo[k] {
                emitTempo(tempos.atStart(w) ?? 120, t0)
                if let v = times.atStart(w) { emitTime(v, t0) }
                if let v = keys.atStart(w) { emitKey(v, t0) }
            }
            for e in tempos.all(w) { emitTempo(e.value, t0 + e.pos) }
            for e in times.all(w) { emitTime(e.value, t0 + e.pos) }
            for e in keys.all(w) { emitKey(e.value, t0 + e.pos) }
            for m in markersByMeasure[w] {
                add(&conductor, t0 + m.pos, 1, .meta(type: MetaType.marker, data: Array(m.value.utf8)))
            }
        }

        // Notes of the performance, by track.
        var played = Array(repeating: [PlayedNote](), count: score.tracks.count)
        let notesByMeasure = group(score.notes, measureCount)
        var count = 0
        for bar in bars where bar.extra == 0 {
            for n in notesByMeasure[bar.written] {
                let start = bar.startTick + n.start
                let at = max(0, start)
                played[n.track].append(PlayedNote(start: at, end: max(at + 1, start + n.duration), pitch: n.pitch, velocity: max(1, min(127, n.velocity)),
                                                  finger: n.finger, spelling: n.spelling, tieStart: n.tieStart, tieStop: n.tieStop,
                                                  written: n.written, marks: n.marks, grace: n.grace, ornament: n.ornament, neighbours: n.neighbours, rolled: n.rolled))
            }
            count += notesByMeasure[bar.written].count
            if count > limits.maxPerformedNotes {
                throw MusicXMLError("the repeats expand to more than \(limits.maxPerformedNotes) notes; Etude reads shorter performances")
            }
        }

        var tracks = [Track(events: finish(conductor, end: total))]
        var clefsByTrack = Array(repeating: [Timed<Clef>](), count: score.tracks.count)
        for c in score.clefs { clefsByTrack[c.owner].append(c) }
        var ottavasByTrack = Array(repeating: [Timed<Int>](), count: score.tracks.count)
        for o in score.ottavas { ottavasByTrack[o.owner].append(o) }
        var pedalsByTrack = Array(repeating: [Timed<UInt8>](), count: score.tracks.count)
        for p in score.pedals { pedalsByTrack[p.owner].append(p) }
        var dynamicsByTrack = Array(repeating: [Timed<String>](), count: score.tracks.count)
        for d in score.dynamicMarks where d.owner < score.tracks.count { dynamicsByTrack[d.owner].append(d) }
        var hairpinsByTrack = Array(repeating: [Timed<Hairpin>](), count: score.tracks.count)
        for h in score.hairpins where h.owner < score.tracks.count { hairpinsByTrack[h.owner].append(h) }
        var slursByTrack = Array(repeating: [Timed<Bool>](), count: score.tracks.count)
        for h in score.slurs where h.owner < score.tracks.count { slursByTrack[h.owner].append(h) }
        for (t, staff) in score.tracks.enumerated() {
            var list: [Placed] = []
            seq = 0
            add(&list, 0, 1, .meta(type: MetaType.trackName, data: Array(staff.name.utf8)))
            if let hand = staff.hand { add(&list, 0, 1, Annotation.hand(hand).event(tick: 0).kind) }
            add(&list, 0, 1, .programChange(channel: staff.channel, program: staff.program))
            let clefs = TimelineIndex(clefsByTrack[t], measures: measureCount)
            let pedals = TimelineIndex(pedalsByTrack[t], measures: measureCount)
            let dynamicMarks = TimelineIndex(dynamicsByTrack[t], measures: measureCount)
            let hairpins = TimelineIndex(hairpinsByTrack[t], measures: measureCount)
            let slurs = TimelineIndex(slursByTrack[t], measures: measureCount)
            let ottavas = TimelineIndex(ottavasByTrack[t], measures: measureCount)
            var ottava = 0
            var clef: Clef?
            var pedal: UInt8 = 0
            for (k, bar) in bars.enumerated() where bar.extra == 0 {
                let w = bar.written, t0 = bar.startTick
                if jumpedTo[k] {
                    if let c = clefs.atStart(w), c != clef {
                        clef = c
                        add(&list, t0, 1, Annotation.clef(c).event(tick: t0).kind)
                    }
                    let o = w > 0 ? ottavas.at(w - 1, Int.max) ?? 0 : 0
                    if o != ottava {
                        ottava = o
                        add(&list, t0, 1, Annotation.ottava(o).event(tick: t0).kind)
                    }
                    let p = w > 0 ? pedals.at(w - 1, Int.max) ?? 0 : 0
                    if p != pedal {
                        pedal = p
                        add(&list, t0, 1, .controlChange(channel: staff.channel, controller: 64, value: p))
                    }
                }
                for c in clefs.all(w) where c.value != clef {
                    clef = c.value
                    add(&list, t0 + c.pos, 1, Annotation.clef(c.value).event(tick: t0 + c.pos).kind)
                }
                for o in ottavas.all(w) where o.value != ottava {
                    ottava = o.value
                    add(&list, t0 + o.pos, 1, Annotation.ottava(o.value).event(tick: t0 + o.pos).kind)
                }
                for d in dynamicMarks.all(w) {
                    add(&list, t0 + d.pos, 1, Annotation.dynamic(d.value).event(tick: t0 + d.pos).kind)
                }
                for h in hairpins.all(w) {
                    add(&list, t0 + h.pos, 1, Annotation.hairpin(h.value).event(tick: t0 + h.pos).kind)
                }
                for h in slurs.all(w) {
                    add(&list, t0 + h.pos, 1, Annotation.slur(start: h.value).event(tick: t0 + h.pos).kind)
                }
                for p in pedals.all(w) {
                    pedal = p.value
                    add(&list, t0 + p.pos, 1, .controlChange(channel: staff.channel, controller: 64, value: p.value))
                }
            }
            if pedal != 0 { add(&list, total, 1, .controlChange(channel: staff.channel, controller: 64, value: 0)) }
            played[t] = rolled(played[t], tpq: score.ticksPerQuarter)
            // Each head as written, before ties join the heads into one sounding note; where
            // voices strike one key together, the longest head is the note's, the others unisons.
            let unisons = unisonHeads(played[t])
            for (i, n) in played[t].enumerated() {
                if n.rollDelay > 0 { add(&list, n.start, 2, Annotation.roll(pitch: n.pitch, delay: n.rollDelay).event(tick: n.start).kind) }
                if let v = n.written {
                    let u = unisons.contains(i) ? Annotation.unison(pitch: n.pitch, UnisonHead(value: v, tiedFrom: n.tieStop, tiesTo: n.tieStart)) : Annotation.value(pitch: n.pitch, v)
                    add(&list, n.start, 2, u.event(tick: n.start).kind)
                }
                if !n.marks.isEmpty { add(&list, n.start, 2, Annotation.marks(pitch: n.pitch, n.marks).event(tick: n.start).kind) }
                if let g = n.grace { add(&list, n.start, 2, Annotation.grace(pitch: n.pitch, slashed: g).event(tick: n.start).kind) }
            }
            let sounding = merged(played[t])
            // An ornament with the length its note is written (before it is played out).
            for n in sounding {
                if let o = n.ornament { add(&list, n.start, 2, Annotation.ornament(pitch: n.pitch, o, ticks: max(1, n.end - n.start)).event(tick: n.start).kind) }
            }
            let performed = ornamented(sounding, tpq: score.ticksPerQuarter)
            for n in performed where n.ornamentNote {
                add(&list, n.start, 2, Annotation.ornamentNote(pitch: n.pitch).event(tick: n.start).kind)
            }
            for n in performed {
                if let s = n.spelling { add(&list, n.start, 2, .meta(type: MetaType.text, data: spellText(n.pitch, s))) }
                if let f = n.finger { add(&list, n.start, 2, .meta(type: MetaType.text, data: fingerText(n.pitch, f))) }
                add(&list, n.start, 3, .noteOn(channel: staff.channel, key: UInt8(n.pitch), velocity: n.velocity))
                add(&list, n.end, 0, .noteOff(channel: staff.channel, key: UInt8(n.pitch), velocity: 0))
            }
            tracks.append(Track(events: finish(list, end: total)))
        }
        _ = warnings
        return MIDIFile(format: 1, division: .ticksPerQuarter(score.ticksPerQuarter), tracks: tracks)
    }

    static let spellPrefix = Array("etude:spell=".utf8)
    static let fingerPrefix = Array("etude:finger=".utf8)

    static func digits(_ n: Int, into out: inout [UInt8]) {
        if n >= 100 { out.append(UInt8(0x30 + n / 100)) }
        if n >= 10 { out.append(UInt8(0x30 + n / 10 % 10)) }
        out.append(UInt8(0x30 + n % 10))
    }

    /// The bytes of `Annotation.spelling(pitch:_:).text`, built without string formatting (a
    /// score has one per note).
    static func spellText(_ pitch: Int, _ s: SpelledPitch) -> [UInt8] {
        var out = spellPrefix
        out.reserveCapacity(20)
        digits(pitch, into: &out)
        out.append(UInt8(ascii: ":"))
        out += s.name.utf8
        return out
    }

    /// The bytes of `Annotation.finger(pitch:finger:).text`.
    static func fingerText(_ pitch: Int, _ finger: Int) -> [UInt8] {
        var out = fingerPrefix
        out.reserveCapacity(20)
        digits(pitch, into: &out)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(0x30 + finger))
        return out
    }

    /// The written heads (indices) that another voice's head on the same key at the same tick
    /// outlasts (or equals, written first): drawn as unisons beside that head.
    static func unisonHeads(_ notes: [PlayedNote]) -> Set<Int> {
        var byPlace: [Int: [Int]] = [:]  // start * 128 + pitch → heads with a written value
        for (i, n) in notes.enumerated() where n.written != nil && n.grace == nil { byPlace[n.start &* 128 &+ n.pitch, default: []].append(i) }
        var out = Set<Int>()
        for (_, heads) in byPlace where heads.count > 1 {
            let main = heads.max { (notes[$0].written?.ticks ?? 0, -$0) < (notes[$1].written?.ticks ?? 0, -$1) } ?? heads[0]
            for i in heads where i != main { out.insert(i) }
        }
        return out
    }

    /// Ties joined (a note tied into the next one at the same pitch, starting where it ends,
    /// becomes one note), then notes of one key that overlap cut where the next one starts (a
    /// unison of two voices sounds once), so every note-on has its own note-off.
    static func merged(_ notes: [PlayedNote]) -> [PlayedNote] {
        let sorted = notes.enumerated().sorted { a, b in
            (a.element.start, a.element.pitch, a.offset) < (b.element.start, b.element.pitch, b.offset)
        }.map(\.element)
        var out: [PlayedNote] = []
        out.reserveCapacity(sorted.count)
        var open: [Int: Int] = [:]  // pitch → index in out of a note waiting for its tie
        for n in sorted {
            if n.tieStop, let o = open[n.pitch], out[o].end == n.start {
                out[o].end = n.end
                if !n.tieStart { open[n.pitch] = nil }
                continue
            }
            out.append(n)
            if n.tieStart { open[n.pitch] = out.count - 1 } else if open[n.pitch] != nil, n.tieStop == false {
                open[n.pitch] = nil
            }
        }
        out.sort { ($0.start, $0.pitch) < ($1.start, $1.pitch) }
        var last: [Int: Int] = [:]
        var keep = Array(repeating: true, count: out.count)
        for i in out.indices {
            let p = out[i].pitch
            if let j = last[p], out[j].end > out[i].start {
                if out[j].start == out[i].start {
                    // The same key struck twice at once: one note, as long as the longer.
                    out[j].end = max(out[j].end, out[i].end)
                    if out[j].finger == nil { out[j].finger = out[i].finger }
                    keep[i] = false
                    continue
                }
                out[j].end = out[i].start
            }
            last[p] = i
        }
        return out.indices.compactMap { keep[$0] ? out[$0] : nil }
    }

    /// Each ornamented note as played (`Ornament.realize`): the note shortened to the
    /// ornament's first note, then its other notes (`ornamentNote`). The ornament stays on the
    /// note, with its written length.
    static func ornamented(_ notes: [PlayedNote], tpq: Int) -> [PlayedNote] {
        guard notes.contains(where: { $0.ornament != nil }) else { return notes }
        var out: [PlayedNote] = []
        for n in notes {
            guard let o = n.ornament else { out.append(n); continue }
            let parts = o.realize(pitch: n.pitch, upper: n.neighbours.upper, lower: n.neighbours.lower, length: n.end - n.start, ticksPerQuarter: tpq)
            for (k, p) in parts.enumerated() {
                var m = n
                m.pitch = p.pitch
                m.start = n.start + p.offset
                m.end = m.start + p.length
                if k > 0 {
                    m.ornament = nil
                    m.ornamentNote = true
                    m.finger = nil
                    m.spelling = nil
                    m.written = nil
                    m.marks = []
                }
                out.append(m)
            }
        }
        return out.sorted { ($0.start, $0.pitch) < ($1.start, $1.pitch) }
    }

    /// Arpeggiated chords rolled upwards, as a pianist plays them: each note above the lowest a
    /// 64th later (less when the chord is short), its written head shortened by as much.
    static func rolled(_ notes: [PlayedNote], tpq: Int) -> [PlayedNote] {
        guard notes.contains(where: \.rolled) else { return notes }
        var out = notes
        var byStart: [Int: [Int]] = [:]
        for (i, n) in notes.enumerated() where n.rolled { byStart[n.start, default: []].append(i) }
        for (_, members) in byStart where members.count > 1 {
            let order = members.sorted { notes[$0].pitch < notes[$1].pitch }
            let shortest = order.map { notes[$0].end - notes[$0].start }.min() ?? 0
            let step = max(0, min(tpq / 16, shortest / (2 * order.count)))
            guard step > 0 else { continue }
            for (k, i) in order.enumerated() where k > 0 {
                out[i].start += k * step
                out[i].rollDelay = k * step
                if var v = out[i].written, v.ticks > k * step {
                    v.ticks -= k * step
                    out[i].written = v
                }
            }
        }
        return out
    }

    static func group<V>(_ list: [Timed<V>], _ measures: Int) -> [[Timed<V>]] {
        var out = Array(repeating: [Timed<V>](), count: measures)
        for e in list where e.measure >= 0 && e.measure < measures { out[e.measure].append(e) }
        return out
    }

    static func group(_ notes: [WrittenNote], _ measures: Int) -> [[WrittenNote]] {
        var out = Array(repeating: [WrittenNote](), count: measures)
        for n in notes where n.measure >= 0 && n.measure < measures { out[n.measure].append(n) }
        return out
    }

    static func finish(_ list: [Placed], end: Int) -> [MIDIEvent] {
        var events = list.sorted { ($0.tick, $0.rank, $0.seq) < ($1.tick, $1.rank, $1.seq) }.map(\.event)
        events.append(MIDIEvent(tick: max(end, events.last?.tick ?? 0), .meta(type: MetaType.endOfTrack, data: [])))
        return events
    }
}
