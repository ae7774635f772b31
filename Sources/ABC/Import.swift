import MIDIFile

/// Turns ABC 2.1 text into a Standard MIDI File that the rest of Etude plays, so lessons can be
/// written and reviewed as plain text.
///
/// The file is format 1 at 480 ticks per quarter:
/// - track 1 is the conductor: track name = title, `LessonTags` text events (`etude:title=`,
///   `etude:composer=` from `C:`, `etude:level=` from `%%etude-level N`, `etude:description=`
///   from `%%etude-description text` or else the first `N:`), time signature (`M:`), key
///   signature (`K:`), tempo (`Q:`, 120 quarter notes a minute when absent) and one marker per
///   part (`P:`) in playing order, named after the part label (`A`, or `A: title` when a `T:`
///   follows the `P:` line in the body);
/// - then one track per voice (`V:`), in order of first appearance, named "Right Hand" or
///   "Left Hand" when the voice's id or name says so (right/RH, left/LH) or its clef is bass
///   (a lone treble voice is the right hand, the other voice of a two-voice tune with one left
///   hand is the right hand); any other voice keeps its name. Each voice track has a program
///   change to piano, its notes, and before each note-on (same tick) its fingering as a
///   `Fingering` text event and its spelling as `etude:spell=<pitch>:<name>` (`Annotation`):
///   the note as the tune writes it, with the key and the accidentals in force (`^F` in C is
///   F#, `_G` is Gb, `B` in K:Bb is Bb; a tied note keeps the spelling it was tied from).
///
/// Repeats, endings and the header `P:` order are expanded into playing order. Grace notes `{g}`
/// are played short, `{/g}` (acciaccatura) just before the beat, `{g}` (appoggiatura) on it
/// with its note after, each marked `etude:grace=`. A first bar shorter than the meter (an anacrusis) gets its
/// own time signature so bar numbers count from the first full bar.
///
/// Read and played: fields X T C M L Q K (every mode, `exp` and explicit accidentals, clef and
/// `octave=`) V P N U, `%%etude-level`, `%%etude-description`, `%%propagate-accidentals`,
/// fields before the first `X:` (they apply to every tune); inline `[K:]` `[M:]` `[L:]` `[Q:]`
/// `[V:]` `[P:]` `[U:]`; notes with `^ ^^ _ __ =`, carried to the end of the bar as
/// `%%propagate-accidentals` says: into every octave (`pitch`, the ABC 2.1 default, which
/// abc2midi follows too), the note's own octave (`octave`) or to no other note (`not`), and
/// over a tie; octave marks, lengths, rests `z x Z X`, chords, ties, broken rhythm, tuplets
/// `(p:q:r`, bar lines, repeats, numbered endings (`[1`, `|1`, `:|2`, `[1,3`, `[1-3`),
/// `!1!`–`!5!` fingering, `!pppp!`–`!ffff!` dynamics, staccato (`.C`, `!staccato!`) and tenuto
/// (`!tenuto!`) as `etude:marks` (also written `+4+`, or as a symbol a
/// `U:` field defines, e.g. `U:W=!4!`). Lines end at LF, CR LF or CR. Read with no effect on
/// the sound, silently: slurs and hairpins (`!<(!` `!<)!` `!>(!` `!>)!`, `!crescendo(!`…, drawn
/// on the staff as `etude:slur` and `etude:hairpin`), spacers `y`, annotations `"^text"`, beaming spaces and
/// backquotes, line continuations, information fields (A B D F G H O R S Z), layout parameters
/// (`middle=`, `stafflines=`…). Everything else is a warning that names it, never an error:
/// chord symbols, every other decoration (`!trill!`, `+trill+`, names Etude does
/// not know, the symbols `~ H`–`W h`–`w`, defined by `U:` or not), a lone `!` (an ABC 2.0
/// line break), lyrics, overlays `&`, `I:` `m:` `s:` `+:` fields, other `%%` directives,
/// unknown K:/V: parameters.
public enum ABCImport {
    public static let ticksPerQuarter = 480
    static let ticksPerWhole = 4 * ticksPerQuarter

    /// The tunes in a file: `X:` number and title, in file order.
    public static func tunes(inABCText text: String) -> [(number: Int, title: String)] {
        split(lines(text)).map { ($0.number, $0.title) }
    }

    /// Converts the tune numbered `tune` (the first tune when nil) to a MIDI file.
    public static func midiFile(fromABCText text: String, tune: Int? = nil) throws(ABCError) -> (file: MIDIFile, warnings: [ABCWarning]) {
        let all = lines(text)
        let tunes = split(all)
        guard !tunes.isEmpty else {
            throw ABCError(line: 0, column: 0, message: "no tune found (an ABC tune starts with an X: line and a K: line)")
        }
        let chosen: RawTune
        if let tune {
            guard let t = tunes.first(where: { $0.number == tune }) else {
                let list = tunes.map { String($0.number) }.joined(separator: ", ")
                throw ABCError(line: 0, column: 0, message: "no tune X:\(tune) in this file (it has X: \(list))")
            }
            chosen = t
        } else {
            chosen = tunes[0]
        }
        var parser = TuneParser(number: chosen.number)
        try parser.parse(chosen.lines)
        var warnings = parser.warnings
        let file = MarkedDynamics.shapingHairpins(Layout.build(parser.tune, warnings: &warnings))
        return (file, warnings)
    }

    struct RawTune {
        var number: Int
        var title: String
        var lines: [SourceLine]
    }

    /// The text's lines, numbered from 1. A line ends at LF, CR LF or a lone CR (old Mac
    /// files), so a tune saved on any system reads the same.
    static func lines(_ text: String) -> [SourceLine] {
        var out: [SourceLine] = []
        let bytes = Array(text.utf8)
        var n = 0
        var start = 0
        var i = 0
        while i <= bytes.count {
            if i == bytes.count || bytes[i] == 0x0A || bytes[i] == 0x0D {
                n += 1
                out.append(SourceLine(number: n, utf8: bytes[start..<i]))
                if i < bytes.count && bytes[i] == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A { i += 1 }
                start = i + 1
            }
            i += 1
        }
        return out
    }

    /// Splits a file into tunes at `X:` lines. A file with no `X:` but with a `K:` is one tune.
    /// Fields before the first `X:` (the file header) apply to every tune: they are copied in
    /// after each `X:` line, keeping their own line numbers for error messages.
    static func split(_ lines: [SourceLine]) -> [RawTune] {
        var tunes: [RawTune] = []
        var fileHeader: [SourceLine] = []
        for line in lines {
            if line.chars.starts(with: ["X", ":"]) {
                let number = Int(String(line.chars.dropFirst(2)).stripComment.trimmingSpaces) ?? 0
                tunes.append(RawTune(number: number, title: "", lines: [line] + fileHeader))
            } else if tunes.isEmpty {
                let c = line.chars
                if c.starts(with: ["%", "%"]) || (c.count >= 2 && c[1] == ":" && "LMQCNRZOABDFGHISUm".contains(c[0])) {
                    fileHeader.append(line)
                }
            } else if !tunes.isEmpty {
                tunes[tunes.count - 1].lines.append(line)
                if tunes[tunes.count - 1].title.isEmpty, line.chars.starts(with: ["T", ":"]) {
                    tunes[tunes.count - 1].title = TextDecoding.sanitize(String(line.chars.dropFirst(2)).stripComment.trimmingSpaces)
                }
            }
        }
        if tunes.isEmpty, lines.contains(where: { $0.chars.starts(with: ["K", ":"]) }) {
            let title = lines.first { $0.chars.starts(with: ["T", ":"]) }.map { String($0.chars.dropFirst(2)).trimmingSpaces } ?? ""
            tunes.append(RawTune(number: 1, title: title, lines: lines))
        }
        return tunes
    }
}

/// A note placed in time, in whole notes from the start.
struct TimedNote {
    var pitch: Int
    var start: Rational
    var end: Rational
    var finger: Int?
    var spelling: SpelledPitch
    var velocity: UInt8
    /// A grace note: true an acciaccatura, false an appoggiatura (`Group.grace`).
    var grace: Bool? = nil
    var ornament: Ornament? = nil
    var neighbours: (upper: Int, lower: Int) = (0, 0)
    /// A rolled chord's note: struck this long after the chord (`etude:roll`).
    var rollDelay = Rational.zero
    /// The dynamic printed at this note (`Group.dynamic`), on its first note.
    var dynamic: String? = nil
    /// Staccato and tenuto (`Group.marks`): `etude:marks`.
    var marks: [Articulation] = []
    /// Hairpins and slurs at this note (`Group.spans`), on its first note.
    var spans = SpanMarks()
}

/// The annotations of a note's hairpins and slurs: slurs ending there first, then hairpins,
/// then slurs starting there.
func spanAnnotations(_ spans: SpanMarks) -> [Annotation] {
    guard !spans.isEmpty else { return [] }
    return Array(repeating: Annotation.slur(start: false), count: min(8, spans.slurEnds)) + spans.hairpins.map { .hairpin($0) }
        + Array(repeating: Annotation.slur(start: true), count: min(8, spans.slurStarts))
}

/// Lays a parsed tune out in playing order and writes the MIDI tracks.
enum Layout {
    struct VoiceTimeline {
        var notes: [TimedNote] = []
        var metas: [(Rational, Item)] = []
        var bars: [Rational] = []
    }

    /// Expands repeats and endings of one part of one voice into playing order.
    static func expand(_ items: [Item]) -> [Item] {
        var out: [Item] = []
        var i = 0
        var repeatStart = 0
        var pass = 1
        var jumps: [Int: Int] = [:]
        var skipping = false
        var steps = 0
        while i < items.count {
            steps += 1
            if steps > 1_000_000 { break }  // a malformed nest can never hang the reader
            let item = items[i]
            switch item {
            case .ending(let numbers):
                skipping = !numbers.contains(pass)
                i += 1
                continue
            case .bar(let kind):
                if skipping {
                    if kind == .endRepeat {
                        skipping = false
                        i += 1
                        continue
                    }
                    if kind == .plain { i += 1; continue }
                    skipping = false
                }
                switch kind {
                case .plain:
                    out.append(item)
                case .sectionEnd:
                    out.append(item)
                case .startRepeat:
                    out.append(item)
                    repeatStart = i + 1
                    pass = 1
                case .endRepeat, .doubleRepeat:
                    out.append(.bar(.plain))
                    let allowed = max(1, maxEnding(items, from: repeatStart) - 1)
                    if jumps[i, default: 0] < allowed {
                        jumps[i, default: 0] += 1
                        pass += 1
                        i = repeatStart
                        continue
                    }
                    pass = 1
                    repeatStart = i + 1
                }
                i += 1
            default:
                if !skipping { out.append(item) }
                i += 1
            }
        }
        return out
    }

    /// The highest ending number in the repeat that starts at `from`.
    static func maxEnding(_ items: [Item], from: Int) -> Int {
        var best = 0
        var seenEndRepeat = false
        var i = from
        while i < items.count {
            switch items[i] {
            case .ending(let n): best = max(best, n.max() ?? 0)
            case .bar(.startRepeat), .bar(.sectionEnd):
                if seenEndRepeat { return best }
            case .bar(.doubleRepeat):
                if seenEndRepeat { return best }
                seenEndRepeat = true
            case .bar(.endRepeat): seenEndRepeat = true
            default: break
            }
            i += 1
        }
        return best
    }

    /// Places expanded items in time from `offset`, joining tied notes.
    static func place(_ items: [Item], at offset: Rational, into tl: inout VoiceTimeline) -> Rational {
        var t = offset
        var open: [Int: Int] = [:]  // pitch → index of a note waiting for its tie
        var graces: [Group] = []
        // Grace notes before a group lasting `length` (zero: none to lead to): each a 32nd at
        // most half the group shared among them; an acciaccatura group ends on the beat (or is
        // struck with its note at the very start), an appoggiatura group starts on it. Returns
        // how much later the group's notes start.
        func placeGraces(before length: Rational) -> Rational {
            guard let first = graces.first else { return .zero }
            var each = Rational(1, 32)
            let half = length * Rational(1, 2 * graces.count)
            if length > .zero, half < each { each = half }
            let all = each * Rational(graces.count)
            var at = first.grace == true ? t - all : t
            if at < .zero { at = .zero }
            for g in graces {
                for n in g.notes {
                    tl.notes.append(TimedNote(pitch: n.pitch, start: at, end: at + each, finger: n.finger, spelling: n.spelling, velocity: g.velocity, grace: g.grace))
                }
                at += each
            }
            let shift = first.grace == false && all < length ? all : .zero
            graces = []
            return shift
        }
        for item in items {
            switch item {
            case .group(let g) where g.grace != nil:
                graces.append(g)
            case .group(let g):
                let shift = placeGraces(before: g.notes.isEmpty ? .zero : g.duration)
                var nextOpen: [Int: Int] = [:]
                // A rolled chord: each note above the lowest a 64th later (less when it is short).
                var roll: [Int: Rational] = [:]
                if g.rolled {
                    var step = Rational(1, 64)
                    let most = g.duration * Rational(1, 2 * g.notes.count)
                    if most < step { step = most }
                    for (k, p) in g.notes.map(\.pitch).sorted().enumerated() where roll[p] == nil { roll[p] = step * Rational(k) }
                }
                var dynamic = g.dynamic
                var spans = g.spans
                for n in g.notes {
                    if let idx = open[n.pitch] {
                        tl.notes[idx].end = t + g.duration
                        if n.tie { nextOpen[n.pitch] = idx }
                    } else {
                        let delay = roll[n.pitch] ?? .zero
                        tl.notes.append(TimedNote(pitch: n.pitch, start: t + shift + delay, end: t + g.duration, finger: n.finger, spelling: n.spelling, velocity: g.velocity,
                                                  ornament: n.ornament, neighbours: n.neighbours, rollDelay: delay, dynamic: dynamic, marks: g.marks))
                        tl.notes[tl.notes.count - 1].spans = spans
                        dynamic = nil
                        spans = SpanMarks()
                        if n.tie { nextOpen[n.pitch] = tl.notes.count - 1 }
                    }
                }
                open = nextOpen
                t += g.duration
            case .bar:
                _ = placeGraces(before: .zero)
                tl.bars.append(t)
            case .ending:
                break
            case .key, .meter, .tempo:
                tl.metas.append((t, item))
            }
        }
        _ = placeGraces(before: .zero)
        return t
    }

    static func build(_ tune: ParsedTune, warnings: inout [ABCWarning]) -> MIDIFile {
        // A voice with no notes or rests (e.g. the implicit voice of a tune whose music is all
        // under V: lines) gets no track.
        let voices = tune.voices.filter { v in
            v.parts.contains { p in p.items.contains { if case .group = $0 { return true } else { return false } } }
        }
        // Part labels in playing order.
        var bodyOrder: [String] = []
        for v in voices { for p in v.parts where !bodyOrder.contains(p.label) { bodyOrder.append(p.label) } }
        var order: [String] = []
        if bodyOrder.contains("") { order.append("") }
        if let header = tune.partOrder {
            order += header
            for label in header where !bodyOrder.contains(label) {
                warnings.append(ABCWarning(line: 0, column: 0, message: "P: names part \(label), which has no music; skipped"))
            }
        } else {
            order += bodyOrder.filter { !$0.isEmpty }
        }
        var timelines = Array(repeating: VoiceTimeline(), count: voices.count)
        var markers: [(Rational, String)] = []
        var t = Rational.zero
        var firstBar: Rational?
        for label in order {
            var longest = Rational.zero
            for (vi, v) in voices.enumerated() {
                let items = v.parts.filter { $0.label == label }.flatMap(\.items)
                guard !items.isEmpty else { continue }
                let expanded = expand(items)
                let barsBefore = timelines[vi].bars.count
                let end = place(expanded, at: t, into: &timelines[vi])
                if vi == 0, firstBar == nil, t == .zero {
                    firstBar = timelines[vi].bars[barsBefore...].first { $0 > .zero }
                }
                longest = max(longest, end - t)
            }
            if !label.isEmpty, longest > .zero {
                let title = tune.partTitles[label].map { "\(label): \($0)" } ?? label
                markers.append((t, title))
            }
            t += longest
        }
        let total = t
        let tpw = ABCImport.ticksPerWhole
        func ticks(_ r: Rational) -> Int { r.ticks(perWhole: tpw) }

        // Conductor track.
        var conductor: [MIDIEvent] = []
        let title = tune.title.map { TextDecoding.sanitize($0) }
        if let title { conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8)))) }
        var tags = LessonTags(title: title, composer: tune.composers.isEmpty ? nil : tune.composers.joined(separator: ", "), level: tune.level, description: tune.description ?? tune.notes.first)
        tags.composer = tags.composer.map { TextDecoding.sanitize($0) }
        tags.description = tags.description.map { TextDecoding.sanitize($0) }
        conductor += tags.events
        if let sig = tune.headerMeter {
            if let pickup = firstBar, let bar = tune.headerMeterLength, pickup < bar, let pickupSig = pickupSignature(pickup) {
                conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: pickupSig.bytes)))
                conductor.append(MIDIEvent(tick: ticks(pickup), .meta(type: MetaType.timeSignature, data: sig.bytes)))
            } else {
                conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: sig.bytes)))
            }
        }
        if let key = tune.headerKey.signature {
            conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.keySignature, data: key.bytes)))
        }
        conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: tempoBytes(tune.headerTempo ?? 500_000))))
        var metaEvents: [MIDIEvent] = []
        for (vi, tl) in timelines.enumerated() {
            for (at, item) in tl.metas {
                switch item {
                case .key(let k) where vi == 0:
                    metaEvents.append(MIDIEvent(tick: ticks(at), .meta(type: MetaType.keySignature, data: k.bytes)))
                case .meter(let m) where vi == 0:
                    metaEvents.append(MIDIEvent(tick: ticks(at), .meta(type: MetaType.timeSignature, data: m.bytes)))
                case .tempo(let us):
                    metaEvents.append(MIDIEvent(tick: ticks(at), .meta(type: MetaType.tempo, data: tempoBytes(us))))
                default:
                    break
                }
            }
        }
        // Same tick, same kind: the later one wins, once.
        var seen: Set<String> = []
        for e in metaEvents.reversed() {
            guard case .meta(let type, _) = e.kind else { continue }
            let k = "\(e.tick):\(type)"
            if seen.insert(k).inserted { conductor.append(e) }
        }
        for (at, name) in markers {
            conductor.append(MIDIEvent(tick: ticks(at), .meta(type: MetaType.marker, data: Array(TextDecoding.sanitize(name).utf8))))
        }
        conductor = stableSorted(conductor)
        conductor.append(MIDIEvent(tick: ticks(total), .meta(type: MetaType.endOfTrack, data: [])))

        var tracks = [Track(events: conductor)]
        let names = handNames(voices)
        for (vi, tl) in timelines.enumerated() {
            let channel = UInt8(vi < 9 ? vi : min(15, vi + 1))
            var head: [MIDIEvent] = [
                MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(TextDecoding.sanitize(names[vi]).utf8))),
                MIDIEvent(tick: 0, .programChange(channel: channel, program: 0)),
            ]
            // Order within a tick: releases, then each note's fingering and spelling, then
            // note-ons. The events are sorted through plain keys: sorting them in place would
            // move every text event's payload around.
            var events: [MIDIEvent] = []
            var keys: [(tick: Int, rank: Int, seq: Int, index: Int)] = []
            events.reserveCapacity(tl.notes.count * 4)
            keys.reserveCapacity(tl.notes.count * 4)
            func add(_ tick: Int, _ rank: Int, _ seq: Int, _ event: MIDIEvent) {
                keys.append((tick, rank, seq, events.count))
                events.append(event)
            }
            var seq = 0
            for n in tl.notes {
                let s = ticks(n.start)
                let e = ticks(n.end)
                guard e > s else { continue }
                if let d = n.dynamic { add(s, 1, 2 * seq + 1, Annotation.dynamic(d).event(tick: s)) }
                if !n.marks.isEmpty { add(s, 1, 2 * seq + 1, Annotation.marks(pitch: n.pitch, n.marks).event(tick: s)) }
                for a in spanAnnotations(n.spans) { add(s, 1, 2 * seq + 1, a.event(tick: s)) }
                if n.rollDelay > .zero, ticks(n.rollDelay) > 0 {
                    add(s, 1, 2 * seq + 1, Annotation.roll(pitch: n.pitch, delay: ticks(n.rollDelay)).event(tick: s))
                }
                if let o = n.ornament {
                    // Played out: the note as the ornament's first note, then its other notes.
                    add(s, 1, 2 * seq + 1, Annotation.ornament(pitch: n.pitch, o, ticks: e - s).event(tick: s))
                    let parts = o.realize(pitch: n.pitch, upper: n.neighbours.upper, lower: n.neighbours.lower, length: e - s, ticksPerQuarter: ABCImport.ticksPerQuarter)
                    for part in parts.dropFirst() where (0...127).contains(part.pitch) {
                        let ps = s + part.offset, pe = ps + part.length
                        add(pe, 0, seq, MIDIEvent(tick: pe, .noteOff(channel: channel, key: UInt8(part.pitch), velocity: 0)))
                        add(ps, 1, 2 * seq + 1, Annotation.ornamentNote(pitch: part.pitch).event(tick: ps))
                        add(ps, 2, seq, MIDIEvent(tick: ps, .noteOn(channel: channel, key: UInt8(part.pitch), velocity: n.velocity)))
                    }
                    let first = parts.first?.length ?? (e - s)
                    let p = UInt8(n.pitch)
                    add(s + first, 0, seq, MIDIEvent(tick: s + first, .noteOff(channel: channel, key: p, velocity: 0)))
                    if let f = n.finger { add(s, 1, 2 * seq, Fingering.event(tick: s, pitch: n.pitch, finger: f)) }
                    add(s, 1, 2 * seq + 1, Annotation.spelling(pitch: n.pitch, n.spelling).event(tick: s))
                    add(s, 2, seq, MIDIEvent(tick: s, .noteOn(channel: channel, key: p, velocity: n.velocity)))
                    seq += 1
                    continue
                }
                let p = UInt8(n.pitch)
                add(e, 0, seq, MIDIEvent(tick: e, .noteOff(channel: channel, key: p, velocity: 0)))
                if let f = n.finger { add(s, 1, 2 * seq, Fingering.event(tick: s, pitch: n.pitch, finger: f)) }
                add(s, 1, 2 * seq + 1, Annotation.spelling(pitch: n.pitch, n.spelling).event(tick: s))
                if let g = n.grace { add(s, 1, 2 * seq + 1, Annotation.grace(pitch: n.pitch, slashed: g).event(tick: s)) }
                add(s, 2, seq, MIDIEvent(tick: s, .noteOn(channel: channel, key: p, velocity: n.velocity)))
                seq += 1
            }
            keys.sort { ($0.tick, $0.rank, $0.seq) < ($1.tick, $1.rank, $1.seq) }
            head.reserveCapacity(head.count + keys.count + 1)
            for k in keys { head.append(events[k.index]) }
            head.append(MIDIEvent(tick: ticks(total), .meta(type: MetaType.endOfTrack, data: [])))
            tracks.append(Track(events: head))
        }
        return MIDIFile(format: 1, division: .ticksPerQuarter(ABCImport.ticksPerQuarter), tracks: tracks)
    }

    static func stableSorted(_ events: [MIDIEvent]) -> [MIDIEvent] {
        events.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
    }

    static func tempoBytes(_ us: Int) -> [UInt8] {
        [UInt8((us >> 16) & 0xFF), UInt8((us >> 8) & 0xFF), UInt8(us & 0xFF)]
    }

    /// A time signature exactly as long as an anacrusis (e.g. 1/4 before 3/4), if one exists.
    static func pickupSignature(_ length: Rational) -> TimeSignature? {
        var power = 2
        while power <= 6 {
            let d = 1 << power
            let n = length * Rational(d)
            if n.den == 1, n.num > 0 { return TimeSignature(numerator: n.num, denominatorPower: power) }
            power += 1
        }
        return nil
    }

    /// Track names that tell the lesson engine which hand plays each voice.
    static func handNames(_ voices: [Voice]) -> [String] {
        func words(_ v: Voice) -> String { (v.id + " " + (v.name ?? "")).lowercased() }
        func saysLeft(_ v: Voice) -> Bool {
            let w = words(v)
            return w.contains("left") || w.split(whereSeparator: { !$0.isLetter }).contains { $0 == "lh" || $0 == "l" }
        }
        func saysRight(_ v: Voice) -> Bool {
            let w = words(v)
            return w.contains("right") || w.split(whereSeparator: { !$0.isLetter }).contains { $0 == "rh" || $0 == "r" }
        }
        let left = voices.map { saysLeft($0) || (!saysRight($0) && $0.bass == true) }
        let right = voices.indices.map { i in
            saysRight(voices[i]) || (!left[i] && (voices.count == 1 || (voices.count == 2 && left.contains(true))))
        }
        return voices.indices.map { i in
            if left[i] { return "Left Hand" }
            if right[i] { return "Right Hand" }
            return voices[i].name ?? "Voice \(voices[i].id)"
        }
    }
}
