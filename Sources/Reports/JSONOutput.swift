import Foundation
import Lesson

import MIDIFile
import MIDIInput
import Store
import Synth

/// Every `--json` output goes through one encoder configuration: sorted keys (stable output
/// for scripts and diffs), slashes unescaped (paths read as paths), nil written as `null` (a
/// field is always there, as consumers expect). Records are Codable values, never text built
/// by hand.
public enum JSONOutput {
    /// The one encoder configuration.
    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// One value as a line of JSON.
    public static func line<T: Encodable>(_ value: T) -> String {
        text(value) + "\n"
    }

    /// One value as JSON text (no newline).
    public static func text<T: Encodable>(_ value: T) -> String {
        do {
            return escapingControls(String(decoding: try encoder().encode(value), as: UTF8.self))
        } catch {
            // Only a value that cannot be encoded at all gets here (never one of Etude's records).
            return "null"
        }
    }

    /// An array with one element per line: `[{…},\n{…}]`, so a long list stays readable and
    /// line-oriented tools still work.
    public static func array<T: Encodable>(_ values: [T]) -> String {
        let enc = encoder()
        var out = "["
        for (i, v) in values.enumerated() {
            if i > 0 { out += ",\n" }
            out += (try? enc.encode(v)).map { escapingControls(String(decoding: $0, as: UTF8.self)) } ?? "null"
        }
        return out + "]\n"
    }

    /// DEL, C1 controls and bidi marks (which the encoder leaves raw) as `\uXXXX` escapes: the
    /// data stays exact and nothing in it acts on a terminal. Outside strings JSON is plain
    /// ASCII (its newlines and indents stay), so every such character is inside one; C0
    /// controls inside strings the encoder escapes itself.
    package static func escapingControls(_ json: String) -> String {
        guard !TextDecoding.isClean(json, allowingLineBreaks: true) else { return json }
        var out = String.UnicodeScalarView()
        for u in json.unicodeScalars {
            if u.value >= 0x7F && TextDecoding.isTerminalControl(u) {
                let h = String(u.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - h.count) + h).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }
}

/// A field written as `null` when it has no value (synthesized `Encodable` would leave it out).
@propertyWrapper
public struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Value?
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let v = wrappedValue { try c.encode(v) } else { try c.encodeNil() }
    }
}

/// A catalogue row as `list`, `fav list` and `resume` print it.
public struct ListingRecord: Encodable, Sendable {
    public var id: String
    public var title: String
    @Nullable public var composer: String?
    @Nullable public var level: Int?
    @Nullable public var description: String?
    public var durationSeconds: Double
    public var hands: Int
    @Nullable public var key: String?
    @Nullable public var timeSignature: String?
    @Nullable public var tempoBPM: Double?
    public var noteCount: Int
    @Nullable public var path: String?
    public var favourite: Bool
    @Nullable public var bestScore: Double?
    @Nullable public var lastPractised: String?
    public var passes: Int

    public init(_ l: LessonListing) {
        let s = l.lesson
        id = s.id
        title = s.title
        composer = s.composer
        level = s.level
        description = s.description
        durationSeconds = (s.durationSeconds * 1000).rounded() / 1000
        hands = s.hands
        key = s.keyName
        timeSignature = s.timeSignature
        tempoBPM = s.tempoBPM
        noteCount = s.noteCount
        path = l.path
        favourite = l.isFavourite
        bestScore = l.bestScore
        lastPractised = l.lastPractised.map(Listing.isoDate)
        passes = l.passes
    }
}

/// Where the learner left off, as `etude resume --json` prints it.
public struct ResumeRecord: Encodable, Sendable {
    public struct Loop: Encodable, Sendable {
        public var firstBar: Int
        public var lastBar: Int
        @Nullable public var name: String?
    }

    public var lessonID: String
    @Nullable public var title: String?
    public var path: String
    public var positionSeconds: Double
    public var hand: String
    public var tempoPercent: Int
    public var mode: String
    @Nullable public var loop: Loop?
    /// What the other hand did: play, quiet or mute.
    public var otherHand: String
    public var metronome: Bool
    public var updatedAt: String

    public init(_ state: ResumeState, listing: LessonListing?) {
        lessonID = state.lessonID
        title = listing?.lesson.title
        path = listing?.path ?? state.path
        positionSeconds = state.positionSeconds
        hand = state.hand.rawValue
        tempoPercent = state.tempoPercent
        mode = state.mode.rawValue
        if let a = state.loopFirstBar, let b = state.loopLastBar { loop = Loop(firstBar: a, lastBar: b, name: state.loopName) }
        otherHand = (state.otherHand ?? .play).name
        metronome = state.metronome ?? false
        updatedAt = Listing.isoDate(state.updatedAt)
    }
}

/// A saved loop, as `etude loops LESSON --json` prints it.
public struct LoopRecord: Encodable, Sendable {
    public var name: String
    public var firstBar: Int
    public var lastBar: Int
    public var hand: String
    public var tempoPercent: Int
    public var otherHandMode: String
    /// The loop's own transposition (`+2`, `D`), absent for none.
    public var transpose: String?

    public init(_ l: SavedLoop) {
        name = l.name
        firstBar = l.firstBar
        lastBar = l.lastBar
        hand = l.hand.rawValue
        tempoPercent = l.tempoPercent
        otherHandMode = l.otherHandMode.name
        transpose = l.transpose
    }
}

/// `etude stats --json`.
public struct StatsRecord: Encodable, Sendable {
    public struct Period: Encodable, Sendable {
        public var start: String
        public var seconds: Double
        public var passes: Int
    }

    public var title: String
    public var passes: Int
    public var scoredPasses: Int
    public var totalSeconds: Double
    @Nullable public var bestScore: Double?
    @Nullable public var latestScore: Double?
    public var days: [Period]
    public var weeks: [Period]
    public var scores: [Double]
    public var tempos: [Int]

    public init(_ st: PracticeStats, title: String) {
        self.title = title
        passes = st.passCount
        scoredPasses = st.scoredPassCount
        totalSeconds = st.totalSeconds
        bestScore = st.bestScore
        latestScore = st.latestScore
        days = st.days.map { Period(start: Listing.isoDate($0.start), seconds: $0.seconds, passes: $0.passes) }
        weeks = st.weeks.map { Period(start: Listing.isoDate($0.start), seconds: $0.seconds, passes: $0.passes) }
        scores = st.scores
        tempos = st.tempos.map { Int($0.isFinite ? max(-1e9, min(1e9, $0)) : 0) }
    }
}

/// `etude devices --json`: the MIDI input ports, or why there are none.
public struct DevicesRecord: Encodable, Sendable {
    public struct Port: Encodable, Sendable {
        public var client: Int
        public var port: Int
        public var address: String
        public var clientName: String
        public var portName: String
        public var hardware: Bool
    }

    /// The live synth's output as it opens here: the driver (null = none, silent) and its buffer.
    public struct Audio: Encodable, Sendable {
        @Nullable public var driver: String?
        public var sampleRate: Int
        public var periodSize: Int
        public var periods: Int
        public var bufferMs: Double
    }

    public var ports: [Port]
    @Nullable public var reason: String?
    @Nullable public var audio: Audio?
    /// The JACK server, its rate and period, and its MIDI ports (`running: false` with a reason).
    @Nullable public var jack: JackDevices?

    public init(ports: [ALSAPort], reason: String?, audio: FluidSynthLive.AudioCheck? = nil, jack: JackDevices? = nil) {
        self.jack = jack
        self.ports = ports.map { Port(client: $0.client, port: $0.port, address: $0.address, clientName: $0.clientName,
                                      portName: $0.portName, hardware: $0.isHardware) }
        self.reason = reason
        self.audio = audio.map { Audio(driver: $0.driver, sampleRate: Int($0.sampleRate), periodSize: $0.periodSize, periods: $0.periods,
                                       bufferMs: ($0.bufferMilliseconds * 10).rounded() / 10) }
    }
}

/// `etude info --json`: the file as read (format, timing, tracks, meta events, the reader's
/// repairs) and, when it reads as a lesson, what Etude makes of it (hands, bars, parts).
public struct InfoRecord: Encodable, Sendable {
    public struct DivisionInfo: Encodable, Sendable {
        public struct SMPTE: Encodable, Sendable {
            public var fps: Double
            public var ticksPerFrame: Int
        }
        public var ticksPerQuarter: Int?
        public var smpte: SMPTE?

        public init(_ d: Division) {
            switch d {
            case .ticksPerQuarter(let t): ticksPerQuarter = t
            // 29 in the header means 29.97 (drop-frame): say the real rate.
            case .smpte(let fps, let tpf): smpte = SMPTE(fps: fps == 29 ? 29.97 : Double(fps), ticksPerFrame: tpf)
            }
        }
    }
    public struct TrackInfo: Encodable, Sendable {
        public var index: Int
        @Nullable public var name: String?
        public var channels: [Int]
        public var programs: [Int]
        public var instruments: [String]
        public var noteCount: Int
        @Nullable public var lowestPitch: Int?
        @Nullable public var highestPitch: Int?
    }
    public struct Tempo: Encodable, Sendable {
        public var tick: Int
        public var seconds: Double
        public var microsecondsPerQuarter: Int
        public var bpm: Double
    }
    public struct Time: Encodable, Sendable {
        public var tick: Int
        public var numerator: Int
        public var denominator: Int
    }
    public struct Key: Encodable, Sendable {
        public var tick: Int
        public var sharps: Int
        public var minor: Bool
        public var name: String
    }
    public struct Marker: Encodable, Sendable {
        public var tick: Int
        public var seconds: Double
        public var text: String
    }
    public struct Warning: Encodable, Sendable {
        @Nullable public var offset: Int?
        public var message: String

        public init(_ w: MIDIWarning) {
            offset = w.offset
            message = w.message
        }
    }
    public struct Hands: Encodable, Sendable {
        public var method: String
        public var description: String
        public var right: Int
        public var left: Int
        public var accompaniment: Int
    }
    public struct PrintedRun: Encodable, Sendable {
        public var printed: [Int]
        public var pass: Int
        public var played: [Int]
    }
    public struct Bars: Encodable, Sendable {
        public var count: Int
        public var pickup: Bool
        public var printed: [PrintedRun]
    }
    public struct Staff: Encodable, Sendable {
        public var track: Int
        @Nullable public var hand: String?
        @Nullable public var clef: String?
    }
    public struct Part: Encodable, Sendable {
        public var name: String
        public var staves: [Staff]
    }
    public struct Section: Encodable, Sendable {
        public var name: String
        public var firstBar: Int
        public var lastBar: Int
    }

    public var format: Int
    public var division: DivisionInfo
    public var durationSeconds: Double
    public var noteCount: Int
    public var tracks: [TrackInfo]
    public var tempos: [Tempo]
    public var timeSignatures: [Time]
    public var keySignatures: [Key]
    public var markers: [Marker]
    public var warnings: [Warning]
    // The lesson's side (absent when the file does not read as one).
    public var title: String?
    public var composer: Nullable<String>?
    public var level: Nullable<Int>?
    public var description: Nullable<String>?
    public var hands: Hands?
    public var bars: Bars?
    public var parts: [Part]?
    public var sections: [Section]?

    public init(_ s: MIDIFileSummary, warnings: [MIDIWarning], lesson: Lesson?) {
        format = s.format
        division = DivisionInfo(s.division)
        durationSeconds = s.durationSeconds
        noteCount = s.noteCount
        tracks = s.tracks.map { t in
            TrackInfo(index: t.index, name: t.name, channels: t.channels, programs: t.programs,
                      instruments: t.programs.map { GeneralMIDI.name(program: $0) }, noteCount: t.noteCount,
                      lowestPitch: t.lowestPitch, highestPitch: t.highestPitch)
        }
        tempos = s.tempos.map { Tempo(tick: $0.tick, seconds: $0.seconds, microsecondsPerQuarter: Int($0.value), bpm: 60_000_000 / Double($0.value)) }
        timeSignatures = s.timeSignatures.map { Time(tick: $0.tick, numerator: Int($0.value.numerator), denominator: Int($0.value.denominator)) }
        keySignatures = s.keySignatures.map { Key(tick: $0.tick, sharps: Int($0.value.sharps), minor: $0.value.minor, name: $0.value.name) }
        markers = s.markers.map { Marker(tick: $0.tick, seconds: $0.seconds, text: $0.value) }
        self.warnings = warnings.map(Warning.init)
        guard let lesson else { return }
        title = lesson.title
        composer = Nullable(wrappedValue: lesson.composer)
        level = Nullable(wrappedValue: lesson.tags.level)
        description = Nullable(wrappedValue: lesson.tags.description)
        hands = Hands(method: lesson.handAssignment.method.rawValue, description: lesson.handAssignment.description,
                      right: lesson.noteCount(.hand(.right)), left: lesson.noteCount(.hand(.left)),
                      accompaniment: lesson.noteCount(.accompaniment))
        bars = Bars(count: lesson.bars.count, pickup: lesson.bars.hasPickup,
                    printed: (lesson.bars.isPrinted ? lesson.bars.printedRuns : []).map {
                        PrintedRun(printed: [$0.printed.lowerBound, $0.printed.upperBound], pass: $0.pass,
                                   played: [$0.performed.lowerBound, $0.performed.upperBound])
                    })
        parts = lesson.scoreParts.map { p in
            Part(name: p.name, staves: p.staves.map { Staff(track: $0.track, hand: $0.hand?.rawValue, clef: $0.clef?.rawValue) })
        }
        sections = lesson.sections.map { Section(name: $0.name, firstBar: $0.firstBar, lastBar: $0.lastBar) }
    }
}
