import Judge
import Terminal

/// Why a key is lit or a note falls: whose note it is. Screen-only on purpose, so the screen
/// does not depend on the lesson engine; the caller maps its own notions onto these.
public enum NoteRole: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// Accompaniment (tracks the learner does not play): drawn dim.
    case accompaniment = 1
    case leftHand = 2
    case rightHand = 3
    /// A key the learner is pressing that was expected.
    case learner = 4
    /// A key the learner is pressing that was not expected.
    case wrong = 5

    public static func < (a: NoteRole, b: NoteRole) -> Bool { a.rawValue < b.rawValue }
}

/// Which keys are down right now and why. When several roles light one key the most
/// important wins (wrong > learner > right hand > left hand > accompaniment).
public struct KeyboardState: Sendable, Equatable {
    private var roles: [UInt8] = Array(repeating: 0, count: 128)
    /// Letters written on keys (wait mode: the computer key that plays an awaited note).
    public var letters: [Int: Character] = [:]

    public init() {}

    public init(_ lit: [(pitch: Int, role: NoteRole)]) {
        for l in lit { light(l.pitch, l.role) }
    }

    /// Lights a key; keeps the more important role if it is already lit.
    public mutating func light(_ pitch: Int, _ role: NoteRole) {
        guard (0..<128).contains(pitch) else { return }
        if UInt8(role.rawValue) > roles[pitch] { roles[pitch] = UInt8(role.rawValue) }
    }

    public mutating func clear() {
        for i in roles.indices { roles[i] = 0 }
    }

    public subscript(pitch: Int) -> NoteRole? {
        guard (0..<128).contains(pitch) else { return nil }
        return NoteRole(rawValue: Int(roles[pitch]))
    }

    public var isEmpty: Bool { !roles.contains { $0 != 0 } }
}

/// An upcoming (or sounding) note above the keyboard, timed relative to now in seconds of
/// real (tempo-scaled) time: start < 0 < end means it is sounding.
public struct FallingNote: Sendable, Equatable {
    public var pitch: Int
    public var start: Double
    public var end: Double
    public var role: NoteRole
    /// 1–5 when the lesson carries fingering and finger display is on.
    public var finger: Int?
    /// After a pass: how the note was judged (its glyph and colour), nil before.
    public var verdict: VerdictMark?

    public init(pitch: Int, start: Double, end: Double, role: NoteRole, finger: Int? = nil, verdict: VerdictMark? = nil) {
        self.pitch = pitch
        self.start = start
        self.end = end
        self.role = role
        self.finger = finger
        self.verdict = verdict
    }
}

/// A bar line in the falling-notes view: when (seconds from now) and which bar starts there.
public struct BarLine: Sendable, Equatable {
    public var seconds: Double
    public var bar: Int
    /// What is written beside it: the bar's printed number for a score, else `bar`.
    public var label: String
    public init(seconds: Double, bar: Int, label: String? = nil) {
        self.seconds = seconds
        self.bar = bar
        self.label = label ?? String(bar)
    }
}

/// The loop as the status bar shows it.
public struct LoopStatus: Sendable, Equatable {
    public var startBar: Int
    public var endBar: Int
    public var enabled: Bool
    /// Completed passes through the loop.
    public var pass: Int
    /// The bars as the learner names them ("12–16@2" in a score with repeats).
    public var label: String
    public init(startBar: Int, endBar: Int, enabled: Bool, pass: Int = 0, label: String? = nil) {
        self.startBar = startBar
        self.endBar = endBar
        self.enabled = enabled
        self.pass = pass
        self.label = label ?? "\(startBar)–\(endBar)"
    }
}

/// Everything the status bar shows, already decided by the caller (display-ready values).
public struct StatusInfo: Sendable, Equatable {
    public var title: String
    public var playing: Bool
    /// 1-based bar and beat at the current position.
    public var bar: Int
    public var beat: Int
    public var bars: Int
    /// The bar and the last bar as printed in a score ("12@2", "32"); nil: `bar` and `bars`.
    public var barLabel: String?
    public var barsLabel: String?
    /// Effective tempo (after the tempo percentage) and the percentage itself.
    public var bpm: Double
    /// "count-in 2/4" while the count-in clicks (shown before the bar it leads into).
    public var countIn: String?
    /// The note value `bpm` counts (♩, ♪ in 3/8, ♩. in 6/8): see `TempoMark`.
    public var beatSymbol = "♩"
    public var tempoPercent: Int
    /// "right", "left", "both" …
    public var hand: String
    /// What the other hand does: "play", "quiet", "mute".
    public var otherHand: String
    public var loop: LoopStatus?
    public var metronome: Bool
    /// "watch", "wait", "play" …
    public var mode: String
    /// The pass being played, when passes repeat (shown from the second).
    public var pass: Int = 1
    /// No audio device opened: the lesson is silent (the header says so).
    public var silent = false
    /// Wait mode: the keys awaited, e.g. "E4 [d]  G3 [z g]" (the header's icon is ▷ then; the
    /// hint line names them).
    public var waiting: String?
    /// `echo on` / `echo off` when the learner plays a MIDI instrument (nil: not shown).
    public var echo: String?
    /// Etude's part keeps the learner's tempo (`--follow`): `follow` on the first line.
    public var following = false
    /// Following by ear (a microphone): the listener's delay made up, ms (`follow by ear +45 ms`).
    public var followingByEarMs: Int?
    /// A microphone's signal the listener cannot trust ("mic too quiet", "mic clipped", "mic too
    /// noisy"): said where the learner looks rather than scored as misses (nil: nothing to say).
    public var listening: String?

    public init(title: String = "", playing: Bool = false, bar: Int = 1, beat: Int = 1, bars: Int = 1,
                bpm: Double = 120, tempoPercent: Int = 100, hand: String = "both", otherHand: String = "play",
                loop: LoopStatus? = nil, metronome: Bool = false, mode: String = "watch") {
        self.title = title
        self.playing = playing
        self.bar = bar
        self.beat = beat
        self.bars = bars
        self.bpm = bpm
        self.tempoPercent = tempoPercent
        self.hand = hand
        self.otherHand = otherHand
        self.loop = loop
        self.metronome = metronome
        self.mode = mode
    }
}

/// The timeline: where we are in the piece and where the loop is, in bars (fractional).
public struct TimelineInfo: Sendable, Equatable {
    /// Position from 0 to `length` (e.g. bars elapsed, 0-based, fractional).
    public var position: Double
    public var length: Double
    public var loopStart: Double?
    public var loopEnd: Double?
    public var loopEnabled: Bool

    public init(position: Double = 0, length: Double = 1, loopStart: Double? = nil, loopEnd: Double? = nil, loopEnabled: Bool = false) {
        self.position = position
        self.length = length
        self.loopStart = loopStart
        self.loopEnd = loopEnd
        self.loopEnabled = loopEnabled
    }
}

/// A finished pass, as the results panel shows it: a title, the pass's score figures and the
/// input offset they were judged with.
public struct ResultsInfo: Sendable, Equatable {
    public var title: String
    public var figures: ScoreFigures
    /// The learner's input offset taken off the played times (ms): named when not 0.
    public var offsetMs: Double
    /// A line about the learner's timing (the suggestion to calibrate).
    public var timingHint: String?
    /// The speed trainer's word on the next pass ("next pass at 75 % (…)"), when it is on.
    public var speedTrainer: String?
    /// Wait mode: mean seconds per chord; the panel shows hits, wrong keys and this, not timing.
    public var secondsPerChord: Double?
    /// The ear's line (releases, loudness, evenness), nil when it judged nothing.
    public var earLine: String?
    /// Where it went wrong, a line per bar ("bar 9: D4 short, E4 loud").
    public var review: [String]
    /// The pass can be reviewed bar by bar: the panel says which key opens it.
    public var reviewKey: String? = nil
    /// With `--follow`: the tempo the learner kept, bar by bar ("tempo 100 → 86 % in bars 5–8").
    public var tempoLine: String? = nil

    public init(title: String = "Results", figures: ScoreFigures, offsetMs: Double = 0, timingHint: String? = nil,
                speedTrainer: String? = nil, secondsPerChord: Double? = nil, earLine: String? = nil, review: [String] = []) {
        self.review = review
        self.title = title
        self.figures = figures
        self.offsetMs = offsetMs
        self.timingHint = timingHint
        self.speedTrainer = speedTrainer
        self.secondsPerChord = secondsPerChord
        self.earLine = earLine
    }
}

/// A panel drawn over the practice screen.
public enum Overlay: Sendable, Equatable {
    case help
    case results(ResultsInfo)
}

/// How note names are spelled: middle C is C4 (scientific) or C3 (Yamaha).
public enum NoteNaming: Sendable, Equatable {
    case scientific
    case yamaha

    public var octaveOfMiddleC: Int { self == .scientific ? 4 : 3 }
}

/// One frame's worth of state, as plain values: `PracticeScreen.render` draws it.
public struct ScreenModel: Sendable, Equatable {
    public var status: StatusInfo
    public var timeline: TimelineInfo
    public var keyboard: KeyboardState
    public var notes: [FallingNote]
    public var barLines: [BarLine]
    /// Loop start/end in seconds from now, when they fall inside the falling-notes view.
    public var loopStartSeconds: Double?
    public var loopEndSeconds: Double?
    /// Seconds of music shown above the keyboard (the falling speed: less = faster).
    public var lookaheadSeconds: Double
    /// The lesson's pitch range; on narrow terminals the keyboard shows it (plus octave labels).
    public var pitchRange: ClosedRange<Int>?
    /// The learner's keyboard (`--keys`, `--range`): the keys off it are drawn greyed.
    public var learnerKeys: ClosedRange<Int>? = nil
    public var showNoteNames: Bool
    public var noteNaming: NoteNaming
    public var showFingers: Bool
    public var overlay: Overlay?
    /// A short transient message (e.g. "loop bars 9–12"), shown in the hint line.
    public var message: String?
    /// The keys the help overlay lists: nil for the practice screen's own. A routine's step
    /// sets its own, where → goes to the next entry and q ends the routine.
    public var helpEntries: [PracticeKeys.Entry]? = nil
    /// The key hints of the footer, most useful first (`Footer` keeps `? help` and `q quit`).
    public var hints: [String] = Footer.controls

    public init(status: StatusInfo = StatusInfo(), timeline: TimelineInfo = TimelineInfo(), keyboard: KeyboardState = KeyboardState(),
                notes: [FallingNote] = [], barLines: [BarLine] = [], loopStartSeconds: Double? = nil, loopEndSeconds: Double? = nil,
                lookaheadSeconds: Double = 3, pitchRange: ClosedRange<Int>? = nil, showNoteNames: Bool = false,
                noteNaming: NoteNaming = .scientific, showFingers: Bool = false, overlay: Overlay? = nil, message: String? = nil) {
        self.status = status
        self.timeline = timeline
        self.keyboard = keyboard
        self.notes = notes
        self.barLines = barLines
        self.loopStartSeconds = loopStartSeconds
        self.loopEndSeconds = loopEndSeconds
        self.lookaheadSeconds = lookaheadSeconds
        self.pitchRange = pitchRange
        self.showNoteNames = showNoteNames
        self.noteNaming = noteNaming
        self.showFingers = showFingers
        self.overlay = overlay
        self.message = message
    }
}
