import MIDIFile

/// Decides which hand plays each note. Order of evidence: the user's split point; staff
/// annotations (`etude:hand=…`, as the MusicXML reader writes them); voice names
/// (soprano and alto right, tenor and bass left); hand words in track names; two piano
/// parts by mean pitch; three or more parts split by register and voice leading into two
/// playable hands; one part, a single line for one hand or split by the hand model
/// (`HandModel`). Drums (channel 10) and non-piano instruments are accompaniment.
enum HandAssigner {
    struct Result {
        var notes: [LessonNote]
        var assignment: HandAssignment
    }

    /// A group of notes sharing a track and channel: the unit hands are assigned to.
    struct PartKey: Hashable, Comparable {
        var track: Int
        var channel: UInt8
        static func < (a: PartKey, b: PartKey) -> Bool {
            a.track != b.track ? a.track < b.track : a.channel < b.channel
        }
    }

    /// Widest span a hand is given when parts are shared out between the hands: a tenth.
    static let playableSpan = 16

    /// `channelEvents` are in tick order (as `Lesson` keeps them); `staves` are the file's
    /// staff annotations (track index → hand).
    static func assign(notes source: [Note], file: MIDIFile, channelEvents: [ChannelEvent], split: Int?,
                       staves: [Int: HandTag] = [:]) -> Result {
        var assigner = Assigner(source: source, file: file, channelEvents: channelEvents)
        let assignment = assigner.run(split: split, staves: staves)
        return Result(notes: assigner.notes, assignment: assignment)
    }

    /// The working state of one assignment: the notes, grouped into parts, and how to name them.
    struct Assigner {
        var notes: [LessonNote]
        let file: MIDIFile
        var byPart: [PartKey: [Int]] = [:]
        var keys: [PartKey] = []
        var piano: [PartKey] = []
        /// Said after every description when no part had a piano program.
        var fallbackNote = ""
        var partsPerTrack: [Int: Int] = [:]
        /// Names given to one channel of a track (channel prefix, then a track or instrument name).
        var channelNames: [PartKey: String] = [:]
        var instrumentNames: [Int: String] = [:]
        var labelCounts: [String: Int] = [:]

        init(source: [Note], file: MIDIFile, channelEvents: [ChannelEvent]) {
            self.file = file
            notes = source.map {
                LessonNote(pitch: $0.pitch, velocity: $0.velocity, channel: $0.channel, track: $0.track,
                           startTick: $0.startTick, endTick: $0.endTick, part: .accompaniment)
            }
            for (i, n) in notes.enumerated() {
                byPart[PartKey(track: n.track, channel: n.channel), default: []].append(i)
            }
            keys = byPart.keys.sorted()
            for key in keys { partsPerTrack[key.track, default: 0] += 1 }

            // Which parts are piano: not channel 10, program in force at the first note in 0...7
            // (else the part's own first program). One pass over the events, then a binary search
            // per part: a file of thousands of parts is not read thousands of times.
            var programChanges: [UInt8: [(tick: Int, program: Int)]] = [:]  // by channel, in tick order
            var firstOwnProgram: [PartKey: Int] = [:]
            for e in channelEvents {
                guard case .programChange(let c, let p) = e.kind else { continue }
                programChanges[c, default: []].append((e.tick, Int(p)))
                let own = PartKey(track: e.track, channel: c)
                if firstOwnProgram[own] == nil { firstOwnProgram[own] = Int(p) }
            }
            func program(of key: PartKey, firstTick: Int) -> Int {
                let changes = programChanges[key.channel] ?? []
                // The last change at or before the first note (`channelEvents` is in tick order).
                var lo = 0, hi = changes.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if changes[mid].tick <= firstTick { lo = mid + 1 } else { hi = mid }
                }
                let found = lo > 0 ? changes[lo - 1].program : nil
                return found ?? firstOwnProgram[key] ?? 0
            }
            var melodic: [PartKey] = []
            for key in keys where key.channel != 9 {
                melodic.append(key)
                let first = byPart[key].flatMap { $0.first.map { notes[$0].startTick } } ?? 0
                if (0...7).contains(program(of: key, firstTick: first)) { piano.append(key) }
            }
            if piano.isEmpty, !melodic.isEmpty {
                piano = melodic
                fallbackNote = " (no piano program found; all non-drum parts used)"
            }

            // Channel names: a channel prefix (0x20) followed by a track or instrument name.
            for (t, track) in file.tracks.enumerated() {
                var prefix: UInt8?
                for e in track.events {
                    switch e.kind {
                    case .meta(MetaType.channelPrefix, let data) where data.count == 1:
                        prefix = data[0] & 0x0F
                    case .meta(let type, let data) where type == MetaType.trackName || type == MetaType.instrumentName:
                        let text = TextDecoding.display(data)
                        guard !text.isEmpty else { break }
                        if let c = prefix {
                            let key = PartKey(track: t, channel: c)
                            if channelNames[key] == nil { channelNames[key] = text }
                        } else if type == MetaType.instrumentName, instrumentNames[t] == nil {
                            instrumentNames[t] = text
                        }
                    case .meta, .sysex, .escape:
                        break
                    default:
                        prefix = nil
                    }
                }
            }
            for key in keys { labelCounts[plainLabel(key), default: 0] += 1 }
        }

        func trackName(_ key: PartKey) -> String? {
            file.tracks.indices.contains(key.track) ? file.tracks[key.track].name : nil
        }

        /// How a part is named in descriptions: `"RH"`, `track 3`, `"Piano" channel 2`, and
        /// `"Piano" (track 3)` when another part has the same name.
        func label(_ key: PartKey) -> String {
            let plain = plainLabel(key)
            return (labelCounts[plain] ?? 0) > 1 ? plain + " (track \(key.track + 1))" : plain
        }

        func plainLabel(_ key: PartKey) -> String {
            if let own = channelNames[key], (partsPerTrack[key.track] ?? 0) > 1 { return "\"\(own)\"" }
            let name = trackName(key)
            let multiChannel = (partsPerTrack[key.track] ?? 0) > 1
            var s = name.map { "\"\($0)\"" } ?? "track \(key.track + 1)"
            if multiChannel || name == nil { s += " channel \(Int(key.channel) + 1)" }
            return s
        }

        /// The voice a part is named for: its channel's own name, else its track's, else the
        /// track's instrument name.
        func voice(_ key: PartKey) -> Voice? {
            for name in [channelNames[key], trackName(key), instrumentNames[key.track]] {
                if let name, let v = Voice.from(name: name) { return v }
            }
            return nil
        }

        mutating func give(_ key: PartKey, _ part: Part) {
            for i in byPart[key] ?? [] { notes[i].part = part }
        }

        mutating func run(split: Int?, staves: [Int: HandTag]) -> HandAssignment {
            // Staff-tagged tracks are hands whatever their program.
            let tagged = keys.filter { $0.channel != 9 && staves[$0.track] != nil }
            guard !piano.isEmpty || !tagged.isEmpty else {
                return HandAssignment(method: .none, description: "no piano notes: everything is accompaniment")
            }

            // 0. The user's split point wins.
            if let split {
                let parts = tagged.isEmpty ? piano : Array(Set(piano + tagged)).sorted()
                for key in parts {
                    for i in byPart[key] ?? [] { notes[i].part = .hand(Int(notes[i].pitch) >= split ? .right : .left) }
                }
                return HandAssignment(
                    method: .splitPoint,
                    description: "split at \(PitchName.name(split)) (--split): at or above → right, below → left" + fallbackNote)
            }

            // 1. Staves: the score says which hand reads each staff.
            if !tagged.isEmpty {
                var said: [String] = []
                var hands = Set<Hand>()
                for key in tagged {
                    let hand: Hand = staves[key.track] == .left ? .left : .right
                    hands.insert(hand)
                    give(key, .hand(hand))
                    said.append("\(label(key)) → \(hand.rawValue)")
                }
                let rest = piano.filter { staves[$0.track] == nil }
                var description = "staves: " + said.joined(separator: ", ")
                if !rest.isEmpty {
                    if hands.count == 2 {
                        description += "; " + rest.map(label).joined(separator: ", ") + " → accompaniment (no staff of the hands)"
                    } else {
                        let other = assign(rest)
                        description += "; other parts: " + other.description
                    }
                }
                return HandAssignment(method: .staves, description: description)
            }

            let result = assign(piano)
            return HandAssignment(method: result.method, description: result.description + fallbackNote)
        }

        /// The rules after staves, applied to `parts` (piano parts, or all melodic ones).
        mutating func assign(_ parts: [PartKey]) -> HandAssignment {
            // 2. Voice names: soprano and alto right, tenor and bass left. Two voices at least,
            // one of them not a bass (a "Bass" alone is a hand word: "Treble"/"Bass").
            var voices: [PartKey: Voice] = [:]
            for key in parts { if let v = voice(key) { voices[key] = v } }
            if voices.count >= 2, voices.values.contains(where: { $0 != .bass }) {
                let voiced = parts.filter { voices[$0] != nil }
                let others = parts.filter { voices[$0] == nil }
                if others.isEmpty {
                    var said: [String] = []
                    for key in voiced {
                        guard let v = voices[key] else { continue }
                        give(key, .hand(v.hand))
                        let named = label(key).lowercased() == "\"\(v.rawValue)\""
                        said.append("\(label(key))" + (named ? "" : " (\(v.rawValue))") + " → \(v.hand.rawValue)")
                    }
                    return HandAssignment(method: .voiceNames, description: "voice names, soprano and alto right, tenor and bass left: " + said.joined(separator: ", "))
                }
                // Voices beside other parts: a choir with its keyboard part, which is the pianist's.
                let rest = assign(others)
                return HandAssignment(method: rest.method, description: rest.description + "; voices "
                                      + voiced.map(label).joined(separator: ", ") + " → accompaniment (the other parts are the keyboard's)")
            }

            // 3. Hand words in track names.
            var named: [PartKey: Hand] = [:]
            for key in parts {
                if let name = trackName(key), let h = HandAssigner.hand(fromName: name) { named[key] = h }
            }
            if !named.isEmpty {
                let unnamed = parts.filter { named[$0] == nil }
                let namedHands = Set(named.values)
                var inferred: [PartKey: Hand] = [:]
                if namedHands.count == 1, unnamed.count == 1, let only = namedHands.first {
                    inferred[unnamed[0]] = only.other
                }
                for key in parts {
                    give(key, (named[key] ?? inferred[key]).map { .hand($0) } ?? .accompaniment)
                }
                var said = parts.compactMap { key in named[key].map { "\(label(key)) → \($0.rawValue)" } }
                said += inferred.keys.sorted().compactMap { key in inferred[key].map { "\(label(key)) → \($0.rawValue) (the other piano part)" } }
                return HandAssignment(method: .trackNames, description: "track names: " + said.joined(separator: ", "))
            }

            // 4. Two piano tracks or channels: by mean pitch.
            if parts.count == 2 {
                var means: [PartKey: Double] = [:]
                for key in parts {
                    let idx = byPart[key] ?? []
                    means[key] = idx.isEmpty ? 0 : Double(idx.reduce(0) { $0 + Int(notes[$1].pitch) }) / Double(idx.count)
                }
                let a = parts[0], b = parts[1]
                let aRight = (means[a] ?? 0) >= (means[b] ?? 0)
                let handOf: [PartKey: Hand] = [a: aRight ? .right : .left, b: aRight ? .left : .right]
                for key in parts { give(key, .hand(handOf[key] ?? .right)) }
                let said = parts.map { key in
                    "\(label(key)) (mean \(PitchName.name(Int((means[key] ?? 0).rounded())))) → \((handOf[key] ?? .right).rawValue)"
                }
                return HandAssignment(method: .partsByPitch, description: "2 piano parts, higher mean pitch = right: " + said.joined(separator: ", "))
            }

            // 5. Three or more parts (a string quartet, a chorale without names): shared out
            // between two hands by register and voice leading, each hand within a tenth.
            if parts.count >= 3 {
                var idx: [Int] = []
                var voiceOf: [Int: Int32] = [:]
                for (v, key) in parts.enumerated() {
                    for i in byPart[key] ?? [] {
                        idx.append(i)
                        voiceOf[i] = Int32(v)
                    }
                }
                idx.sort { notes[$0].startTick != notes[$1].startTick ? notes[$0].startTick < notes[$1].startTick : notes[$0].pitch < notes[$1].pitch }
                let line = idx.map { HandModel.Note(start: notes[$0].startTick, end: notes[$0].endTick, pitch: Int(notes[$0].pitch), voice: voiceOf[$0] ?? -1) }
                var work = HandModel.Work()
                let hands = HandModel.split(line, ticksPerQuarter: file.ticksPerQuarter ?? 480,
                                            options: HandModel.Options(maxSpan: HandAssigner.playableSpan), work: &work).hands
                var left = 0, right = 0, dropped = 0
                for (k, i) in idx.enumerated() {
                    switch hands[k] {
                    case .left?: notes[i].part = .hand(.left); left += 1
                    case .right?: notes[i].part = .hand(.right); right += 1
                    case nil: notes[i].part = .accompaniment; dropped += 1
                    }
                }
                var description = "\(parts.count) parts (" + parts.map(label).joined(separator: ", ")
                    + ") shared out by register and voice leading, each hand within a tenth"
                if dropped > 0 { description += "; \(dropped) notes no hand can reach are accompaniment" }
                return HandAssignment(method: .voiceLeading, description: description)
            }

            // 6. One part: a single line is one hand; otherwise the hand model splits it.
            guard let key = parts.first else {
                return HandAssignment(method: .none, description: "no piano notes: everything is accompaniment")
            }
            let idx = (byPart[key] ?? []).sorted { notes[$0].startTick != notes[$1].startTick ? notes[$0].startTick < notes[$1].startTick : notes[$0].pitch < notes[$1].pitch }
            let pitches = idx.map { Int(notes[$0].pitch) }
            let lo = pitches.min() ?? 60, hi = pitches.max() ?? 60
            let tpq = file.ticksPerQuarter ?? 480
            let line = idx.map { (start: notes[$0].startTick, end: notes[$0].endTick, pitch: Int(notes[$0].pitch)) }
            if HandAssigner.maxPolyphony(line.map { ($0.start, $0.end) }) <= 1 && hi - lo <= 19
                && HandAssigner.phraseMeanSpread(line, ticksPerQuarter: tpq) < 10 {
                let mean = Double(pitches.reduce(0, +)) / Double(max(1, pitches.count))
                let h: Hand = mean >= 57 ? .right : .left
                give(key, .hand(h))
                return HandAssignment(
                    method: .singleHand, description: "\(label(key)) is a single line (\(PitchName.name(lo))–\(PitchName.name(hi))) → \(h.rawValue)")
            }
            var work = HandModel.Work()
            let hands = HandModel.split(line.map { HandModel.Note(start: $0.start, end: $0.end, pitch: $0.pitch) },
                                        ticksPerQuarter: tpq, work: &work).hands
            for (k, i) in idx.enumerated() { notes[i].part = .hand(hands[k] ?? .right) }
            return HandAssignment(method: .handModel, description: "\(label(key)) split by the hand model (\(HandModel.accuracyNote); override with --split)")
        }
    }

    static func maxPolyphony(_ spans: [(Int, Int)]) -> Int {
        var points: [(Int, Int)] = []
        for (s, e) in spans where e > s {
            points.append((s, 1))
            points.append((e, -1))
        }
        points.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var cur = 0, best = 0
        for p in points {
            cur += p.1
            best = max(best, cur)
        }
        return best
    }

    /// A monophonic phrase from note `i`: single notes that do not overlap, up to a rest of a
    /// beat, a chord or a leap of a seventh or more. An index range into `notes`.
    static func phrase(startingAt i: Int, in notes: [(start: Int, end: Int, pitch: Int)], ticksPerQuarter: Int) -> Range<Int> {
        var j = i + 1
        while j < notes.count {
            let prev = notes[j - 1], n = notes[j]
            // Overlap or a chord ends the phrase; so does a rest of a beat or a leap of a
            // seventh or more (where a hands-separate exercise changes hands).
            if n.start < prev.end || n.start - prev.end >= ticksPerQuarter || abs(n.pitch - prev.pitch) >= 10 { break }
            if j + 1 < notes.count, notes[j + 1].start == n.start { break }
            j += 1
        }
        return i..<j
    }

    /// How far apart (semitones) the mean pitches of a line's phrases lie: small for a melody
    /// in one hand, large for hands-separate passages an octave or more apart.
    static func phraseMeanSpread(_ notes: [(start: Int, end: Int, pitch: Int)], ticksPerQuarter: Int) -> Double {
        var means: [Double] = []
        var i = 0
        while i < notes.count {
            let r = phrase(startingAt: i, in: notes, ticksPerQuarter: ticksPerQuarter)
            if r.count >= 3 { means.append(Double(notes[r].reduce(0) { $0 + $1.pitch }) / Double(r.count)) }
            i = max(r.upperBound, i + 1)
        }
        guard let lo = means.min(), let hi = means.max() else { return 0 }
        return hi - lo
    }

    /// Reads a hand from a track name in English, German, Czech, French, Italian or Spanish,
    /// ignoring case, punctuation and diacritics ("R.H.", "Rechte Hand", "Levá ruka", "Treble").
    static func hand(fromName name: String) -> Hand? {
        let folded = fold(name)
        var tokens: [String] = []
        var current = ""
        for ch in folded {
            if ch.isLetter || ch.isNumber {
                current.append(ch)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        // Join runs of single letters: "r.h." → "rh".
        var words: [String] = []
        var run = ""
        for t in tokens {
            if t.count == 1 {
                run += t
            } else {
                if !run.isEmpty { words.append(run); run = "" }
                words.append(t)
            }
        }
        if !run.isEmpty { words.append(run) }

        let rightWords: Set<String> = ["right", "rh", "treble", "rechte", "rechts", "recht", "prava", "pravy", "pravou",
                                       "droite", "destra", "derecha", "diskant", "upper", "md"]
        let leftWords: Set<String> = ["left", "lh", "bass", "linke", "links", "link", "leva", "levy", "levou",
                                      "gauche", "sinistra", "izquierda", "lower", "mg", "ms"]
        var right = false, left = false
        for w in words {
            if rightWords.contains(w) || w.hasPrefix("right") || w.hasPrefix("rechte") || w.hasPrefix("treble") { right = true }
            if leftWords.contains(w) || w.hasPrefix("left") || w.hasPrefix("linke") { left = true }
        }
        if right == left { return nil }
        return right ? .right : .left
    }

    /// Lowercased with common Latin diacritics removed (pure Swift, no locale tables).
    static func fold(_ s: String) -> String {
        let map: [Character: String] = [
            "á": "a", "à": "a", "â": "a", "ä": "a", "ã": "a", "å": "a", "ą": "a",
            "é": "e", "è": "e", "ê": "e", "ë": "e", "ě": "e", "ę": "e",
            "í": "i", "ì": "i", "î": "i", "ï": "i",
            "ó": "o", "ò": "o", "ô": "o", "ö": "o", "õ": "o", "ø": "o",
            "ú": "u", "ù": "u", "û": "u", "ü": "u", "ů": "u",
            "ý": "y", "ÿ": "y", "č": "c", "ć": "c", "ç": "c", "ř": "r", "š": "s", "ś": "s", "ž": "z", "ź": "z", "ż": "z",
            "ň": "n", "ñ": "n", "ń": "n", "ď": "d", "ť": "t", "ł": "l", "ß": "ss",
        ]
        var out = ""
        for ch in s.lowercased() {
            if let r = map[ch] { out += r } else { out.append(ch) }
        }
        return out
    }
}
