import MIDIFile

/// Decides which hand plays each note. Order of evidence: track names, then separate piano
/// tracks/channels (higher mean pitch = right), then a pitch-continuity split of a single
/// piano part. Drums (channel 10) and non-piano instruments are accompaniment.
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

    /// `channelEvents` are in tick order (as `Lesson` keeps them).
    static func assign(notes source: [Note], file: MIDIFile, channelEvents: [ChannelEvent], split: Int?) -> Result {
        var notes = source.map {
            LessonNote(pitch: $0.pitch, velocity: $0.velocity, channel: $0.channel, track: $0.track,
                       startTick: $0.startTick, endTick: $0.endTick, part: .accompaniment)
        }
        var byPart: [PartKey: [Int]] = [:]
        for (i, n) in notes.enumerated() {
            byPart[PartKey(track: n.track, channel: n.channel), default: []].append(i)
        }
        let keys = byPart.keys.sorted()

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
        var piano: [PartKey] = []
        var melodic: [PartKey] = []
        for key in keys where key.channel != 9 {
            melodic.append(key)
            let first = byPart[key].flatMap { $0.first.map { notes[$0].startTick } } ?? 0
            if (0...7).contains(program(of: key, firstTick: first)) { piano.append(key) }
        }
        var note = ""
        if piano.isEmpty, !melodic.isEmpty {
            piano = melodic
            note = " (no piano program found; all non-drum parts used)"
        }
        guard !piano.isEmpty else {
            return Result(notes: notes, assignment: HandAssignment(method: .none, description: "no piano notes: everything is accompaniment"))
        }
        let pianoIndices = piano.flatMap { byPart[$0] ?? [] }

        var partsPerTrack: [Int: Int] = [:]
        for key in keys { partsPerTrack[key.track, default: 0] += 1 }
        func label(_ key: PartKey) -> String {
            let name = file.tracks.indices.contains(key.track) ? file.tracks[key.track].name : nil
            let multiChannel = (partsPerTrack[key.track] ?? 0) > 1
            var s = name.map { "\"\($0)\"" } ?? "track \(key.track + 1)"
            if multiChannel || name == nil { s += " channel \(Int(key.channel) + 1)" }
            return s
        }

        // 0. The user's split point wins.
        if let split {
            for i in pianoIndices { notes[i].part = .hand(Int(notes[i].pitch) >= split ? .right : .left) }
            return Result(notes: notes, assignment: HandAssignment(
                method: .splitPoint, description: "split at \(PitchName.name(split)) (--split): at or above → right, below → left" + note))
        }

        // 1. Track names.
        var named: [PartKey: Hand] = [:]
        for key in piano {
            if file.tracks.indices.contains(key.track), let name = file.tracks[key.track].name, let h = hand(fromName: name) {
                named[key] = h
            }
        }
        if !named.isEmpty {
            let unnamed = piano.filter { named[$0] == nil }
            let namedHands = Set(named.values)
            var inferred: [PartKey: Hand] = [:]
            if namedHands.count == 1, unnamed.count == 1, let only = namedHands.first {
                inferred[unnamed[0]] = only.other
            }
            for key in piano {
                let part: Part = (named[key] ?? inferred[key]).map { .hand($0) } ?? .accompaniment
                for i in byPart[key] ?? [] { notes[i].part = part }
            }
            var parts = piano.compactMap { key in named[key].map { "\(label(key)) → \($0.rawValue)" } }
            parts += inferred.keys.sorted().compactMap { key in inferred[key].map { "\(label(key)) → \($0.rawValue) (the other piano part)" } }
            return Result(notes: notes, assignment: HandAssignment(
                method: .trackNames, description: "track names: " + parts.joined(separator: ", ") + note))
        }

        // 2. Several piano tracks or channels: by mean pitch.
        if piano.count >= 2 {
            var means: [PartKey: Double] = [:]
            for key in piano {
                let idx = byPart[key] ?? []
                means[key] = idx.isEmpty ? 0 : Double(idx.reduce(0) { $0 + Int(notes[$1].pitch) }) / Double(idx.count)
            }
            var handOf: [PartKey: Hand] = [:]
            if piano.count == 2 {
                let a = piano[0], b = piano[1]
                let aRight = (means[a] ?? 0) >= (means[b] ?? 0)
                handOf[a] = aRight ? .right : .left
                handOf[b] = aRight ? .left : .right
            } else {
                let overall = Double(pianoIndices.reduce(0) { $0 + Int(notes[$1].pitch) }) / Double(max(1, pianoIndices.count))
                for key in piano { handOf[key] = (means[key] ?? 0) >= overall ? .right : .left }
            }
            for key in piano {
                for i in byPart[key] ?? [] { notes[i].part = .hand(handOf[key] ?? .right) }
            }
            let parts = piano.map { key in
                "\(label(key)) (mean \(PitchName.name(Int((means[key] ?? 0).rounded())))) → \((handOf[key] ?? .right).rawValue)"
            }
            return Result(notes: notes, assignment: HandAssignment(
                method: .partsByPitch, description: "\(piano.count) piano parts, higher mean pitch = right: " + parts.joined(separator: ", ") + note))
        }

        // 3. One piano part: a single line is one hand; otherwise follow both hands' pitch.
        let key = piano[0]
        let idx = (byPart[key] ?? []).sorted { notes[$0].startTick != notes[$1].startTick ? notes[$0].startTick < notes[$1].startTick : notes[$0].pitch < notes[$1].pitch }
        let pitches = idx.map { Int(notes[$0].pitch) }
        let lo = pitches.min() ?? 60, hi = pitches.max() ?? 60
        let tpq = file.ticksPerQuarter ?? 480
        let line = idx.map { (start: notes[$0].startTick, end: notes[$0].endTick, pitch: Int(notes[$0].pitch)) }
        if maxPolyphony(line.map { ($0.start, $0.end) }) <= 1 && hi - lo <= 19 && phraseMeanSpread(line, ticksPerQuarter: tpq) < 10 {
            let mean = Double(pitches.reduce(0, +)) / Double(max(1, pitches.count))
            let h: Hand = mean >= 57 ? .right : .left
            for i in idx { notes[i].part = .hand(h) }
            return Result(notes: notes, assignment: HandAssignment(
                method: .singleHand, description: "\(label(key)) is a single line (\(PitchName.name(lo))–\(PitchName.name(hi))) → \(h.rawValue)" + note))
        }
        let hands = continuitySplit(line, ticksPerQuarter: tpq)
        for (k, i) in idx.enumerated() { notes[i].part = .hand(hands[k]) }
        return Result(notes: notes, assignment: HandAssignment(
            method: .pitchContinuity, description: "\(label(key)) split by following each hand's pitch (override with --split)" + note))
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

    /// Pitch-continuity split: notes are taken chord by chord (onsets within a 32nd note);
    /// each chord is cut where the cost is least, the cost being each note's distance from
    /// its hand's reference (half its recent register, half what it played last) plus
    /// penalties for a hand spanning more than a ninth (held notes included), more than five
    /// notes, hands crossing, or a close chord split to give a note to a hand idle for a bar.
    /// A single-note phrase begun with both hands free (up to a rest, chord or big leap) goes
    /// whole to the nearer hand, so hands-separate scales stay in one hand. Positions follow
    /// the notes given, so a melody may dip below a bass line that climbed earlier —
    /// something no fixed split point handles. Measured on the 102 two-hand abc lessons
    /// merged into one track: about 3 % of notes land in the wrong hand (most of them in the
    /// Bach C major prelude, whose broken chords share one register; `CurriculumSplitTests`).
    ///
    /// Near-linear whatever the file (n log n): held notes are kept by pitch with a heap of
    /// release ticks, and a chord of more than `exactChordLimit` notes weighs its cuts with
    /// running sums — 20,000 notes struck at once, or never released, stay cheap.
    static func continuitySplit(_ notes: [(start: Int, end: Int, pitch: Int)], ticksPerQuarter: Int) -> [Hand] {
        var work = SplitWork()
        return continuitySplit(notes, ticksPerQuarter: ticksPerQuarter, work: &work)
    }

    /// Chords of up to this many notes (onsets within a 32nd) weigh every cut summing each
    /// note's distance in turn, exactly as the split always has; bigger ones use running
    /// sums (the same costs up to rounding), so a cluster of thousands of notes costs time in
    /// proportion to its size, not its square. Two hands play about ten notes at once: no
    /// real music comes near the bound.
    static let exactChordLimit = 64

    /// What the split did, for tests that check it stays near-linear (no clock involved).
    struct SplitWork: Equatable {
        /// Cuts weighed (one per chord note, plus one per chord).
        var cuts = 0
        /// Distances summed while weighing cuts.
        var distanceTerms = 0
        /// Notes looked at while finding single-line phrases.
        var phraseSteps = 0
        /// Held notes taken on and let go.
        var heldUpdates = 0
        /// Chords larger than `exactChordLimit`.
        var bigChords = 0
    }

    /// The notes a hand is holding: counts by pitch (so lowest, highest and how many are
    /// cheap) and a min-heap on release tick (so letting go costs log n per note, not a pass
    /// over every held note at every chord).
    struct HeldNotes {
        private let lowPitch: Int
        private var countByPitch: [Int]
        private var ends: [(end: Int, pitch: Int)] = []

        /// For pitches in `range` (a split's notes all lie in it).
        init(range: ClosedRange<Int>) {
            lowPitch = range.lowerBound
            countByPitch = [Int](repeating: 0, count: range.count)
        }

        var count: Int { ends.count }
        var isEmpty: Bool { ends.isEmpty }

        mutating func add(end: Int, pitch: Int, work: inout SplitWork) {
            countByPitch[pitch - lowPitch] += 1
            ends.append((end, pitch))
            var i = ends.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard ends[i].end < ends[parent].end else { break }
                ends.swapAt(i, parent)
                i = parent
            }
            work.heldUpdates += 1
        }

        /// Lets go of every note released at or before `tick`.
        mutating func release(upTo tick: Int, work: inout SplitWork) {
            while let top = ends.first, top.end <= tick {
                countByPitch[top.pitch - lowPitch] -= 1
                let last = ends.removeLast()
                if !ends.isEmpty {
                    ends[0] = last
                    var i = 0
                    while true {
                        let l = 2 * i + 1, r = l + 1
                        var m = i
                        if l < ends.count, ends[l].end < ends[m].end { m = l }
                        if r < ends.count, ends[r].end < ends[m].end { m = r }
                        if m == i { break }
                        ends.swapAt(i, m)
                        i = m
                    }
                }
                work.heldUpdates += 1
            }
        }

        /// Lowest and highest held pitch (nil when nothing is held): at most one pass over
        /// the pitch range, whatever the number of held notes.
        var lowest: Int? {
            guard !ends.isEmpty else { return nil }
            return countByPitch.firstIndex { $0 > 0 }.map { $0 + lowPitch }
        }
        var highest: Int? {
            guard !ends.isEmpty else { return nil }
            return countByPitch.lastIndex { $0 > 0 }.map { $0 + lowPitch }
        }
    }

    /// `exactChordLimit` is a parameter only so tests can compare both ways of weighing cuts.
    static func continuitySplit(_ notes: [(start: Int, end: Int, pitch: Int)], ticksPerQuarter: Int,
                                exactChordLimit: Int = HandAssigner.exactChordLimit, work: inout SplitWork) -> [Hand] {
        var result = [Hand](repeating: .right, count: notes.count)
        guard !notes.isEmpty else { return result }
        // Start positions: the median lowest and median highest note of the chords, so a
        // part with many right-hand chords over single bass notes does not pull both up.
        var lows: [Int] = [], highs: [Int] = []
        do {
            var g = 0
            while g < notes.count {
                var h = g + 1
                var lo = notes[g].pitch, hi = notes[g].pitch
                while h < notes.count, notes[h].start - notes[g].start <= max(1, ticksPerQuarter / 8) {
                    lo = min(lo, notes[h].pitch)
                    hi = max(hi, notes[h].pitch)
                    h += 1
                }
                lows.append(lo)
                highs.append(hi)
                g = h
            }
            lows.sort()
            highs.sort()
        }
        var leftPos = Double(lows[lows.count / 2])
        var rightPos = Double(highs[highs.count / 2])
        if rightPos - leftPos < 7 {
            let mid = (leftPos + rightPos) / 2
            leftPos = mid - 6
            rightPos = mid + 6
        }
        let window = max(1, ticksPerQuarter / 8)
        let pitchRange = (lows.first ?? 0)...(highs.last ?? 0)
        var heldLeft = HeldNotes(range: pitchRange)
        var heldRight = HeldNotes(range: pitchRange)
        // When each hand last let go of a note: a hand idle for a bar has no position to
        // speak of, and a compact chord is not split to give it a note.
        var lastLeft = Int.min / 2, lastRight = Int.min / 2
        let idleAfter = 4 * ticksPerQuarter
        // Mean pitch of what each hand played last (a chord's middle, a single note itself).
        var lastLeftPitch: Double?, lastRightPitch: Double?
        // Running distance sums for chords over `exactChordLimit`, reused between chords.
        var leftSums: [Double] = [], rightSums: [Double] = []
        var i = 0
        while i < notes.count {
            let groupStart = notes[i].start
            var j = i
            while j < notes.count, notes[j].start - groupStart <= window { j += 1 }
            let group = (i..<j).sorted { notes[$0].pitch < notes[$1].pitch }
            heldLeft.release(upTo: groupStart, work: &work)
            heldRight.release(upTo: groupStart, work: &work)
            // A single line starting with both hands free is one hand's phrase: give it whole
            // to the hand whose position is nearer, so a hands-separate scale is not split.
            if group.count == 1, heldLeft.isEmpty, heldRight.isEmpty {
                let r = phrase(startingAt: i, in: notes, ticksPerQuarter: ticksPerQuarter)
                work.phraseSteps += r.count + 1
                if r.count >= 3 {
                    let mean = Double(notes[r].reduce(0) { $0 + $1.pitch }) / Double(r.count)
                    let h: Hand = abs(mean - leftPos) < abs(mean - rightPos) ? .left : .right
                    for k in r { result[k] = h }
                    // The hand now sits where the phrase lay (its mean, not its last note:
                    // a scale that came back down has not moved the hand's register).
                    if h == .left { leftPos = 0.3 * leftPos + 0.7 * mean } else { rightPos = 0.3 * rightPos + 0.7 * mean }
                    if let last = r.last {
                        if h == .left {
                            heldLeft.add(end: notes[last].end, pitch: notes[last].pitch, work: &work)
                            lastLeft = max(lastLeft, notes[last].end)
                            lastLeftPitch = Double(notes[last].pitch)
                        } else {
                            heldRight.add(end: notes[last].end, pitch: notes[last].pitch, work: &work)
                            lastRight = max(lastRight, notes[last].end)
                            lastRightPitch = Double(notes[last].pitch)
                        }
                    }
                    i = r.upperBound
                    continue
                }
            }
            let p = group.map { notes[$0].pitch }
            var bestK = 0
            var bestCost = Double.infinity
            // Each hand is expected near both its recent register and its last note.
            let leftRef = lastLeftPitch.map { 0.5 * leftPos + 0.5 * $0 } ?? leftPos
            let rightRef = lastRightPitch.map { 0.5 * rightPos + 0.5 * $0 } ?? rightPos
            let compact = p.count >= 2 && (p.last ?? 0) - (p.first ?? 0) <= 9
            let leftIdle = heldLeft.isEmpty && groupStart - lastLeft > idleAfter
            let rightIdle = heldRight.isEmpty && groupStart - lastRight > idleAfter
            let heldLeftLow = heldLeft.lowest, heldLeftHigh = heldLeft.highest
            let heldRightLow = heldRight.lowest, heldRightHigh = heldRight.highest
            // The cut after k notes gives p[..<k] (sorted) to the left hand and p[k...] to the
            // right; each hand's lowest, highest and count then follow from its held notes.
            let exact = p.count <= exactChordLimit
            if !exact {
                work.bigChords += 1
                leftSums = [0]
                leftSums.reserveCapacity(p.count + 1)
                for x in p { leftSums.append((leftSums.last ?? 0) + abs(Double(x) - leftRef)) }
                rightSums = [Double](repeating: 0, count: p.count + 1)
                for k in stride(from: p.count - 1, through: 0, by: -1) { rightSums[k] = rightSums[k + 1] + abs(Double(p[k]) - rightRef) }
                work.distanceTerms += 2 * p.count
            }
            for k in 0...p.count {
                work.cuts += 1
                var cost = 0.0
                if compact, k > 0, k < p.count {
                    if leftIdle { cost += 6 * Double(k) }
                    if rightIdle { cost += 6 * Double(p.count - k) }
                }
                if exact {
                    // In the order the split always summed them, so results do not move.
                    for x in p[0..<k] { cost += abs(Double(x) - leftRef) }
                    for x in p[k...] { cost += abs(Double(x) - rightRef) }
                    work.distanceTerms += p.count
                } else {
                    cost += leftSums[k] + rightSums[k]
                }
                let leftLow = k > 0 ? min(p[0], heldLeftLow ?? p[0]) : heldLeftLow
                let leftHigh = k > 0 ? max(p[k - 1], heldLeftHigh ?? p[k - 1]) : heldLeftHigh
                let rightLow = k < p.count ? min(p[k], heldRightLow ?? p[k]) : heldRightLow
                let rightHigh = k < p.count ? max(p[p.count - 1], heldRightHigh ?? p[p.count - 1]) : heldRightHigh
                let leftCount = k + heldLeft.count, rightCount = p.count - k + heldRight.count
                if let lo = leftLow, let hi = leftHigh, hi - lo > 14 { cost += Double(hi - lo - 14) * 10 }
                if let lo = rightLow, let hi = rightHigh, hi - lo > 14 { cost += Double(hi - lo - 14) * 10 }
                if leftCount > 5 { cost += Double(leftCount - 5) * 20 }
                if rightCount > 5 { cost += Double(rightCount - 5) * 20 }
                if let lh = leftHigh, let rl = rightLow, lh > rl { cost += Double(lh - rl) * 3 }
                if cost < bestCost {
                    bestCost = cost
                    bestK = k
                }
            }
            for (n, idx) in group.enumerated() {
                let h: Hand = n < bestK ? .left : .right
                result[idx] = h
                if h == .left {
                    heldLeft.add(end: notes[idx].end, pitch: notes[idx].pitch, work: &work)
                    lastLeft = max(lastLeft, notes[idx].end)
                } else {
                    heldRight.add(end: notes[idx].end, pitch: notes[idx].pitch, work: &work)
                    lastRight = max(lastRight, notes[idx].end)
                }
            }
            if bestK > 0 {
                let m = Double(p[0..<bestK].reduce(0, +)) / Double(bestK)
                lastLeftPitch = m
                leftPos = 0.5 * leftPos + 0.5 * m
            }
            if bestK < p.count {
                let m = Double(p[bestK...].reduce(0, +)) / Double(p.count - bestK)
                lastRightPitch = m
                rightPos = 0.5 * rightPos + 0.5 * m
            }
            i = j
        }
        return result
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
