import MIDIFile

/// A problem with a sight-reading request, worded for the learner.
public struct SightReadingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A short exercise to read at sight, made from a level and a seed: the same pair always makes
/// the same exercise (so a teacher can hand out "level 3, seed 41"), another seed another one.
/// Graded like the method: level 1 is the right hand alone in the C five-finger position in
/// quarters and halves; each level adds something — the left hand (2), more keys and whole and
/// dotted notes (3), eighths (4), minor keys, eight bars and a sixth's range (5), accidentals
/// and more keys (6), an octave's range (7), both hands in quarters and eighths in any of the
/// method's keys (8).
public struct SightReadingExercise: Sendable {
    public static let levels = 1...8

    public let level: Int
    public let seed: UInt64
    /// The exercise as a lesson file: a conductor track (title, level, description, meter, key,
    /// tempo), "Right Hand" and "Left Hand" tracks with fingering (in the five-finger levels)
    /// and spelling annotations.
    public let file: MIDIFile
    public let title: String
    public let keyName: String
    public let bars: Int

    /// One key the exercises are written in.
    struct KeyChoice {
        var letter: Int      // 0 = C … 6 = B
        var pitchClass: Int  // of the tonic
        var minor: Bool
        var sharps: Int
    }

    static let keys: [(level: Int, key: KeyChoice)] = [
        (1, KeyChoice(letter: 0, pitchClass: 0, minor: false, sharps: 0)),
        (3, KeyChoice(letter: 4, pitchClass: 7, minor: false, sharps: 1)),
        (3, KeyChoice(letter: 3, pitchClass: 5, minor: false, sharps: -1)),
        (4, KeyChoice(letter: 1, pitchClass: 2, minor: false, sharps: 2)),
        (5, KeyChoice(letter: 5, pitchClass: 9, minor: true, sharps: 0)),
        (5, KeyChoice(letter: 1, pitchClass: 2, minor: true, sharps: -1)),
        (5, KeyChoice(letter: 6, pitchClass: 10, minor: false, sharps: -2)),
        (6, KeyChoice(letter: 5, pitchClass: 9, minor: false, sharps: 3)),
        (6, KeyChoice(letter: 2, pitchClass: 4, minor: true, sharps: 1)),
        (6, KeyChoice(letter: 2, pitchClass: 3, minor: false, sharps: -3)),
        (7, KeyChoice(letter: 4, pitchClass: 7, minor: true, sharps: -2)),
        (7, KeyChoice(letter: 2, pitchClass: 4, minor: false, sharps: 4)),
        (8, KeyChoice(letter: 6, pitchClass: 11, minor: true, sharps: 2)),
        (8, KeyChoice(letter: 5, pitchClass: 8, minor: false, sharps: -4)),
    ]

    static let letterPitch = [0, 2, 4, 5, 7, 9, 11]
    static let majorSteps = [0, 2, 4, 5, 7, 9, 11]
    static let minorSteps = [0, 2, 3, 5, 7, 8, 11]

    public init(level: Int, seed: UInt64) throws(SightReadingError) {
        guard Self.levels.contains(level) else {
            throw SightReadingError("--level \(level): sight-reading has levels \(Self.levels.lowerBound)–\(Self.levels.upperBound)")
        }
        self.level = level
        self.seed = seed
        var rng = SeededGenerator(seed: seed &+ UInt64(level) &* 0x9E37_79B9_7F4A_7C15)
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        func chance(_ percent: Int) -> Bool { Int(rng.next() % 100) < percent }

        let key = pick(Self.keys.filter { $0.level <= level }.map(\.key))
        let threeFour = level >= 3 && chance(35)
        let beats = threeFour ? 3 : 4
        let barCount = level >= 5 ? 8 : 4
        bars = barCount
        // Durations in eighths the right hand may use.
        var values = [4, 2]
        if level >= 3 { values += threeFour ? [6] : [8, 6] }
        if level >= 4 { values += [1] }          // eighths come in pairs
        if level >= 5 { values += [3] }          // a dotted quarter, then its eighth
        let lowest = level >= 7 ? -1 : 0
        let highest = level >= 7 ? 7 : level >= 5 ? 5 : 4
        let leap = level >= 4 ? 4 : 2
        let fingered = lowest == 0 && highest <= 4

        let steps = key.minor ? Self.minorSteps : Self.majorSteps
        let rhTonic = 60 + key.pitchClass
        let lhTonic = rhTonic - 12
        /// (pitch, letter, alter) of degree `d` (7 = the octave) above `tonic`, `raised` a semitone.
        func note(_ d: Int, tonic: Int, raised: Bool = false) -> (pitch: Int, spelled: SpelledPitch) {
            let octave = d >= 0 ? d / 7 : -1
            let step = d - octave * 7
            let pitch = tonic + steps[step] + 12 * octave + (raised ? 1 : 0)
            let letter = (key.letter + step) % 7
            var alter = ((pitch - Self.letterPitch[letter]) % 12 + 12) % 12
            if alter > 6 { alter -= 12 }
            return (pitch, SpelledPitch(letter: letter, alter: alter))
        }

        // The right hand: a line of steps and small leaps, starting on 1, 3 or 5, ending on 1.
        var rh: [(degree: Int, eighths: Int, raised: Bool)] = []
        var degree = pick([0, 2, 4])
        for bar in 0..<barCount {
            var left = beats * 2
            let last = bar == barCount - 1
            while left > 0 {
                if last {
                    // The last bar: a step or two home, then the tonic held to the bar line.
                    if left > 4, degree != 0 {
                        degree += degree > 0 ? -1 : 1
                        rh.append((degree, 2, false))
                        left -= 2
                        continue
                    }
                    if level < 3, left > 4 {
                        // No whole notes yet: the tonic twice.
                        rh.append((0, left - 4, false))
                        left = 4
                    }
                    rh.append((0, left, false))
                    left = 0
                    break
                }
                var fits = values.filter { $0 <= left && !($0 == 1 && left < 2) && !($0 == 3 && left < 4) }
                if fits.isEmpty { fits = [left] }
                let value = pick(fits)
                let group = value == 1 ? [1, 1] : value == 3 ? [3, 1] : [value]
                for v in group {
                    let move = chance(70) ? pick([-1, 1]) : pick(Array(-leap...leap).filter { $0 != 0 })
                    degree = min(highest, max(lowest, degree + move))
                    let raised = level >= 6 && degree == 3 && chance(30)
                    rh.append((degree, v, raised))
                    left -= v
                }
            }
        }
        // A raised fourth resolves up to the fifth.
        for i in rh.indices where rh[i].raised {
            if i + 1 < rh.count { rh[i + 1].degree = 4 } else { rh[i].raised = false }
        }

        // The left hand: from level 2, the tonic and dominant in long notes; from level 5, a
        // moving bass in halves and quarters; from level 8, quarters and eighth pairs too.
        var lh: [(degree: Int, eighths: Int)] = []
        if level >= 2 {
            let lhValues = level >= 8 ? [4, 2, 1] : level >= 5 ? [4, 2] : beats == 4 ? [8, 4] : [6]
            for bar in 0..<barCount {
                var left = beats * 2
                if bar == barCount - 1 { lh.append((0, left)); continue }
                while left > 0 {
                    let fits = lhValues.filter { $0 <= left && !($0 == 1 && left < 2) }
                    let value = fits.isEmpty ? left : pick(fits)
                    for v in value == 1 ? [1, 1] : [value] {
                        lh.append((level >= 5 ? pick([0, 1, 2, 3, 4]) : pick([0, 4]), v))
                        left -= v
                    }
                }
            }
        }

        let tpq = 480
        let eighth = tpq / 2
        let name = "\(["C", "D", "E", "F", "G", "A", "B"][key.letter])\(key.pitchClass - Self.letterPitch[key.letter] == 1 || key.pitchClass - Self.letterPitch[key.letter] == -11 ? "♯" : key.pitchClass - Self.letterPitch[key.letter] == -1 || key.pitchClass - Self.letterPitch[key.letter] == 11 ? "♭" : "")"
        let keyText = "\(name) \(key.minor ? "minor" : "major")"
        let titleText = "Sight-reading, level \(level), seed \(seed)"
        keyName = keyText
        title = titleText
        let bpm = level >= 5 ? 80 : 72
        let us = 60_000_000 / bpm
        var conductor: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(titleText.utf8)))]
        conductor += LessonTags(title: titleText, composer: "Etude (generated)", level: level,
                                description: "A sight-reading exercise in \(keyText), \(barCount) bars of \(beats)/4: read it once, in time.").events
        conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: TimeSignature(numerator: beats, denominatorPower: 2).bytes)))
        conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.keySignature, data: KeySignature(sharps: key.sharps, minor: key.minor).bytes)))
        conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])))
        conductor.append(MIDIEvent(tick: 0, .meta(type: MetaType.marker, data: Array("A".utf8))))
        let end = barCount * beats * 2 * eighth
        conductor.append(MIDIEvent(tick: end, .meta(type: MetaType.endOfTrack, data: [])))

        func track(_ name: String, channel: UInt8, _ notes: [(degree: Int, eighths: Int, raised: Bool)], tonic: Int, right: Bool) -> Track {
            var events: [MIDIEvent] = [
                MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8))),
                MIDIEvent(tick: 0, .programChange(channel: channel, program: 0)),
            ]
            var tick = 0
            for n in notes {
                let (pitch, spelled) = note(n.degree, tonic: tonic, raised: n.raised)
                if fingered { events.append(Fingering.event(tick: tick, pitch: pitch, finger: right ? n.degree + 1 : 5 - n.degree)) }
                events.append(Annotation.spelling(pitch: pitch, spelled).event(tick: tick))
                events.append(MIDIEvent(tick: tick, .noteOn(channel: channel, key: UInt8(pitch), velocity: 80)))
                tick += n.eighths * eighth
                events.append(MIDIEvent(tick: tick - 10, .noteOff(channel: channel, key: UInt8(pitch), velocity: 0)))
            }
            events.append(MIDIEvent(tick: max(tick, end), .meta(type: MetaType.endOfTrack, data: [])))
            return Track(events: events)
        }
        var tracks = [Track(events: conductor), track("Right Hand", channel: 0, rh, tonic: rhTonic, right: true)]
        if !lh.isEmpty { tracks.append(track("Left Hand", channel: 1, lh.map { ($0.degree, $0.eighths, false) }, tonic: lhTonic, right: false)) }
        file = MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: tracks)
    }

    /// The notes to play, as Judge expects them: onsets in seconds at the written tempo (the
    /// tempo is constant), part "right" or "left" by track.
    public var expectedNotes: [ExpectedNote] {
        let tpq = 480.0
        var usPerQuarter = 1_000_000.0
        for e in file.tracks[0].events {
            if case .meta(MetaType.tempo, let d) = e.kind, d.count == 3 {
                usPerQuarter = Double(Int(d[0]) << 16 | Int(d[1]) << 8 | Int(d[2]))
            }
        }
        let secondsPerTick = usPerQuarter / 1_000_000 / tpq
        var out: [ExpectedNote] = []
        for n in NotePairing.notes(in: file).notes {
            out.append(ExpectedNote(id: out.count, pitch: Int(n.pitch), time: Double(n.startTick) * secondsPerTick,
                                    duration: Double(n.endTick - n.startTick) * secondsPerTick,
                                    part: n.track == 1 ? "right" : "left"))
        }
        return out
    }
}
