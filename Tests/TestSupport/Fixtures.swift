import Foundation
import MIDIFile

// Music files built in code, for the unit tests of several modules and the end-to-end tests
// alike: every test states the music it feeds in.

/// Builds SMF bytes by hand, so each test states exactly the bytes it feeds in.
public struct SMFBuilder: Sendable {
    public var format = 1
    public var division: [UInt8] = [0x01, 0xE0]  // 480 tpq
    public var declaredTracks: Int?
    public var tracks: [[UInt8]] = []

    public init() {}

    public func bytes() -> [UInt8] {
        var out: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, UInt8(format)]
        let n = declaredTracks ?? tracks.count
        out += [UInt8(n >> 8), UInt8(n & 0xFF)] + division
        for t in tracks {
            out += Array("MTrk".utf8)
            let l = t.count
            out += [UInt8(l >> 24 & 0xFF), UInt8(l >> 16 & 0xFF), UInt8(l >> 8 & 0xFF), UInt8(l & 0xFF)]
            out += t
        }
        return out
    }

    public static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]
}

/// Builds MIDI files from events, through real SMF bytes.
public enum Build {
    public static let tpq = 480
    public static let bar = 1920  // a 4/4 bar at 480 ticks per quarter

    public static func note(_ pitch: Int, at tick: Int, length: Int, channel: UInt8 = 0, velocity: UInt8 = 80) -> [MIDIEvent] {
        [MIDIEvent(tick: tick, .noteOn(channel: channel, key: UInt8(pitch), velocity: velocity)),
         MIDIEvent(tick: tick + length, .noteOff(channel: channel, key: UInt8(pitch), velocity: 0))]
    }

    public static func name(_ text: String) -> MIDIEvent {
        MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(text.utf8)))
    }

    public static func timeSignature(_ n: Int, _ d: Int, at tick: Int = 0) -> MIDIEvent {
        var power = 0
        while 1 << power < d { power += 1 }
        return MIDIEvent(tick: tick, .meta(type: MetaType.timeSignature, data: [UInt8(n), UInt8(power), 24, 8]))
    }

    public static func tempo(bpm: Double, at tick: Int = 0) -> MIDIEvent {
        let us = Int((60_000_000 / bpm).rounded())
        return MIDIEvent(tick: tick, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
    }

    public static func marker(_ text: String, at tick: Int) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.marker, data: Array(text.utf8)))
    }

    public static func keySignature(sharps: Int, minor: Bool = false, at tick: Int = 0) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.keySignature, data: KeySignature(sharps: sharps, minor: minor).bytes))
    }

    public static func track(_ events: [MIDIEvent]) -> Track {
        Track(events: events.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element))
    }

    /// Writes the file to bytes and reads it back, so every test goes through real SMF bytes.
    public static func file(_ tracks: [[MIDIEvent]], format: Int = 1, tpq: Int = tpq) throws -> MIDIFile {
        let f = MIDIFile(format: format, division: .ticksPerQuarter(tpq), tracks: tracks.map(track))
        return try MIDIReader.read(MIDIWriter.write(f)).file
    }

    /// Twelve 4/4 bars at 120 BPM (one bar = 2 s). Right hand ("RH"): four quarter notes per
    /// bar, pitch 60 + bar − 1 (so a pitch names its bar), except a half note at bar 4 beat 3
    /// held four beats into bar 5 (pitch 90) and a note at bar 8 beat 4 held two beats into
    /// bar 9 (pitch 91). Left hand ("LH"): one whole note per bar, pitch 36 + bar − 1.
    public static func twelveBars(rightName: String = "RH", leftName: String = "LH", extraConductor: [MIDIEvent] = [],
                                  extraRight: [MIDIEvent] = []) throws -> MIDIFile {
        var conductor = [name("Twelve Bars"), timeSignature(4, 4), tempo(bpm: 120), keySignature(sharps: 1)]
        conductor += extraConductor
        var right = [name(rightName)]
        var left = [name(leftName)]
        for b in 1...12 {
            let start = (b - 1) * bar
            for beat in 0..<4 {
                if b == 4 && beat >= 2 { continue }
                if b == 8 && beat == 3 { continue }
                right += note(60 + b - 1, at: start + beat * tpq, length: tpq)
            }
            left += note(36 + b - 1, at: start, length: bar)
        }
        right += note(90, at: 3 * bar + 2 * tpq, length: 4 * tpq)   // bar 4 beat 3 → bar 5 beat 3
        right += note(91, at: 7 * bar + 3 * tpq, length: 2 * tpq)   // bar 8 beat 4 → bar 9 beat 2
        right += extraRight
        return try file([conductor, right, left])
    }
}

/// Small real lesson files (via MIDIWriter) with title, level and hands, so a catalogue reads genuine bytes.
public enum LessonMaker {
    public static func bytes(title: String, composer: String? = nil, level: Int? = nil, description: String? = nil,
                             pitches: [Int] = [60, 62, 64, 65, 67], hands: [String] = ["Right Hand"],
                             bpm: Int = 120, timeSignature: (Int, Int) = (4, 2), key: (Int, Bool)? = (0, false),
                             salt: String = "") -> [UInt8] {
        var meta: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8)))]
        var tags = LessonTags(title: nil, composer: composer, level: level, description: description)
        tags.title = nil
        meta += tags.events
        let us = 60_000_000 / bpm
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xff), UInt8(us >> 8 & 0xff), UInt8(us & 0xff)])))
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [UInt8(timeSignature.0), UInt8(timeSignature.1), 24, 8])))
        if let key { meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.keySignature, data: KeySignature(sharps: key.0, minor: key.1).bytes))) }
        if !salt.isEmpty { meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array(salt.utf8)))) }
        var tracks = [Track(events: meta)]
        for (h, name) in hands.enumerated() {
            var ev = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8)))]
            for (i, p) in pitches.enumerated() {
                let key = UInt8(max(0, min(127, p - 12 * h)))
                ev.append(MIDIEvent(tick: i * 480, .noteOn(channel: UInt8(h), key: key, velocity: 80)))
                ev.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: UInt8(h), key: key, velocity: 0)))
            }
            tracks.append(Track(events: ev))
        }
        return MIDIWriter.write(MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: tracks))
    }

    @discardableResult
    public static func write(_ path: String, title: String, level: Int? = nil, salt: String = "") throws -> [UInt8] {
        let b = bytes(title: title, level: level, salt: salt)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(b).write(to: URL(fileURLWithPath: path))
        return b
    }
}

/// A type-1 file built from notes (seconds are derived through the file's own tempo map).
public struct TestSong: Sendable {
    public var tpq = 480
    /// (tick, µs per quarter)
    public var tempos: [(Int, Int)] = [(0, 500_000)]
    /// (tick, message) on track 1.
    public var events: [(Int, MIDIEvent.Kind)] = []
    public var endTick: Int

    public init(tpq: Int = 480, tempos: [(Int, Int)] = [(0, 500_000)], events: [(Int, MIDIEvent.Kind)] = [], endTick: Int) {
        self.tpq = tpq
        self.tempos = tempos
        self.events = events
        self.endTick = endTick
    }

    public func file() -> MIDIFile {
        var conductor = tempos.map { t, us in
            MIDIEvent(tick: t, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
        }
        conductor.append(MIDIEvent(tick: endTick, .meta(type: MetaType.endOfTrack, data: [])))
        var notes = events.sorted { $0.0 < $1.0 }.map { MIDIEvent(tick: $0.0, $0.1) }
        notes.append(MIDIEvent(tick: endTick, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: conductor), Track(events: notes)])
    }

    public func write(to path: String) throws {
        try Data(MIDIWriter.write(file())).write(to: URL(fileURLWithPath: path))
    }

    /// Seconds at a tick computed by hand from the tempo list (independent of TempoMap).
    public func seconds(atTick tick: Int) -> Double {
        var s = 0.0, lastTick = 0, us = 500_000
        for (t, u) in tempos.sorted(by: { $0.0 < $1.0 }) where t <= tick {
            s += Double(t - lastTick) * Double(us) / 1e6 / Double(tpq)
            lastTick = t
            us = u
        }
        return s + Double(tick - lastTick) * Double(us) / 1e6 / Double(tpq)
    }

    /// Where `onsets` starts its notes.
    public static let onsetTicks = [0, 1000, 2333, 3707, 4400, 5555, 7001, 8333, 11600]

    /// Isolated middle Cs at irregular ticks, a tempo change (120 → 75 BPM) and an empty bar.
    /// Each note is preceded by CC 120 (all sound off) so the previous release is cut to exact
    /// digital silence and an onset is simply the first non-zero sample — no threshold guesswork.
    public static let onsets: TestSong = {
        var song = TestSong(tempos: [(0, 500_000), (3840, 800_000)], events: [], endTick: 12480)
        song.events.append((0, .programChange(channel: 0, program: 0)))
        for t in onsetTicks {
            if t > 0 { song.events.append((t - 250, .controlChange(channel: 0, controller: 120, value: 0))) }
            song.events.append((t, .noteOn(channel: 0, key: 60, velocity: 100)))
            song.events.append((t + 120, .noteOff(channel: 0, key: 60, velocity: 0)))
        }
        return song
    }()
}

/// Measures rendered audio: onsets, peaks, timbre.
public enum Signal {
    /// Onsets: first sample whose magnitude exceeds `threshold` after at least `gap` samples at
    /// or below it (the piece starts in silence).
    public static func onsets(_ x: [Float], threshold: Float = 1e-5, gap: Int = 2000) -> [Int] {
        var out: [Int] = []
        var quiet = gap
        for (i, v) in x.enumerated() {
            if abs(v) > threshold {
                if quiet >= gap { out.append(i) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return out
    }

    public static func peak(_ x: ArraySlice<Float>) -> Float { x.reduce(0) { max($0, abs($1)) } }

    /// Magnitudes at the first `count` harmonics of `f0` (Goertzel), normalised to sum 1.
    public static func harmonicProfile(_ x: ArraySlice<Float>, f0: Double, rate: Double, count: Int = 12) -> [Double] {
        var mags: [Double] = []
        for h in 1...count {
            let w = 2 * Double.pi * f0 * Double(h) / rate
            var re = 0.0, im = 0.0
            for (n, v) in x.enumerated() {
                // Hann window to keep leakage out of neighbouring harmonics.
                let win = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(x.count - 1))
                re += Double(v) * win * cos(w * Double(n))
                im -= Double(v) * win * sin(w * Double(n))
            }
            mags.append((re * re + im * im).squareRoot())
        }
        let total = mags.reduce(0, +)
        return total > 0 ? mags.map { $0 / total } : mags
    }

    public static func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) }
    }
}
