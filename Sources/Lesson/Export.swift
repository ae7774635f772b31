import MIDIFile

/// Turns a lesson as practised (hands, bars, tempo, repeats, metronome) back into a Standard
/// MIDI File, so what was practised can be opened anywhere.
///
/// Layout (format 1): a conductor track (title, tags, time and key signatures, scaled tempo
/// map, markers, a marker at each repeat), one track per hand named "Right Hand" /
/// "Left Hand", the accompaniment tracks under their own names, and optionally a
/// "Metronome" track on channel 10. A cut at bar A carries the time signature, key signature,
/// tempo, program and controllers in force there; notes held past bar B are released at the
/// bar line. The score's `etude:` annotations (fingering, spelling, written values, articulations,
/// graces, ornaments, rolls, unisons, clefs, ottava lines, dynamics, staff hands, printed bar numbers)
/// go with the notes and staves they belong to. Re-importing the result gives the same lesson
/// for those bars.
public enum LessonExport {
    public static let rightTrackName = "Right Hand"
    public static let leftTrackName = "Left Hand"
    public static let metronomeTrackName = "Metronome"
    /// The most passes one exported file holds.
    public static let maxPasses = 10_000

    private struct Item {
        var tick: Int
        var priority: Int
        var kind: MIDIEvent.Kind
    }

    /// The tempo percent of each pass the plan plays (every pass counted clean).
    public static func passPercents(lesson: Lesson, plan: PracticePlan) throws(PlanError) -> [Double] {
        if plan.repeatMode == .forever {
            throw PlanError(.repeat, "forever", "an export needs a number of passes", suggestion: "4", style: .example)
        }
        // Refused, not cut short without a word (`--repeat 9e18`).
        if case .times(let n) = plan.repeatMode, n > maxPasses {
            throw PlanError(.repeat, "\(n)", "an export writes up to \(maxPasses) passes", suggestion: "\(maxPasses)", style: .example)
        }
        var planner = try PassPlanner(plan: plan, lesson: lesson)
        var out = [planner.firstPass()]
        while let next = planner.next(afterCleanPass: true) {
            out.append(next)
            if out.count >= maxPasses { break }
        }
        return out
    }

    /// The file for a lesson practised by `plan` (validated first; `--repeat forever` is
    /// refused, a file needs an end). Pure: write it with `MIDIWriter.write`.
    public static func midiFile(lesson: Lesson, plan: PracticePlan) throws(PlanError) -> MIDIFile {
        try plan.validate(for: lesson)
        let percents = try passPercents(lesson: lesson, plan: plan)
        let range = plan.tickRange(in: lesson)
        let s = range.lowerBound, e = range.upperBound
        let cut = e - s
        let tpq = lesson.ticksPerQuarter

        // Conductor.
        var conductor: [Item] = [Item(tick: 0, priority: -2, kind: .meta(type: MetaType.trackName, data: Array(lesson.title.utf8)))]
        var tags = lesson.tags
        tags.title = lesson.title
        tags.composer = lesson.composer
        for ev in tags.events { conductor.append(Item(tick: 0, priority: -1, kind: ev.kind)) }
        let cutBars = lesson.bars.bars.filter { $0.startTick >= s && $0.startTick < e }
        for (r, percent) in percents.enumerated() {
            let off = r * cut
            let factor = percent / 100
            func at(_ t: Int) -> Int { off + t - s }
            var previous: Bar?
            for bar in cutBars {
                let short = previous.map { $0.lengthTicks != BarMap.barTicks($0.signature, tpq: tpq) } ?? true
                if previous == nil || short || previous?.signature.numerator != bar.signature.numerator
                    || previous?.signature.denominatorPower != bar.signature.denominatorPower {
                    conductor.append(Item(tick: at(bar.startTick), priority: 0, kind: .meta(type: MetaType.timeSignature, data: bar.signature.bytes)))
                }
                previous = bar
            }
            if let key = lesson.keySignature(atTick: s) {
                conductor.append(Item(tick: off, priority: 0, kind: .meta(type: MetaType.keySignature, data: key.bytes)))
            }
            for k in lesson.keySignatures where k.tick > s && k.tick < e {
                conductor.append(Item(tick: at(k.tick), priority: 0, kind: .meta(type: MetaType.keySignature, data: k.value.bytes)))
            }
            conductor.append(Item(tick: off, priority: 0, kind: tempoEvent(lesson.tempoMap.microsecondsPerQuarter(atTick: s), factor: factor)))
            for seg in lesson.tempoMap.segments where seg.tick > s && seg.tick < e {
                conductor.append(Item(tick: at(seg.tick), priority: 0, kind: tempoEvent(seg.microsecondsPerQuarter, factor: factor)))
            }
            for m in lesson.markers where m.tick >= s && m.tick < e {
                conductor.append(Item(tick: at(m.tick), priority: 1, kind: .meta(type: MetaType.marker, data: Array(m.value.utf8))))
            }
            if percents.count > 1 {
                conductor.append(Item(tick: off, priority: 2, kind: .meta(type: MetaType.marker, data: Array("Repeat \(r + 1)/\(percents.count)".utf8))))
            }
        }

        // Note tracks: hands, then accompaniment tracks, in that order of channel ownership.
        struct NoteTrack {
            var name: String?
            var notes: [Int]  // indices into lesson.notes
            var velocityScale: Double
        }
        var noteTracks: [NoteTrack] = []
        for hand in [Hand.right, .left] where lesson.hands.contains(hand) {
            let practised = plan.hands.practises(.hand(hand))
            var scale = 1.0
            if !practised {
                switch plan.otherHand {
                case .mute: continue
                case .quiet(let f): scale = f
                case .play: break
                }
            }
            let idx = lesson.notes.indices.filter { lesson.notes[$0].part == .hand(hand) && inRange(lesson.notes[$0], s, e) }
            noteTracks.append(NoteTrack(name: hand == .right ? rightTrackName : leftTrackName, notes: idx, velocityScale: scale))
        }
        if plan.playAccompaniment {
            var byTrack: [Int: [Int]] = [:]
            var order: [Int] = []
            for i in lesson.notes.indices where lesson.notes[i].part == .accompaniment {
                let t = lesson.notes[i].track
                if byTrack[t] == nil { order.append(t) }
                if inRange(lesson.notes[i], s, e) { byTrack[t, default: []].append(i) }
            }
            for t in order.sorted() {
                let name = lesson.tracks.indices.contains(t) ? lesson.tracks[t].name : nil
                noteTracks.append(NoteTrack(name: name ?? "Accompaniment", notes: byTrack[t] ?? [], velocityScale: 1))
            }
        }
        // Each channel's programs and controllers go to the first track playing on it.
        var owner: [UInt8: Int] = [:]
        for (k, nt) in noteTracks.enumerated() {
            for i in nt.notes where owner[lesson.notes[i].channel] == nil { owner[lesson.notes[i].channel] = k }
        }
        let sustain = Set(lesson.channelEvents.compactMap { ev -> UInt8? in
            if case .controlChange(let c, 64, _) = ev.kind { return c }
            return nil
        })
        let restore = ChannelState.restore(lesson: lesson, atTick: s, until: e)

        // The score's annotations go with the notes (see `annotationItems`); printed bar numbers on the conductor.
        if !lesson.annotations.bars.isEmpty {
            for r in percents.indices {
                for bar in cutBars { conductor.append(Item(tick: r * cut + bar.startTick - s, priority: -1, kind: Annotation.bar(bar.printed).event(tick: 0).kind)) }
            }
        }
        let staffOf = staffTracks(lesson: lesson, tracks: noteTracks.map(\.notes))
        let valuesByNote = headValues(lesson: lesson)

        var tracks: [Track] = [track(conductor)]
        for (k, nt) in noteTracks.enumerated() {
            var items: [Item] = []
            if let name = nt.name { items.append(Item(tick: 0, priority: -2, kind: .meta(type: MetaType.trackName, data: Array(name.utf8)))) }
            if lesson.handAssignment.method == .staves, nt.name == rightTrackName || nt.name == leftTrackName {
                items.append(Item(tick: 0, priority: -1, kind: Annotation.hand(nt.name == rightTrackName ? .right : .left).event(tick: 0).kind))
            }
            let staves = staffOf.filter { $0.value == k }.map(\.key)
            for r in percents.indices {
                for a in staffAnnotations(lesson: lesson, staves: staves, from: s, to: e) {
                    items.append(Item(tick: r * cut + a.tick - s, priority: 0, kind: a.kind))
                }
                for i in nt.notes {
                    for a in noteAnnotations(lesson.notes[i], in: lesson.annotations, values: valuesByNote, until: e) {
                        items.append(Item(tick: r * cut + a.tick - s, priority: 3, kind: a.kind))
                    }
                }
            }
            let owned = Set(owner.filter { $0.value == k }.map(\.key))
            for r in percents.indices {
                let off = r * cut
                for kind in restore {
                    if let c = kind.channel, owned.contains(c) { items.append(Item(tick: off, priority: 1, kind: kind)) }
                }
                for ev in lesson.channelEvents where ev.tick >= s && ev.tick < e && !(ev.tick == s && ChannelState.isRestored(ev.kind)) {
                    if let c = ev.kind.channel, owned.contains(c) {
                        items.append(Item(tick: off + ev.tick - s, priority: 3, kind: ev.kind))
                    }
                }
                for i in nt.notes {
                    let n = lesson.notes[i]
                    let end = min(n.endTick, e)
                    var v = n.velocity
                    if nt.velocityScale != 1 { v = UInt8(clamping: max(1, Int((Double(v) * nt.velocityScale).rounded()))) }
                    items.append(Item(tick: off + n.startTick - s, priority: 4, kind: .noteOn(channel: n.channel, key: n.pitch, velocity: v)))
                    items.append(Item(tick: off + end - s, priority: end > n.startTick ? 2 : 5, kind: .noteOff(channel: n.channel, key: n.pitch, velocity: 0)))
                }
                for c in owned.sorted() where sustain.contains(c) {
                    items.append(Item(tick: off + cut, priority: 0, kind: .controlChange(channel: c, controller: 64, value: 0)))
                }
            }
            tracks.append(track(items))
        }

        if plan.metronome.enabled {
            var items: [Item] = [Item(tick: 0, priority: -2, kind: .meta(type: MetaType.trackName, data: Array(metronomeTrackName.utf8)))]
            let beats = lesson.bars.beats(from: s, to: e)
            for r in percents.indices {
                let off = r * cut
                for b in beats {
                    let downbeat = b.beat == 1
                    let v = Int(((downbeat ? Metronome.accentVelocity : Metronome.beatVelocity) * plan.metronome.volume).rounded())
                    guard v >= 1 else { continue }
                    let key = downbeat ? Metronome.accentKey : Metronome.beatKey
                    let len = max(1, min(tpq / 8, e - b.tick))
                    items.append(Item(tick: off + b.tick - s, priority: 4, kind: .noteOn(channel: Metronome.channel, key: key, velocity: UInt8(clamping: v))))
                    items.append(Item(tick: off + b.tick - s + len, priority: 2, kind: .noteOff(channel: Metronome.channel, key: key, velocity: 0)))
                }
            }
            tracks.append(track(items))
        }
        // Every track ends together at the end of the last pass.
        let total = cut * percents.count
        for i in tracks.indices {
            tracks[i].events.append(MIDIEvent(tick: max(total, tracks[i].endTick), .meta(type: MetaType.endOfTrack, data: [])))
        }
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: tracks)
    }

    /// Each source track with annotations of its own (clefs, ottava lines, dynamics) → the
    /// exported track holding most of its notes, so a staff's marks stay on its hand's track.
    static func staffTracks(lesson: Lesson, tracks: [[Int]]) -> [Int: Int] {
        var counts: [Int: [Int: Int]] = [:]
        for (k, notes) in tracks.enumerated() {
            for i in notes { counts[lesson.notes[i].track, default: [:]][k, default: 0] += 1 }
        }
        return counts.compactMapValues { byTrack in byTrack.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key }
    }

    /// A staff's clef and ottava line in force at `s` (moved to `s`), and its clefs, ottava
    /// lines and dynamics inside the cut.
    static func staffAnnotations(lesson: Lesson, staves: [Int], from s: Int, to e: Int) -> [MIDIEvent] {
        var out: [MIDIEvent] = []
        let a = lesson.annotations
        for t in staves.sorted() {
            let clefs = a.clefs[t] ?? [], ottavas = a.ottavas[t] ?? []
            if let c = clefs.last(where: { $0.tick <= s }) { out.append(Annotation.clef(c.clef).event(tick: s)) }
            for c in clefs where c.tick > s && c.tick < e { out.append(Annotation.clef(c.clef).event(tick: c.tick)) }
            if let o = ottavas.last(where: { $0.tick <= s }), o.octaves != 0 { out.append(Annotation.ottava(o.octaves).event(tick: s)) }
            for o in ottavas where o.tick > s && o.tick < e { out.append(Annotation.ottava(o.octaves).event(tick: o.tick)) }
            for d in a.dynamics[t] ?? [] where d.tick >= s && d.tick < e { out.append(Annotation.dynamic(d.mark).event(tick: d.tick)) }
        }
        return out
    }

    /// Written values by track and key, each sorted by tick: a tied note has one per head.
    static func headValues(lesson: Lesson) -> [Annotations.Key: [(tick: Int, value: WrittenValue)]] {
        var out: [Annotations.Key: [(tick: Int, value: WrittenValue)]] = [:]
        for (k, v) in lesson.annotations.values { out[Annotations.Key(track: k.track, tick: 0, pitch: k.pitch), default: []].append((k.tick, v)) }
        return out.mapValues { $0.sorted { $0.tick < $1.tick } }
    }

    /// What the score says of one note (fingering, spelling, written values of its heads before
    /// `e`, articulations, grace, ornament, roll), as the events a reader pairs back with it.
    static func noteAnnotations(_ n: LessonNote, in a: Annotations, values: [Annotations.Key: [(tick: Int, value: WrittenValue)]], until e: Int) -> [MIDIEvent] {
        let p = Int(n.pitch), key = Annotations.Key(track: n.track, tick: n.startTick, pitch: p)
        var out: [MIDIEvent] = []
        if let f = a.fingers[key] { out.append(Annotation.finger(pitch: p, finger: f).event(tick: n.startTick)) }
        if let sp = a.spellings[key] { out.append(Annotation.spelling(pitch: p, sp).event(tick: n.startTick)) }
        if let heads = values[Annotations.Key(track: n.track, tick: 0, pitch: p)] {
            // The first head at or after the note's start (sorted by tick), then while it sounds.
            var lo = 0, hi = heads.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if heads[mid].tick < n.startTick { lo = mid + 1 } else { hi = mid }
            }
            while lo < heads.count, heads[lo].tick < min(n.endTick, e) {
                out.append(Annotation.value(pitch: p, heads[lo].value).event(tick: heads[lo].tick))
                lo += 1
            }
        }
        if let m = a.articulations[key] { out.append(Annotation.marks(pitch: p, m).event(tick: n.startTick)) }
        if let g = a.graces[key] { out.append(Annotation.grace(pitch: p, slashed: g).event(tick: n.startTick)) }
        if let o = a.ornaments[key] { out.append(Annotation.ornament(pitch: p, o.ornament, ticks: o.ticks).event(tick: n.startTick)) }
        if a.ornamentNotes.contains(key) { out.append(Annotation.ornamentNote(pitch: p).event(tick: n.startTick)) }
        if let d = a.rolls[key] { out.append(Annotation.roll(pitch: p, delay: d).event(tick: n.startTick)) }
        for u in a.unisons[key] ?? [] { out.append(Annotation.unison(pitch: p, u).event(tick: n.startTick)) }
        return out
    }

    static func inRange(_ n: LessonNote, _ s: Int, _ e: Int) -> Bool {
        n.startTick >= s && n.startTick < e
    }

    static func tempoEvent(_ us: Int, factor: Double) -> MIDIEvent.Kind {
        let scaled = min(0xFF_FFFF, max(1, Int((Double(us) / factor).rounded())))
        return .meta(type: MetaType.tempo, data: [UInt8(scaled >> 16 & 0xFF), UInt8(scaled >> 8 & 0xFF), UInt8(scaled & 0xFF)])
    }

    private static func track(_ items: [Item]) -> Track {
        let sorted = items.enumerated().sorted { a, b in
            if a.element.tick != b.element.tick { return a.element.tick < b.element.tick }
            if a.element.priority != b.element.priority { return a.element.priority < b.element.priority }
            return a.offset < b.offset
        }
        return Track(events: sorted.map { MIDIEvent(tick: $0.element.tick, $0.element.kind) })
    }
}
