/// The dynamics a score prints — its marks (`etude:dynamic`) and hairpins (`etude:hairpin`) —
/// as one value that both the staff (which draws them) and the ear (which judges the learner's
/// loudness by them) read, so what is drawn is what is judged.
///
/// A note's dynamic is the last mark at or before it on any staff (a piano score prints one mark
/// between the staves for both hands, and MusicXML plays a part's marks on all its staves),
/// its own staff's first when two stand at the same tick. Its level is
/// the last mark's `DynamicLevel` velocity (accent marks such as `sfz` leave the level alone);
/// under a hairpin the level moves evenly from the hairpin's start to the mark at its end, or by
/// `DynamicLevel.hairpinSpan` when none stands there, and stays there after it. A lesson with
/// no marks (a MIDI file) has none: its loudness is judged from its own velocities.
public struct MarkedDynamics: Sendable, Equatable {
    /// A printed mark on a track.
    public struct Mark: Equatable, Sendable {
        public var tick: Int
        public var mark: String
    }

    /// A hairpin from its start to its end tick on a track.
    public struct Span: Equatable, Sendable {
        public var track: Int
        public var startTick: Int
        public var endTick: Int
        /// `.crescendo` or `.diminuendo`.
        public var kind: Hairpin

        public init(track: Int, startTick: Int, endTick: Int, kind: Hairpin) {
            self.track = track
            self.startTick = startTick
            self.endTick = endTick
            self.kind = kind
        }
    }

    /// What is marked at one note.
    public struct AtNote: Equatable, Sendable {
        /// The mark in force ("p", "f"), or "cresc"/"dim" under a hairpin; nil before any mark.
        public var name: String?
        /// The velocity the marks ask for there (see `DynamicLevel`).
        public var velocity: Int
        /// The hairpin the note is under, if any.
        public var hairpin: Hairpin?
        /// How far hairpins (the one it is under, and unmarked ones ended since the last mark)
        /// move the level from the last mark's.
        public var hairpinShift: Int

        public init(name: String?, velocity: Int, hairpin: Hairpin?, hairpinShift: Int = 0) {
            self.name = name
            self.velocity = velocity
            self.hairpin = hairpin
            self.hairpinShift = hairpinShift
        }
    }

    /// Track → its marks in tick order.
    public private(set) var marks: [Int: [Mark]] = [:]
    /// Every hairpin, by track then start tick.
    public private(set) var hairpins: [Span] = []
    private var allMarks: [Mark] = []
    private var marksRead: [Int: [Mark]] = [:]
    private var sharedHairpins: [Span] = []
    private var hairpinsRead: [Int: [Span]] = [:]

    /// True when the score prints no dynamics at all.
    public var isEmpty: Bool { allMarks.isEmpty && hairpins.isEmpty }

    /// The level before any mark: mezzo-forte.
    public static let unmarkedVelocity = 80

    /// Hairpins since the last mark that move a note's level (the level is held in 1...127, so
    /// older ones no longer tell); bounds the work per note on a file of nothing but hairpins.
    static let hairpinsFollowed = 16

    /// Reads the annotations; a hairpin never stopped ends at the next mark on its track, or at
    /// `endTick`.
    public init(annotations: Annotations, endTick: Int) {
        for (track, list) in annotations.dynamics {
            let sorted = list.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map { Mark(tick: $0.element.tick, mark: $0.element.mark) }
            marks[track] = sorted
            allMarks += sorted
        }
        allMarks = allMarks.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        for track in annotations.hairpins.keys.sorted() {
            let list = (annotations.hairpins[track] ?? []).enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
            var open: (tick: Int, kind: Hairpin)?
            func close(at tick: Int) {
                guard let o = open else { return }
                if tick > o.tick { hairpins.append(Span(track: track, startTick: o.tick, endTick: tick, kind: o.kind)) }
                open = nil
            }
            for h in list {
                switch h.hairpin {
                case .stop: close(at: h.tick)
                case .crescendo, .diminuendo:
                    close(at: h.tick)
                    open = (h.tick, h.hairpin)
                }
            }
            if let o = open {
                let next = (marks[track] ?? []).first { $0.tick > o.tick }?.tick
                close(at: next ?? max(endTick, o.tick + 1))
            }
        }
        hairpins.sort { ($0.startTick, $0.track) < ($1.startTick, $1.track) }
        prepareReading()
    }

    /// The marks a note on `track` reads: every staff's, its own last among those at one tick
    /// (so its own is the one found at or before a tick).
    private func marks(for track: Int) -> [Mark] { marksRead[track] ?? allMarks }

    /// The hairpins a note on `track` reads: its own staff's, and the others' where its own has none.
    private func hairpins(for track: Int) -> [Span] { hairpinsRead[track] ?? sharedHairpins }

    /// Works out `marksRead` and `hairpinsRead` once.
    private mutating func prepareReading() {
        for (track, own) in marks where !own.isEmpty && own.count < allMarks.count {
            var out: [Mark] = []
            out.reserveCapacity(allMarks.count)
            var k = 0
            while k < allMarks.count {
                var end = k
                while end + 1 < allMarks.count, allMarks[end + 1].tick == allMarks[k].tick { end += 1 }
                var others = Array(allMarks[k...end])
                let mine = own.filter { $0.tick == allMarks[k].tick }
                for m in mine { if let i = others.firstIndex(of: m) { others.remove(at: i) } }
                out += others + mine
                k = end + 1
            }
            marksRead[track] = out
        }
        var seen = Set<[Int]>()
        sharedHairpins = hairpins.filter { seen.insert([$0.startTick, $0.endTick, $0.kind == .crescendo ? 1 : 0]).inserted }
        for track in Set(hairpins.map(\.track)) {
            let own = hairpins.filter { $0.track == track }
            let others = sharedHairpins.filter { h in h.track != track && !own.contains { $0.startTick < h.endTick && h.startTick < $0.endTick } }
            hairpinsRead[track] = (own + others).sorted { ($0.startTick, $0.track) < ($1.startTick, $1.track) }
        }
    }

    /// What is marked at a note starting at `tick` on `track`; nil when the score marks nothing.
    public func at(track: Int, tick: Int) -> AtNote? {
        guard !isEmpty else { return nil }
        let list = marks(for: track)
        // The last mark at or before the tick (binary search), and the last one with a level.
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].tick <= tick { lo = mid + 1 } else { hi = mid }
        }
        let upTo = lo
        var level = Self.unmarkedVelocity
        var levelTick = Int.min
        var name: String?
        var k = upTo - 1
        while k >= 0 {
            if let v = DynamicLevel.velocity(of: list[k].mark) {
                level = v
                levelTick = list[k].tick
                name = list[k].mark
                break
            }
            k -= 1
        }
        if upTo > 0, list[upTo - 1].tick == tick { name = list[upTo - 1].mark }
        // Hairpins since that mark: ended ones moved the level; one the note is under moves it
        // part of the way.
        let markLevel = level
        var hairpin: Hairpin?
        // The hairpins starting between the mark and the note (by binary search, at most the
        // last `Self.hairpinsFollowed`: the level is held in 1...127, so older ones no longer
        // tell).
        let pins = hairpins(for: track)
        func firstPin(startingAtOrAfter t: Int) -> Int {
            var lo = 0, hi = pins.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if pins[mid].startTick < t { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        let pinsEnd = firstPin(startingAtOrAfter: tick < Int.max ? tick + 1 : tick)
        let pinsStart = max(levelTick == Int.min ? 0 : firstPin(startingAtOrAfter: levelTick), pinsEnd - Self.hairpinsFollowed)
        for h in pins[pinsStart..<max(pinsStart, pinsEnd)] {
            let sign = h.kind == .crescendo ? 1 : -1
            // The mark at its end: the first with a level after its start, up to its end.
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid].tick <= h.startTick { lo = mid + 1 } else { hi = mid }
            }
            var m = lo
            var endLevel: Int?
            while m < list.count, m < lo + 16, list[m].tick <= h.endTick {
                if let v = DynamicLevel.velocity(of: list[m].mark) { endLevel = v; break }
                m += 1
            }
            let target = endLevel.flatMap { ($0 - level) * sign > 0 ? $0 : nil } ?? max(1, min(127, level + sign * DynamicLevel.hairpinSpan))
            if tick >= h.endTick {
                level = target
            } else {
                let f = Double(tick - h.startTick) / Double(max(1, h.endTick - h.startTick))
                level = Int((Double(level) + f * Double(target - level)).rounded())
                hairpin = h.kind
                name = h.kind.rawValue
                break
            }
        }
        return AtNote(name: name, velocity: level, hairpin: hairpin, hairpinShift: level - markLevel)
    }

    /// A score's file with its hairpins heard: each note-on under (or after an unmarked) hairpin
    /// moved by `AtNote.hairpinShift`, so a crescendo sounds as it is drawn and judged and the
    /// lesson's own notes are a perfect performance of it. The score readers call this once;
    /// a file without hairpins is returned as it is.
    public static func shapingHairpins(_ file: MIDIFile) -> MIDIFile {
        let annotations = Annotations(file: file)
        guard !annotations.hairpins.isEmpty else { return file }
        var end = 0
        for t in file.tracks { end = max(end, t.events.last?.tick ?? 0) }
        let printed = MarkedDynamics(annotations: annotations, endTick: end)
        var out = file
        for t in out.tracks.indices {
            for i in out.tracks[t].events.indices {
                guard case .noteOn(let ch, let key, let v) = out.tracks[t].events[i].kind, v > 0,
                      let at = printed.at(track: t, tick: out.tracks[t].events[i].tick), at.hairpinShift != 0 else { continue }
                out.tracks[t].events[i].kind = .noteOn(channel: ch, key: key, velocity: UInt8(max(1, min(127, Int(v) + at.hairpinShift))))
            }
        }
        return out
    }
}
