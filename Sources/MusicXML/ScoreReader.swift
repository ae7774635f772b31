import MIDIFile

/// A value that takes effect at a place in the written score: measure index (in document
/// order) and ticks from that measure's start.
struct Timed<V> {
    var measure: Int
    var pos: Int
    var value: V
    /// The output track it belongs to (clefs, pedal), or the part (dynamics); 0 otherwise.
    var owner: Int = 0
}

/// A pitched note as written, placed in its measure. Velocity is resolved after the part is
/// read (a dynamic mark may come later in the document than a note it applies to).
struct WrittenNote {
    var measure: Int
    var start: Int
    var duration: Int
    var pitch: Int
    var spelling: SpelledPitch?
    var part: Int
    var staff: Int
    /// Output track, set once staves are known.
    var track = 0
    var tieStart = false
    var tieStop = false
    var finger: Int?
    var velocity: UInt8 = 0
    var explicitVelocity: UInt8?
    /// The head as written (`<type>`, dots, `<time-modification>`), nil without a `<type>`.
    var written: WrittenValue?
    /// Articulations and fermata printed on it.
    var marks: [Articulation] = []
    /// A grace note: true for an acciaccatura (slashed, before the beat), false for an
    /// appoggiatura (on the beat); nil for a note of the bar's time.
    var grace: Bool?
    /// An ornament printed on it, played by `MIDIBuilder` (with the key's neighbours).
    var ornament: Ornament?
    var neighbours: (upper: Int, lower: Int) = (0, 0)
    /// In an arpeggiated chord (`<arpeggiate/>`): rolled upwards by `MIDIBuilder`.
    var rolled = false
}

/// Where a measure's content lives: in a partwise score the `<measure>` itself; in a timewise
/// score the `<part>` inside the `<measure>` (whose number and attributes are the measure's).
struct MeasureRef {
    var content: Int
    var header: Int
}

/// What a measure says about form and numbering, gathered over all parts.
struct MeasureInfo {
    var numberText = ""
    var implicit = false
    var line = 0
    /// Ticks: the furthest any part reaches (0 when nothing is written; the time signature then).
    var length = 0
    var forwardRepeat = false
    var backwardRepeat = false
    var repeatTimes: Int?
    var endingStart: [Int]?
    var endingStop = false
    var segno = false
    var codaTarget = false
    var codaSymbol = false
    var toCoda = false
    var daCapo = false
    var dalSegno = false
    var fine = false
    var multipleRest = 0
    /// A double or final bar line before / after the measure: where a repeat without a
    /// forward sign goes back to.
    var doubleBarLeft = false
    var doubleBarRight = false
}

struct PartInfo {
    var id: String
    var name: String
    var program: UInt8
    var channel: UInt8 = 0
    var staves = 1
    var pitched = false
    var firstTrack = 0
}

struct StaffTrack {
    var name: String
    var part: Int
    var staff: Int
    var channel: UInt8
    var program: UInt8
    var hand: HandTag?
}

/// The written score: everything the performance and the MIDI file are made from.
struct Score {
    var title: String?
    var composer: String?
    /// Etude's own catalogue fields, from `<miscellaneous-field name="etude-level">` and
    /// `"etude-description"` (as `%%etude-level` in ABC): a lesson written as a score files
    /// itself under its level.
    var level: Int?
    var description: String?
    var ticksPerQuarter = 480
    var parts: [PartInfo] = []
    var tracks: [StaffTrack] = []
    var measures: [MeasureInfo] = []
    var notes: [WrittenNote] = []
    var tempos: [Timed<Double>] = []
    var times: [Timed<TimeSignature>] = []
    var keys: [Timed<KeySignature>] = []
    var clefs: [Timed<Clef>] = []
    var pedals: [Timed<UInt8>] = []
    /// Ottava lines (`<octave-shift>`): octaves a staff sounds above (+) or below (−) its
    /// writing, 0 where a line stops; owner as for clefs.
    var ottavas: [Timed<Int>] = []
    /// Dynamic marks as printed (`<dynamics>`), owner as for pedals (the staff's track).
    var dynamicMarks: [Timed<String>] = []
    /// Hairpins (`<wedge>`): starts and stops, owner as for dynamics.
    var hairpins: [Timed<Hairpin>] = []
    /// Slurs (`<slur>` on a note): true where one starts, false where one stops, owner as for dynamics.
    var slurs: [Timed<Bool>] = []
    var markers: [Timed<String>] = []
    var warnings: [MusicXMLWarning] = []
}

/// Reads the tree of a `score-partwise` or `score-timewise` document into a `Score`.
struct ScoreReader {
    let tree: XMLTree
    let limits: MusicXMLLimits
    var score = Score()
    private var dynamics: [Timed<UInt8>] = []
    /// Grace notes read, placed once the note they lead to is read (`placeGraces`).
    private var pendingGraces: [(note: WrittenNote, slot: Int)] = []
    /// An appoggiatura's main note starts this much later: (measure, written start, shift).
    private var graceShift: (measure: Int, start: Int, shift: Int)?
    private var partTimes: [[Timed<TimeSignature>]] = []
    private var partKeys: [[Timed<KeySignature>]] = []
    /// Keys written without `<mode>`: major or minor is taken from the music (`resolveModes`).
    private var keysWithoutMode: Set<KeyPlace> = []
    private struct KeyPlace: Hashable { var part: Int, index: Int }

    init(tree: XMLTree, limits: MusicXMLLimits) {
        self.tree = tree
        self.limits = limits
    }

    /// Longest measure or position accepted (in quarters): anything longer is a broken file.
    static let maxMeasureQuarters = 1024

    mutating func read() throws(MusicXMLError) -> Score {
        let root = tree.root
        readHeader(root)
        let (order, measuresByPart) = partsAndMeasures(root)
        guard !order.isEmpty else {
            throw MusicXMLError("no notes: the score has no parts (<part> elements)")
        }
        score.ticksPerQuarter = ticksPerQuarter()
        let count = measuresByPart.map(\.count).max() ?? 0
        score.measures = Array(repeating: MeasureInfo(), count: count)
        // Numbers and implicit flags from the first part that has the measure.
        for refs in measuresByPart.reversed() {
            for (w, ref) in refs.enumerated() {
                score.measures[w].numberText = tree.attribute(ref.header, "number") ?? ""
                score.measures[w].implicit = tree.attribute(ref.header, "implicit") == "yes"
                score.measures[w].line = tree.line(ref.header)
            }
        }
        for (p, partID) in order.enumerated() {
            score.parts.append(partHeader(partID))
            partTimes.append([])
            partKeys.append([])
            readPart(p, measuresByPart[p])
        }
        assignTracks()
        notPlayedWarning()
        guard !score.notes.isEmpty else {
            let parts = score.parts.count, bars = score.measures.count
            throw MusicXMLError("no notes: the score has \(parts) part\(parts == 1 ? "" : "s") and \(bars) measure\(bars == 1 ? "" : "s") but no pitched notes to play")
        }
        score.times = partTimes.first { !$0.isEmpty } ?? []
        resolveModes()
        score.keys = partKeys.first { !$0.isEmpty } ?? []
        let byPlace: (Int, Int, Int, Int) -> Bool = { am, ap, bm, bp in am != bm ? am < bm : ap < bp }
        score.tempos = stable(score.tempos, byPlace)
        score.times = stable(score.times, byPlace)
        score.keys = stable(score.keys, byPlace)
        score.clefs = stable(score.clefs, byPlace)
        score.pedals = stable(score.pedals, byPlace)
        score.dynamicMarks = stable(score.dynamicMarks, byPlace)
        score.hairpins = stable(score.hairpins, byPlace)
        score.slurs = stable(score.slurs, byPlace)
        score.ottavas = stable(score.ottavas, byPlace)
        score.markers = stable(score.markers, byPlace)
        // Measures nothing is written in last as long as their time signature says.
        let timeIndex = TimelineIndex(score.times, measures: count)
        for w in 0..<count where score.measures[w].length == 0 {
            let sig = timeIndex.atStart(w) ?? TimeSignature(numerator: 4, denominatorPower: 2)
            score.measures[w].length = barTicks(sig)
        }
        return score
    }

    func barTicks(_ sig: TimeSignature) -> Int {
        max(1, sig.numerator * score.ticksPerQuarter * 4 / max(1, sig.denominator))
    }

    private func stable<V>(_ list: [Timed<V>], _ less: (Int, Int, Int, Int) -> Bool) -> [Timed<V>] {
        list.enumerated().sorted { a, b in
            if a.element.measure != b.element.measure || a.element.pos != b.element.pos {
                return less(a.element.measure, a.element.pos, b.element.measure, b.element.pos)
            }
            return a.offset < b.offset
        }.map(\.element)
    }

    // MARK: Header and part list

    private mutating func readHeader(_ root: Int) {
        var work: String?
        var movement: String?
        var credits: [Int] = []
        for c in tree.children(root) {
            switch tree.tag(c) {
            case .work?:
                if let t = tree.childText(c, .workTitle), !t.isEmpty { work = t }
            case .movementTitle?:
                let t = tree.text(c)
                if !t.isEmpty { movement = t }
            case .identification?:
                var composers: [String] = []
                for k in tree.children(c) where tree.tag(k) == .creator && tree.attribute(k, "type") == "composer" {
                    let t = tree.text(k)
                    if !t.isEmpty { composers.append(t) }
                }
                if !composers.isEmpty { score.composer = clean(composers.joined(separator: ", ")) }
                for m in tree.children(c) where tree.tag(m) == .miscellaneous {
                    for f in tree.children(m) where tree.tag(f) == .miscellaneousField {
                        let t = tree.text(f).trimmingCharacters(in: .whitespacesAndNewlines)
                        switch tree.attribute(f, "name") {
                        case "etude-level"?: if let n = Int(t), (0...99).contains(n) { score.level = n }
                        case "etude-description"?: if !t.isEmpty { score.description = clean(t) }
                        default: break
                        }
                    }
                }
            default:
                if tree.name(c) == "credit" { credits.append(c) }
            }
        }
        switch (work, movement) {
        case let (w?, m?) where w != m: score.title = clean("\(w): \(m)")
        case let (w?, _): score.title = clean(w)
        case let (nil, m?): score.title = clean(m)
        default: score.title = creditTitle(credits).map(clean)
        }
    }

    /// The title printed on the first page (`<credit>`), for a score that has no `<work-title>`
    /// or `<movement-title>` (many editors write only that): the credit typed `title`, else
    /// the largest words on page 1 that no other credit type claims (a composer, the rights).
    private func creditTitle(_ credits: [Int]) -> String? {
        var best: (text: String, size: Double)?
        for c in credits {
            if let page = tree.attribute(c, "page"), page != "1" { continue }
            var types: [String] = []
            var words: [String] = []
            var size = 0.0
            for k in tree.children(c) {
                switch tree.name(k) {
                case "credit-type": types.append(tree.text(k).trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
                case "credit-words":
                    let t = tree.text(k).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
                    if !t.isEmpty { words.append(t) }
                    if let f = tree.attribute(k, "font-size").flatMap(Double.init) { size = max(size, f) }
                default: break
                }
            }
            let text = words.joined(separator: " ")
            guard !text.isEmpty else { continue }
            if types.contains("title") { return text }
            guard types.isEmpty else { continue }
            if best == nil || size > (best?.size ?? 0) { best = (text, size) }
        }
        return best?.text
    }

    private func clean(_ s: String) -> String {
        String(TextDecoding.sanitize(s).prefix(200))
    }

    /// Parts in part-list order (parts the list does not name follow in document order) and
    /// each part's measures.
    private func partsAndMeasures(_ root: Int) -> ([String], [[MeasureRef]]) {
        var listed: [String] = []
        if let list = tree.child(root, .partList) {
            for c in tree.children(list) where tree.tag(c) == .scorePart {
                if let id = tree.attribute(c, "id"), !listed.contains(id) { listed.append(id) }
            }
        }
        var byID: [String: [MeasureRef]] = [:]
        var seen: [String] = []
        if tree.tag(root) == .scorePartwise {
            for (k, c) in tree.children(root).enumerated() where tree.tag(c) == .part {
                let id = tree.attribute(c, "id") ?? "#\(k)"
                if byID[id] == nil { seen.append(id) }
                for m in tree.children(c) where tree.tag(m) == .measure {
                    byID[id, default: []].append(MeasureRef(content: m, header: m))
                }
            }
        } else {
            // Timewise: measure by measure, a <part> for each part inside. A part missing
            // from a measure reads that measure as empty, so measures stay aligned.
            var measureNodes: [Int] = []
            var contents: [String: [Int: Int]] = [:]
            for m in tree.children(root) where tree.tag(m) == .measure {
                let w = measureNodes.count
                measureNodes.append(m)
                for p in tree.children(m) where tree.tag(p) == .part {
                    let id = tree.attribute(p, "id") ?? "?"
                    if contents[id] == nil { seen.append(id) }
                    if contents[id, default: [:]][w] == nil { contents[id, default: [:]][w] = p }
                }
            }
            for id in seen {
                let own = contents[id] ?? [:]
                byID[id] = measureNodes.indices.map { w in MeasureRef(content: own[w] ?? measureNodes[w], header: measureNodes[w]) }
            }
        }
        var order = listed.filter { byID[$0] != nil }
        for id in seen where !order.contains(id) { order.append(id) }
        return (order, order.map { byID[$0] ?? [] })
    }

    private func partHeader(_ id: String) -> PartInfo {
        var info = PartInfo(id: id, name: "", program: 0)
        guard let list = tree.child(tree.root, .partList) else { return info }
        for c in tree.children(list) where tree.tag(c) == .scorePart && tree.attribute(c, "id") == id {
            if let name = tree.childText(c, .partName) { info.name = clean(name) }
            if let mi = tree.child(c, .midiInstrument), let p = tree.childText(mi, .midiProgram).flatMap({ Int($0) }), (1...128).contains(p) {
                info.program = UInt8(p - 1)
            }
            break
        }
        return info
    }

    /// Ticks per quarter in which every duration of the score is whole: the least common
    /// multiple of its `<divisions>`, at least 480; 960 (rounding) when that would not fit.
    private func ticksPerQuarter() -> Int {
        var l = 1
        var fits = true
        for (i, node) in tree.nodes.enumerated() where node.name == Tag.divisions.rawValue {
            guard let d = Double(tree.text(i)), d.isFinite, d >= 1, d <= 32767 else { continue }
            let n = Int(d)
            guard Double(n) == d else { fits = false; continue }
            let g = gcd(l, n)
            let (m, overflow) = (l / g).multipliedReportingOverflow(by: n)
            if overflow || m > 32767 { fits = false; break }
            l = m
        }
        guard fits else { return 960 }
        var tpq = l
        while tpq < 480 { tpq += l }
        return tpq <= 32767 ? tpq : l
    }

    private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    // MARK: One part

    private struct PartState {
        var divisions: Double = 1
        var chromatic = 0
        var diatonic = 0
        var octaveChange = 0
        var staves = 1
        var notes: [WrittenNote] = []
        var pitched = 0
        var unpitched = 0
        var percussionClef = false
        var maxStaff = 1
        /// A two-note tremolo's first notes (indices into `notes`), waiting for their partners.
        var tremoloStarts: [Int] = []
        var tremoloStops = 0
        /// The tuplet in progress is printed with a bracket; `tupletEnded` once its last note is read.
        var tupletBracket = false
        var tupletEnded = false
    }

    private mutating func readPart(_ p: Int, _ refs: [MeasureRef]) {
        var st = PartState()
        for (w, ref) in refs.enumerated() {
            var pos = 0, maxPos = 0, lastStart = 0
            // A timewise measure missing this part has the <measure> itself as its content.
            if tree.tag(tree.root) == .scoreTimewise && ref.content == ref.header { continue }
            for c in tree.children(ref.content) {
                switch tree.tag(c) {
                case .attributes?:
                    readAttributes(c, p: p, w: w, pos: pos, st: &st)
                case .note?:
                    readNote(c, p: p, w: w, pos: &pos, lastStart: &lastStart, st: &st)
                    maxPos = max(maxPos, pos)
                case .backup?:
                    placeGraces(w: w, at: pos, duration: 0, pitched: false, st: &st)
                    let d = ticks(tree.childText(c, .duration), st.divisions)
                    pos = max(0, pos - d)
                case .forward?:
                    pos = min(pos + ticks(tree.childText(c, .duration), st.divisions), maxPosition)
                    maxPos = max(maxPos, pos)
                case .direction?:
                    readDirection(c, p: p, w: w, pos: pos, st: st)
                case .sound?:
                    readSound(c, p: p, w: w, pos: pos, staffTrack: 1)
                case .barline?:
                    readBarline(c, w: w)
                default:
                    break
                }
            }
            // Graces with no note after them in the bar (a trill's ending): before the bar line.
            placeGraces(w: w, at: maxPos, duration: 0, pitched: false, st: &st)
            score.measures[w].length = max(score.measures[w].length, maxPos)
        }
        st.staves = max(st.staves, st.maxStaff)
        score.parts[p].staves = st.staves
        score.parts[p].pitched = st.pitched > 0
        if st.unpitched > 0 || (st.percussionClef && st.pitched == 0) {
            let name = score.parts[p].name.isEmpty ? "part \(score.parts[p].id)" : "\"\(score.parts[p].name)\""
            if st.pitched == 0 {
                score.warnings.append(MusicXMLWarning("\(name) is a percussion part (\(st.unpitched) unpitched notes): left out"))
            } else {
                score.warnings.append(MusicXMLWarning("\(name): \(st.unpitched) unpitched (percussion) notes left out"))
            }
        }
        // Velocities: the dynamic in force where each note starts.
        let marks = dynamics.filter { $0.owner == p }.enumerated().sorted { a, b in
            (a.element.measure, a.element.pos, a.offset) < (b.element.measure, b.element.pos, b.offset)
        }.map(\.element)
        let index = TimelineIndex(marks, measures: score.measures.count)
        for i in st.notes.indices {
            let n = st.notes[i]
            st.notes[i].velocity = n.explicitVelocity ?? index.at(n.measure, n.start) ?? 80
        }
        score.notes += st.notes
    }

    private var maxPosition: Int { Self.maxMeasureQuarters * score.ticksPerQuarter }

    /// A duration in divisions as ticks (0 for anything missing or absurd).
    private func ticks(_ text: String?, _ divisions: Double) -> Int {
        guard let text, let d = Double(text), d.isFinite, d > 0, divisions > 0 else { return 0 }
        let t = d * Double(score.ticksPerQuarter) / divisions
        guard t.isFinite else { return 0 }
        return Int(min(t, Double(maxPosition)).rounded())
    }

    /// A key without `<mode>` is in the mode of the key with the same signature before it in
    /// its part; failing that, minor when the music's last bass note (else its first) is the
    /// relative minor's tonic, major otherwise.
    private mutating func resolveModes() {
        guard !keysWithoutMode.isEmpty else { return }
        let ordered = score.notes.sorted { ($0.measure, $0.start, $0.pitch) < ($1.measure, $1.start, $1.pitch) }
        func bass(_ notes: ArraySlice<WrittenNote>) -> Int? { notes.map(\.pitch).min() }
        let lastBass = ordered.last.flatMap { last in bass(ordered.filter { $0.measure == last.measure && $0.start == last.start }[...]) }
        let firstBass = ordered.first.flatMap { first in bass(ordered.filter { $0.measure == first.measure && $0.start == first.start }[...]) }
        for (p, keys) in partKeys.enumerated() {
            for i in keys.indices where keysWithoutMode.contains(KeyPlace(part: p, index: i)) {
                let sharps = keys[i].value.sharps
                if let earlier = keys[..<i].indices.last(where: { j in keys[j].value.sharps == sharps && !keysWithoutMode.contains(KeyPlace(part: p, index: j)) }) {
                    partKeys[p][i].value.minor = keys[earlier].value.minor
                    continue
                }
                let minorTonic = ((sharps * 7 + 9) % 12 + 12) % 12
                let majorTonic = ((sharps * 7) % 12 + 12) % 12
                let tonic = [lastBass, firstBass].compactMap { $0 }.map { $0 % 12 }.first { $0 == minorTonic || $0 == majorTonic }
                partKeys[p][i].value.minor = tonic == minorTonic
            }
        }
    }

    private mutating func readAttributes(_ a: Int, p: Int, w: Int, pos: Int, st: inout PartState) {
        for c in tree.children(a) {
            switch tree.tag(c) {
            case .divisions?:
                if let d = Double(tree.text(c)), d.isFinite, d > 0 { st.divisions = d } else {
                    score.warnings.append(MusicXMLWarning(line: tree.line(c), "<divisions> \(tree.text(c).prefix(40)) is not a positive number: \(String(format: "%g", st.divisions)) kept"))
                }
            case .key?:
                guard tree.attribute(c, "number") == nil || tree.attribute(c, "number") == "1",
                      let f = tree.childText(c, .fifths).flatMap({ Int($0) }), (-7...7).contains(f) else { continue }
                let mode = tree.childText(c, .mode).map { String($0.filter { !$0.isWhitespace }).lowercased() }
                partKeys[p].append(Timed(measure: w, pos: pos, value: KeySignature(sharps: f, minor: mode == "minor")))
                if mode != "minor" && mode != "major" { keysWithoutMode.insert(KeyPlace(part: p, index: partKeys[p].count - 1)) }
            case .time?:
                if let sig = timeSignature(c) { partTimes[p].append(Timed(measure: w, pos: pos, value: sig)) }
            case .staves?:
                if let n = Int(tree.text(c)), (1...16).contains(n) { st.staves = n }
            case .clef?:
                let staff = tree.attribute(c, "number").flatMap { Int($0) } ?? 1
                guard (1...16).contains(staff) else { continue }
                st.maxStaff = max(st.maxStaff, staff)
                if let clef = clef(c) {
                    if clef == .percussion { st.percussionClef = true }
                    score.clefs.append(Timed(measure: w, pos: pos, value: clef, owner: p * 16 + staff - 1))
                }
            case .transpose?:
                guard tree.attribute(c, "number") == nil || tree.attribute(c, "number") == "1" else { continue }
                st.chromatic = tree.childText(c, .chromatic).flatMap { Int($0) }.map { max(-48, min(48, $0)) } ?? 0
                st.diatonic = tree.childText(c, .diatonic).flatMap { Int($0) }.map { max(-28, min(28, $0)) } ?? 0
                st.octaveChange = tree.childText(c, .octaveChange).flatMap { Int($0) }.map { max(-4, min(4, $0)) } ?? 0
                if tree.child(c, .double) != nil { st.octaveChange -= 1 }
            case .measureStyle?:
                if let n = tree.childText(c, .multipleRest).flatMap({ Int($0) }), n > 1 {
                    score.measures[w].multipleRest = min(n, 10_000)
                }
            default:
                break
            }
        }
    }

    private func timeSignature(_ t: Int) -> TimeSignature? {
        guard tree.child(t, .senzaMisura) == nil else { return nil }
        var pairs: [(Int, Int)] = []
        var beats: Int?
        for c in tree.children(t) {
            if tree.tag(c) == .beats {
                // "3+2" counts as 5.
                beats = tree.text(c).split(separator: "+").reduce(0) { $0 + (Int($1.trimmingCharacters(in: .whitespaces)) ?? 0) }
            } else if tree.tag(c) == .beatType, let b = beats, let d = Int(tree.text(c)), d > 0, d <= 64, b > 0, b <= 255 {
                pairs.append((b, d))
                beats = nil
            }
        }
        guard let first = pairs.first else { return nil }
        var numerator = first.0, denominator = first.1
        if pairs.count > 1 {
            denominator = pairs.map(\.1).max() ?? denominator
            numerator = pairs.reduce(0) { $0 + $1.0 * denominator / $1.1 }
        }
        var power = 0
        while (1 << power) < denominator && power < 6 { power += 1 }
        return TimeSignature(numerator: max(1, min(255, numerator)), denominatorPower: power)
    }

    private func clef(_ c: Int) -> Clef? {
        let sign = tree.childText(c, .sign)?.uppercased() ?? ""
        let line = tree.childText(c, .line).flatMap { Int($0) }
        let shift = tree.childText(c, .clefOctaveChange).flatMap { Int($0) } ?? 0
        switch sign {
        case "G" where line == 1 && shift == 0: return .french
        case "G": return shift < 0 ? .treble8vb : shift > 0 ? .treble8va : .treble
        case "F": return shift < 0 ? .bass8vb : shift > 0 ? .bass8va : .bass
        case "C": return (line ?? 3) >= 4 ? .tenor : .alto
        case "PERCUSSION": return .percussion
        default: return nil
        }
    }

    private mutating func readNote(_ n: Int, p: Int, w: Int, pos: inout Int, lastStart: inout Int, st: inout PartState) {
        var isChord = false, isGrace = false, isCue = false, isRest = false, slashed = false
        var pitchNode: Int?, unpitched = false
        var durationText: String?
        var typeText: String?
        var dots = 0
        var timeMod: (Int, Int)?
        var staff = 1
        var tieStart = false, tieStop = false, hasTie = false
        var tiedStart = false, tiedStop = false
        var finger: Int?
        var shorten = 1
        var marks: [Articulation] = []
        var ornament: Ornament?
        var tremolo: String?
        var tupletStart: Bool?, tupletStop = false
        var rolled = false
        var slurStart = false, slurStop = false
        for c in tree.children(n) {
            switch tree.tag(c) {
            case .chord?: isChord = true
            case .grace?:
                isGrace = true
                slashed = tree.attribute(c, "slash") == "yes"
            case .cue?: isCue = true
            case .rest?: isRest = true
            case .pitch?: pitchNode = c
            case .unpitched?: unpitched = true
            case .duration?: durationText = tree.text(c)
            case .type?: typeText = tree.text(c)
            case .dot?: dots += 1
            case .timeModification?:
                if let a = tree.childText(c, .actualNotes).flatMap({ Int($0) }), let b = tree.childText(c, .normalNotes).flatMap({ Int($0) }), a > 0, b > 0 {
                    timeMod = (a, b)
                }
            case .staff?:
                if let s = Int(tree.text(c)), (1...16).contains(s) { staff = s }
            case .tie?:
                hasTie = true
                switch tree.attribute(c, "type") {
                case "start"?: tieStart = true
                case "stop"?: tieStop = true
                default: break
                }
            case .notations?:
                for k in tree.children(c) {
                    switch tree.tag(k) {
                    case .tied?:
                        switch tree.attribute(k, "type") {
                        case "start"?: tiedStart = true
                        case "stop"?: tiedStop = true
                        case "continue"?: tiedStart = true; tiedStop = true
                        default: break
                        }
                    case .technical?:
                        for f in tree.children(k) where tree.tag(f) == .fingering && finger == nil && tree.attribute(f, "alternate") != "yes" {
                            finger = tree.text(f).unicodeScalars.lazy.compactMap { s -> Int? in
                                guard let v = Int(String(s)), (1...5).contains(v) else { return nil }
                                return v
                            }.first
                        }
                    case .articulations?:
                        for a in tree.children(k) {
                            switch tree.tag(a) {
                            case .staccato?, .spiccato?:
                                shorten = max(shorten, 2)
                                marks.append(.staccato)
                            case .staccatissimo?:
                                shorten = max(shorten, 4)
                                marks.append(.staccatissimo)
                            default:
                                switch tree.name(a) {
                                case "accent": marks.append(.accent)
                                case "strong-accent": marks.append(.marcato)
                                case "tenuto": marks.append(.tenuto)
                                default: break
                                }
                            }
                        }
                    default:
                        if tree.name(k) == "fermata" { marks.append(.fermata) }
                        if tree.name(k) == "slur" {
                            switch tree.attribute(k, "type") {
                            case "start"?: slurStart = true
                            case "stop"?: slurStop = true
                            default: break
                            }
                        }
                        if tree.name(k) == "arpeggiate" { rolled = true }
                        if tree.name(k) == "tuplet" {
                            if tree.attribute(k, "type") == "start" { tupletStart = tree.attribute(k, "bracket") == "yes" }
                            if tree.attribute(k, "type") == "stop" { tupletStop = true }
                        }
                        if tree.name(k) == "ornaments" {
                            for o in tree.children(k) where ornament == nil {
                                switch tree.name(o) {
                                case "trill-mark": ornament = .trill
                                case "mordent": ornament = .mordent
                                case "inverted-mordent": ornament = .invertedMordent
                                case "turn": ornament = .turn
                                case "inverted-turn": ornament = .invertedTurn
                                case "shake": ornament = .shake
                                case "tremolo":
                                    let kind = tree.attribute(o, "type") ?? "single"
                                    let strokes = Int(tree.text(o).filter { !$0.isWhitespace }) ?? 3
                                    ornament = .tremolo(strokes: strokes, alternating: kind == "start" || kind == "stop")
                                    tremolo = kind
                                default: break
                                }
                            }
                        }
                    }
                }
            default:
                break
            }
        }
        var duration = ticks(durationText, st.divisions)
        if let text = durationText, let d = Double(text), d.isFinite, d * Double(score.ticksPerQuarter) / st.divisions > Double(maxPosition) {
            // Said, not clamped silently (issue 31): 9.2e18 divisions is no note length.
            score.warnings.append(MusicXMLWarning(line: tree.line(n), "a <duration> of \(text) is longer than a bar can be: cut to \(Self.maxMeasureQuarters) quarters"))
        }
        if durationText == nil, !isGrace, let type = typeText, let q = Self.typeQuarters[type] {
            var quarters = q * (2 - 1 / Double(1 << min(dots, 8)))
            if let (a, b) = timeMod { quarters = quarters * Double(b) / Double(a) }
            duration = Int((quarters * Double(score.ticksPerQuarter)).rounded())
        }
        if isGrace {
            if isRest || isCue { return }
            // Its length and place are set when the note it leads to is read.
            duration = max(1, score.ticksPerQuarter / 8)
        } else if !isChord {
            placeGraces(w: w, at: pos, duration: isCue || isRest || unpitched ? 0 : duration, pitched: !(isCue || isRest || unpitched), st: &st)
        }
        var start = isChord && !isGrace ? lastStart : pos
        if !isChord && !isGrace {
            lastStart = pos
            pos = min(pos + duration, maxPosition)
        }
        if !isGrace, let g = graceShift, g.measure == w, g.start == start, duration > g.shift {
            start += g.shift
            duration -= g.shift
        }
        st.maxStaff = max(st.maxStaff, staff)
        if !isGrace {
            // The bracket of a tuplet holds from its first note or rest to its last (chord and all).
            if !isChord && st.tupletEnded { st.tupletBracket = false; st.tupletEnded = false }
            if let b = tupletStart { st.tupletBracket = b; st.tupletEnded = false }
            if tupletStop { st.tupletEnded = true }
        }
        if isCue || isRest { return }
        if unpitched { st.unpitched += 1; return }
        guard let pn = pitchNode, duration > 0 else { return }
        guard let letter = tree.childText(pn, .step).flatMap({ Self.letters[$0.uppercased()] }),
              let octave = tree.childText(pn, .octave).flatMap({ Int($0) }), (-1...10).contains(octave) else {
            score.warnings.append(MusicXMLWarning(line: tree.line(n), "a note without a readable <step>/<octave>: left out"))
            return
        }
        let alterValue = tree.childText(pn, .alter).flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil } ?? 0
        let alter = Int(max(-3, min(3, alterValue)).rounded())
        let written = (octave + 1) * 12 + Self.semitones[letter] + alter
        let sounding = written + st.chromatic + 12 * st.octaveChange
        guard (0...127).contains(sounding) else {
            score.warnings.append(MusicXMLWarning(line: tree.line(n), "a note outside the MIDI range (0–127): left out"))
            return
        }
        st.pitched += 1
        var spelling: SpelledPitch?
        let soundingLetter = ((letter + st.diatonic) % 7 + 7) % 7
        var soundingAlter = ((sounding - Self.semitones[soundingLetter]) % 12 + 12) % 12
        if soundingAlter > 6 { soundingAlter -= 12 }
        if (-2...2).contains(soundingAlter) { spelling = SpelledPitch(letter: soundingLetter, alter: soundingAlter) }
        var explicit: UInt8?
        if let d = tree.attribute(n, "dynamics").flatMap({ Double($0) }), d.isFinite, d >= 0 {
            explicit = UInt8(max(1, min(127, Int((d * 90 / 100).rounded()))))
        }
        var note = WrittenNote(measure: w, start: start, duration: max(1, duration / shorten), pitch: sounding,
                               spelling: spelling, part: p, staff: staff,
                               tieStart: hasTie ? tieStart : tiedStart, tieStop: hasTie ? tieStop : tiedStop,
                               finger: finger, explicitVelocity: explicit)
        note.marks = marks
        if let type = typeText, let value = Self.typeValues[type] {
            note.written = WrittenValue(value: value, dots: min(3, dots), actual: max(1, min(64, timeMod?.0 ?? 1)),
                                        normal: max(1, min(64, timeMod?.1 ?? 1)), ticks: duration, bracket: timeMod != nil && st.tupletBracket)
        }
        if let o = ornament, !isGrace, let s = spelling {
            let fifths = partKeys[p].last { $0.measure < w || ($0.measure == w && $0.pos <= start) }?.value.sharps ?? 0
            note.ornament = o
            note.neighbours = Ornament.neighbours(of: sounding, spelling: s, fifths: fifths)
        }
        if !isGrace, let kind = tremolo, kind == "start" || kind == "stop", note.ornament != nil {
            // A two-note tremolo: each note alternates with its partner (chords pair in order).
            if kind == "start" {
                if st.tremoloStops > 0 { st.tremoloStarts = []; st.tremoloStops = 0 }
                st.tremoloStarts.append(st.notes.count)
                note.neighbours = (sounding, sounding)
            } else if !st.tremoloStarts.isEmpty {
                let partner = st.tremoloStarts[st.tremoloStops % st.tremoloStarts.count]
                note.neighbours = (st.notes[partner].pitch, st.notes[partner].pitch)
                if st.tremoloStops < st.tremoloStarts.count { st.notes[partner].neighbours = (sounding, sounding) }
                st.tremoloStops += 1
            } else {
                note.ornament = nil
            }
        }
        note.rolled = rolled && !isGrace
        if isGrace {
            note.grace = slashed
            let slot = isChord ? (pendingGraces.last?.slot ?? 0) : (pendingGraces.last.map { $0.slot + 1 } ?? 0)
            pendingGraces.append((note, slot))
            return
        }
        if slurStop { score.slurs.append(Timed(measure: w, pos: start, value: false, owner: p * 16 + staff - 1)) }
        if slurStart { score.slurs.append(Timed(measure: w, pos: start, value: true, owner: p * 16 + staff - 1)) }
        st.notes.append(note)
    }

    /// Places the grace notes read since the last note, leading to a note at `start` lasting
    /// `duration` ticks: each short (a 32nd, at most half the main note shared among them),
    /// an acciaccatura group ending on the beat, an appoggiatura group starting on it with the
    /// main note (and its chord) after it. A group with nothing after it in its voice (a trill's
    /// ending before `<backup>` or the bar line) ends there if slashed, else starts there.
    private mutating func placeGraces(w: Int, at start: Int, duration: Int, pitched: Bool, st: inout PartState) {
        graceShift = nil
        guard let last = pendingGraces.last else { return }
        let slots = last.slot + 1
        var each = max(1, score.ticksPerQuarter / 8)
        if duration > 0 { each = max(1, min(each, duration / (2 * slots))) }
        let before = pendingGraces[0].note.grace ?? false
        // In the first bar, with no room before the beat, an acciaccatura is crushed: struck
        // with its main note.
        let first = before ? (w == 0 ? max(0, start - each * slots) : start - each * slots) : start
        for (g, slot) in pendingGraces {
            var n = g
            n.measure = w
            n.start = first + slot * each
            n.duration = each
            if var v = n.written {
                v.ticks = each
                n.written = v
            }
            st.notes.append(n)
        }
        if !before && pitched && duration > each * slots { graceShift = (w, start, each * slots) }
        pendingGraces = []
    }

    static let semitones = [0, 2, 4, 5, 7, 9, 11]
    /// `<type>` names as `WrittenValue.value` (the values the staff draws).
    static let typeValues: [String: Int] = ["whole": 0, "half": 1, "quarter": 2, "eighth": 3, "16th": 4, "32nd": 5, "64th": 6]
    static let letters: [String: Int] = ["C": 0, "D": 1, "E": 2, "F": 3, "G": 4, "A": 5, "B": 6]
    static let typeQuarters: [String: Double] = [
        "1024th": 1.0 / 256, "512th": 1.0 / 128, "256th": 1.0 / 64, "128th": 1.0 / 32, "64th": 1.0 / 16, "32nd": 1.0 / 8,
        "16th": 0.25, "eighth": 0.5, "quarter": 1, "half": 2, "whole": 4, "breve": 8, "long": 16, "maxima": 32,
    ]

    static let dynamicVelocities: [String: UInt8] = [
        "pppppp": 8, "ppppp": 12, "pppp": 16, "ppp": 24, "pp": 36, "p": 49, "mp": 64, "mf": 80, "f": 96,
        "ff": 112, "fff": 120, "ffff": 124, "fffff": 126, "ffffff": 127, "fp": 49, "sfp": 49, "pf": 96,
    ]

    private mutating func readDirection(_ d: Int, p: Int, w: Int, pos: Int, st: PartState) {
        var at = pos
        if let o = tree.child(d, .offset), let v = Double(tree.text(o)), v.isFinite {
            let t = v * Double(score.ticksPerQuarter) / st.divisions
            if t.isFinite { at = max(0, min(maxPosition, pos + Int(t.rounded()))) }
        }
        let staff = tree.childText(d, .staff).flatMap { Int($0) }.map { max(1, min(16, $0)) } ?? 1
        var soundTempo = false
        if let s = tree.child(d, .sound) {
            soundTempo = tree.attribute(s, "tempo") != nil
            readSound(s, p: p, w: w, pos: at, staffTrack: staff)
        }
        var words: [String] = []
        var codaHere = false
        for dt in tree.children(d) where tree.tag(dt) == .directionType {
            for c in tree.children(dt) {
                switch tree.tag(c) {
                case .words?:
                    let t = tree.text(c)
                    if !t.isEmpty { words.append(t) }
                case .rehearsal?:
                    let t = clean(tree.text(c))
                    if !t.isEmpty { score.markers.append(Timed(measure: w, pos: at, value: t)) }
                case .segno?:
                    score.measures[w].segno = true
                case .coda?:
                    codaHere = true
                case .dynamics?:
                    for k in tree.children(c) {
                        if let v = Self.dynamicVelocities[tree.name(k)] {
                            dynamics.append(Timed(measure: w, pos: at, value: v, owner: p))
                        }
                        let name = tree.name(k)
                        if (1...8).contains(name.count), name.allSatisfy({ "pmfszrn".contains($0) }) {
                            score.dynamicMarks.append(Timed(measure: w, pos: at, value: name, owner: p * 16 + staff - 1))
                        }
                    }
                case .metronome?:
                    if !soundTempo, let qpm = metronome(c) {
                        score.tempos.append(Timed(measure: w, pos: at, value: qpm))
                    }
                case .pedal?:
                    let track = p * 16 + staff - 1
                    switch tree.attribute(c, "type") {
                    case "start"?: score.pedals.append(Timed(measure: w, pos: at, value: 127, owner: track))
                    case "stop"?: score.pedals.append(Timed(measure: w, pos: at, value: 0, owner: track))
                    case "change"?:
                        score.pedals.append(Timed(measure: w, pos: at, value: 0, owner: track))
                        score.pedals.append(Timed(measure: w, pos: at, value: 127, owner: track))
                    default: break
                    }
                default:
                    if tree.name(c) == "wedge" {
                        let kind: Hairpin? = switch tree.attribute(c, "type") {
                        case "crescendo"?: .crescendo
                        case "diminuendo"?: .diminuendo
                        case "stop"?: .stop
                        default: nil
                        }
                        if let kind { score.hairpins.append(Timed(measure: w, pos: at, value: kind, owner: p * 16 + staff - 1)) }
                    }
                    if tree.name(c) == "octave-shift", let octaves = Self.ottava(type: tree.attribute(c, "type"), size: tree.attribute(c, "size")) {
                        score.ottavas.append(Timed(measure: w, pos: at, value: octaves, owner: p * 16 + staff - 1))
                    }
                }
            }
        }
        let text = words.joined(separator: " ")
        let form = FormWords.classify(text)
        if form.contains(.daCapo) { score.measures[w].daCapo = true }
        if form.contains(.dalSegno) { score.measures[w].dalSegno = true }
        if form.contains(.fine) { score.measures[w].fine = true }
        if form.contains(.toCoda) { score.measures[w].toCoda = true }
        if form.contains(.coda) { score.measures[w].codaTarget = true }
        if codaHere && !form.contains(.toCoda) { score.measures[w].codaSymbol = true }
        if let section = FormWords.sectionName(text) {
            score.markers.append(Timed(measure: w, pos: at, value: clean(section)))
        }
    }

    /// An `<octave-shift>` as octaves the staff sounds above its writing: `down` (the notes are
    /// written lower than they sound: 8va) is +1, `up` (8vb) −1, size 15 two octaves; `stop` 0;
    /// nil for `continue` and anything else.
    static func ottava(type: String?, size: String?) -> Int? {
        let octaves = size == "15" ? 2 : (size == "22" ? 3 : 1)
        switch type {
        case "down"?: return min(2, octaves)
        case "up"?: return -min(2, octaves)
        case "stop"?: return 0
        default: return nil
        }
    }

    /// Quarter notes a minute from a metronome mark (`beat-unit`, dots, `per-minute`).
    private func metronome(_ m: Int) -> Double? {
        guard let unit = tree.childText(m, .beatUnit), let q = Self.typeQuarters[unit],
              let perMinute = tree.childText(m, .perMinute) else { return nil }
        var dots = 0
        for c in tree.children(m) where tree.tag(c) == .beatUnitDot { dots += 1 }
        // "c. 120", "120-132": the first number.
        let digits = perMinute.drop { !$0.isNumber }.prefix { $0.isNumber || $0 == "." }
        guard let v = Double(digits), v.isFinite, v > 0 else { return nil }
        let qpm = v * q * (2 - 1 / Double(1 << min(dots, 8)))
        return (10...1000).contains(qpm) ? qpm : nil
    }

    private mutating func readSound(_ s: Int, p: Int, w: Int, pos: Int, staffTrack: Int) {
        if let t = tree.attribute(s, "tempo").flatMap({ Double($0) }), t.isFinite, t >= 10, t <= 1000 {
            score.tempos.append(Timed(measure: w, pos: pos, value: t))
        }
        if let d = tree.attribute(s, "dynamics").flatMap({ Double($0) }), d.isFinite, d >= 0 {
            dynamics.append(Timed(measure: w, pos: pos, value: UInt8(max(1, min(127, Int((d * 90 / 100).rounded())))), owner: p))
        }
        if tree.attribute(s, "dacapo") == "yes" { score.measures[w].daCapo = true }
        if tree.attribute(s, "dalsegno") != nil { score.measures[w].dalSegno = true }
        if tree.attribute(s, "segno") != nil { score.measures[w].segno = true }
        if tree.attribute(s, "coda") != nil { score.measures[w].codaTarget = true }
        if tree.attribute(s, "tocoda") != nil { score.measures[w].toCoda = true }
        if tree.attribute(s, "fine") != nil { score.measures[w].fine = true }
        if let damper = tree.attribute(s, "damper-pedal") {
            let on = damper == "yes" || (Double(damper).map { $0 > 0 } ?? false)
            score.pedals.append(Timed(measure: w, pos: pos, value: on ? 127 : 0, owner: p * 16 + staffTrack - 1))
        }
    }

    private mutating func readBarline(_ b: Int, w: Int) {
        let location = tree.attribute(b, "location") ?? "right"
        for c in tree.children(b) {
            if tree.name(c) == "bar-style", ["light-light", "light-heavy", "heavy-light", "heavy-heavy"].contains(tree.text(c)) {
                if location == "left" { score.measures[w].doubleBarLeft = true } else if location == "right" { score.measures[w].doubleBarRight = true }
            }
            switch tree.tag(c) {
            case .repeat?:
                if tree.attribute(c, "direction") == "forward", location != "right" {
                    score.measures[w].forwardRepeat = true
                } else if tree.attribute(c, "direction") == "backward", location != "left" {
                    score.measures[w].backwardRepeat = true
                    if let t = tree.attribute(c, "times").flatMap({ Int($0) }), t >= 1 {
                        score.measures[w].repeatTimes = min(t, 64)
                        if t > 64 { score.warnings.append(MusicXMLWarning(line: tree.line(c), "times=\"\(t)\" on a repeat: played 64 times, the most Etude plays")) }
                    }
                }
            case .ending?:
                let type = tree.attribute(c, "type") ?? ""
                if type == "start", score.measures[w].endingStart == nil {
                    let numbers = FormWords.endingNumbers(tree.attribute(c, "number") ?? "", text: tree.text(c))
                    score.measures[w].endingStart = numbers
                } else if type == "stop" || type == "discontinue" {
                    score.measures[w].endingStop = true
                }
            case .segno?:
                score.measures[w].segno = true
            case .coda?:
                score.measures[w].codaSymbol = true
            default:
                break
            }
        }
        if tree.attribute(b, "segno") != nil { score.measures[w].segno = true }
        if tree.attribute(b, "coda") != nil { score.measures[w].codaTarget = true }
    }

    // MARK: Tracks

    /// One output track per staff of each pitched part, channels in part order (10 skipped).
    private mutating func assignTracks() {
        var channel = 0
        var trackOf: [Int: Int] = [:]
        for p in score.parts.indices where score.parts[p].pitched {
            let part = score.parts[p]
            let ch = UInt8(channel)
            channel += 1
            if channel == 9 { channel += 1 }
            if channel > 15 { channel = 0 }
            score.parts[p].channel = ch
            score.parts[p].firstTrack = score.tracks.count
            let name = part.name.isEmpty ? "Part \(p + 1)" : part.name
            for s in 1...part.staves {
                let hand: HandTag? = part.staves >= 2 ? (s == 1 ? .right : s == 2 ? .left : nil) : nil
                trackOf[p * 16 + s - 1] = score.tracks.count
                score.tracks.append(StaffTrack(name: name, part: p, staff: s, channel: ch, program: part.program, hand: hand))
            }
        }
        score.notes = score.notes.compactMap { n in
            guard let t = trackOf[n.part * 16 + n.staff - 1] else { return nil }
            var m = n
            m.track = t
            return m
        }
        score.clefs = score.clefs.compactMap { c in trackOf[c.owner].map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) } }
        score.ottavas = score.ottavas.compactMap { c in trackOf[c.owner].map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) } }
        score.dynamicMarks = score.dynamicMarks.compactMap { c in
            let track = trackOf[c.owner] ?? trackOf[(c.owner / 16) * 16]
            return track.map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) }
        }
        score.hairpins = score.hairpins.compactMap { c in
            let track = trackOf[c.owner] ?? trackOf[(c.owner / 16) * 16]
            return track.map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) }
        }
        score.slurs = score.slurs.compactMap { c in
            let track = trackOf[c.owner] ?? trackOf[(c.owner / 16) * 16]
            return track.map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) }
        }
        score.pedals = score.pedals.compactMap { c in
            // A pedal mark under a staff the part lacks goes to its first staff.
            let track = trackOf[c.owner] ?? trackOf[(c.owner / 16) * 16]
            return track.map { Timed(measure: c.measure, pos: c.pos, value: c.value, owner: $0) }
        }
    }

    private mutating func notPlayedWarning() {
        var counts: [String: Int] = [:]
        var first: [String: Int] = [:]
        var ids: [Int32: String] = [:]
        for (name, what) in Tag.notPlayed {
            if let id = tree.nameIDs[name] { ids[id] = what }
        }
        guard !ids.isEmpty else { return }
        for (i, node) in tree.nodes.enumerated() {
            guard let what = ids[node.name] else { continue }
            counts[what, default: 0] += 1
            if first[what] == nil { first[what] = tree.line(i) }
        }
        guard !counts.isEmpty else { return }
        let list = counts.keys.sorted { (first[$0] ?? 0) < (first[$1] ?? 0) }.map { "\($0) (\(counts[$0] ?? 0))" }
        let line = first.values.min() ?? 0
        score.warnings.append(MusicXMLWarning(line: line, "not played as written: " + list.joined(separator: ", ")))
    }
}

/// Values in force along the written score: what holds at a measure's start, what changes inside.
struct TimelineIndex<V> {
    let entries: [Timed<V>]
    /// For each measure: the first entry at that measure or later.
    private let firstAt: [Int]

    init(_ entries: [Timed<V>], measures: Int) {
        self.entries = entries
        var first = Array(repeating: entries.count, count: measures + 1)
        var k = entries.count
        var w = measures
        while w >= 0 {
            while k > 0, entries[k - 1].measure >= w { k -= 1 }
            first[w] = k
            w -= 1
        }
        firstAt = first
    }

    /// The value in force at a measure's first tick (changes at its tick 0 included).
    func atStart(_ w: Int) -> V? {
        at(w, 0)
    }

    /// The value in force at a place: the last change at or before it.
    func at(_ w: Int, _ pos: Int) -> V? {
        guard w >= 0, w < firstAt.count else { return entries.last?.value }
        var k = firstAt[w]
        let end = w + 1 < firstAt.count ? firstAt[w + 1] : entries.count
        while k < end, entries[k].pos <= pos { k += 1 }
        return k > 0 ? entries[k - 1].value : nil
    }

    /// Every change in a measure, in order.
    func all(_ w: Int) -> ArraySlice<Timed<V>> {
        guard w >= 0, w + 1 < firstAt.count else { return [] }
        return entries[firstAt[w]..<firstAt[w + 1]]
    }

    /// Changes strictly inside a measure (after its first tick), in order.
    func inside(_ w: Int) -> ArraySlice<Timed<V>> {
        guard w >= 0, w + 1 < firstAt.count else { return [] }
        var k = firstAt[w]
        let end = firstAt[w + 1]
        while k < end, entries[k].pos == 0 { k += 1 }
        return entries[k..<end]
    }
}
