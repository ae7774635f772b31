import Foundation
import Judge
import Lesson

/// Everything a view needs of a practice session at one moment, as plain values: what plays
/// (notes ahead with their parts, bar lines), where (bar, beat, tempo), the plan, the loop, the
/// coach's feedback (the learner's keys, wrong-note flashes, the chord wait mode waits for, the
/// last results); the screen's own flags are the front end's (`PracticeViewState`). Built under short locks by
/// `PracticeSession.state()`; a pure function turns it into a frame, so drawing never moves
/// the music or the judging.
public struct SessionState: Sendable {
    /// A note of the lesson near `now`, timed from `now` in real (tempo-scaled) seconds:
    /// `start < 0 < end` means it is sounding.
    public struct Note: Equatable, Sendable {
        /// Index into `Lesson.notes`.
        public var index: Int
        public var pitch: Int
        public var start: Double
        public var end: Double
        public var part: Part
        /// True when the note belongs to the hand(s) practised.
        public var practised: Bool
    }

    /// The loop as it plays: on or off, passes through it, its name (the marks being typed are
    /// the front end's, `PracticeViewState`).
    public struct Loop: Equatable, Sendable {
        public var enabled: Bool
        public var passes: Int
        public var name: String?
    }

    /// What the learner plays and what the coach says about it.
    public struct Feedback: Equatable, Sendable {
        /// Keys held now.
        public var held: Set<Int> = []
        /// Held keys that were wrong.
        public var wrong: Set<Int> = []
        /// Keys flashing red after a wrong note.
        public var flashes: Set<Int> = []
        /// Wait mode: the notes of the chord waited for that are not yet held, with their hand.
        public var waitingFor: [(pitch: Int, hand: Hand?)] = []
        /// After a full run with mistakes: the section to work on, e.g. "Work on Bars 5–8: 75% accuracy".
        public var advice: String?
        /// Wait mode on the computer keyboard: what to type for each awaited pitch ("d", "z g").
        public var waitingKeys: [Int: String] = [:]

        public init() {}

        public static func == (a: Feedback, b: Feedback) -> Bool {
            a.held == b.held && a.wrong == b.wrong && a.flashes == b.flashes && a.advice == b.advice && a.waitingKeys == b.waitingKeys
                && a.waitingFor.map(\.pitch) == b.waitingFor.map(\.pitch) && a.waitingFor.map(\.hand) == b.waitingFor.map(\.hand)
        }
    }

    /// A finished, judged pass as the results panel shows it.
    public struct Results: Equatable, Sendable {
        public var pass: Int
        public var tempoPercent: Double
        public var figures: ScoreFigures
        /// The input offset subtracted before judging (ms), which the panel names.
        public var offsetMs: Double = 0
        /// A line about the learner's timing (the suggestion to calibrate), shown once.
        public var timingHint: String?
        /// With the speed trainer on: the tempo of the next pass and why (`SpeedTrainer.verdict`).
        public var speedTrainer: String?
        /// Wait mode: mean seconds per chord (shown instead of timing, which means nothing there).
        public var secondsPerChord: Double?
        /// The ear's line ("Releases: short 2, long 0 · …"), nil when it judged nothing.
        public var earLine: String?
        /// Where it went wrong, a line per bar ("bar 9: D4 short, E4 loud").
        public var review: [String] = []
        /// With `--follow`: the tempo the learner kept ("tempo 100 → 86 % in bars 5–8").
        public var tempoLine: String?

        /// "Pass 2 at 80%".
        public var title: String { "Pass \(pass) at \(TempoPercent.text(tempoPercent))%" }
    }

    public var now: Double
    public var title: String
    public var transport: Transport.State
    public var plan: PracticePlan
    /// The pass being played (1-based).
    public var pass: Int
    public var tempoPercent: Double
    /// Effective quarter-note BPM now.
    public var bpm: Double
    public var position: Position
    /// The transport's tick now (fractional), for the timeline.
    public var tick: Double
    /// The count-in click under way (beat of beats), nil while the music plays.
    public var countIn: (beat: Int, beats: Int)? = nil
    /// Seconds of music ahead in `notes` and `barLines`.
    public var lookaheadSeconds: Double
    public var notes: [Note]
    /// Bar lines ahead: seconds from now and the bar starting there.
    public var barLines: [(seconds: Double, bar: Int)]
    public var loop: Loop
    public var mode: PracticeMode
    /// The computer keyboard is the instrument and the mode judges: the piano letters play notes.
    public var pianoKeys: Bool
    public var feedback: Feedback
    /// How the notes of the pass under way were judged so far, by index into `Lesson.notes`.
    public var judged: [Int: Verdict]
    /// After a pass: its notes struck right but not cleanly (after a wrong key, held or played
    /// off), each with its mark.
    public var heardOff: [Int: VerdictMark] = [:]
    /// Etude's part keeps the learner's tempo (`--follow`).
    public var following = false
    /// Following by ear: the listener's delay the partner makes up, in ms (nil: keys, not a microphone).
    public var followingByEarMs: Int?
}

/// A note the learner played (MIDI keyboard or computer keys), as the session takes it.
/// Plain values so this module needs no input-device dependency.
public struct LearnerNote: Equatable, Sendable {
    public var pitch: Int
    public var velocity: Int
    /// true for a key press, false for a release.
    public var isOn: Bool
    /// On the session's clock (`PracticeSession.now`).
    public var time: Double

    public init(pitch: Int, velocity: Int, isOn: Bool, time: Double) {
        self.pitch = pitch
        self.velocity = velocity
        self.isOn = isOn
        self.time = time
    }
}

/// A pass that ended, with what was practised: what the history stores.
public struct FinishedPassInfo: Equatable, Sendable {
    public var pass: Int
    public var tempoPercent: Double
    /// Wall-clock start of the pass.
    public var startedAt: Date
    public var durationSeconds: Double
    public var bars: ClosedRange<Int>
    /// True when bars were looped (not the whole lesson).
    public var isLoop: Bool
    public var hands: PracticePlan.Hands
    /// False for the pass under way when practice stopped: stored for its time, never scored.
    public var complete = true

    /// A pass as the session records it (a front end or a test may make one to store).
    public init(pass: Int, tempoPercent: Double, startedAt: Date, durationSeconds: Double, bars: ClosedRange<Int>,
                isLoop: Bool, hands: PracticePlan.Hands, complete: Bool = true) {
        self.pass = pass
        self.tempoPercent = tempoPercent
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.bars = bars
        self.isLoop = isLoop
        self.hands = hands
        self.complete = complete
    }
}

/// A finished pass, whole: when and what was practised (`info`), in which mode, and how it
/// was judged (`report`: figures, sections, notes; nil when watched or left unfinished). The
/// session emits each once, in order, into its outbox (`PracticeSession.takePassResults()`);
/// the history, `--report`, the results panel and the calibrate hint read it there.
public struct PassResult: Equatable, Sendable {
    public var info: FinishedPassInfo
    public var mode: PracticeMode
    public var report: PassReport?

    public init(info: FinishedPassInfo, mode: PracticeMode, report: PassReport?) {
        self.info = info
        self.mode = mode
        self.report = report
    }

    /// The pass number (1-based, from the loop's start).
    public var pass: Int { info.pass }
    /// The pass's figures when it was judged.
    public var figures: ScoreFigures? { report?.figures }
}

/// A loop as the learner set it on the screen, for saving under a name.
public struct LoopSnapshot: Equatable, Sendable {
    public var bars: ClosedRange<Int>
    public var hands: PracticePlan.Hands
    public var tempoPercent: Double
    public var otherHand: PracticePlan.OtherHand
    /// The bars as a score prints them (`9-12@2`), nil when they are counted from 1.
    public var printedBars: String?

    public init(bars: ClosedRange<Int>, hands: PracticePlan.Hands, tempoPercent: Double, otherHand: PracticePlan.OtherHand,
                printedBars: String? = nil) {
        self.bars = bars
        self.hands = hands
        self.tempoPercent = tempoPercent
        self.otherHand = otherHand
        self.printedBars = printedBars
    }

    /// The automatic name, e.g. `bars 5-8 at 70%` (`, right hand` when one hand); typed with a
    /// plain hyphen, as `--saved` is.
    public var autoName: String {
        var name = "bars \(printedBars ?? "\(bars.lowerBound)-\(bars.upperBound)") at \(TempoPercent.text(tempoPercent))%"
        if hands != .both { name += ", \(hands.rawValue) hand" }
        return name
    }
}

/// A loop saved for the lesson, as `L` on the practice screen steps through them.
public struct NamedLoop: Equatable, Sendable {
    public var name: String
    public var loop: LoopSnapshot

    public init(name: String, loop: LoopSnapshot) {
        self.name = name
        self.loop = loop
    }
}

/// Where the learner is, for `etude resume`.
public struct ResumePoint: Equatable, Sendable {
    /// Seconds into the lesson at the file's own tempo.
    public var positionSeconds: Double
    public var bar: Int
    public var hands: PracticePlan.Hands
    public var tempoPercent: Double
    public var loop: ClosedRange<Int>?
    public var otherHand: PracticePlan.OtherHand = .play
    public var metronome = false
}
