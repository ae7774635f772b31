import Foundation
import MIDIFile

/// What the learner wants to practise and how: hands, tempo, loop, repeats, speed trainer,
/// metronome. A plain value, so it can be saved, compared and validated against a lesson.
public struct PracticePlan: Equatable, Sendable {
    public enum Hands: String, Equatable, Sendable, CaseIterable, Codable {
        case right, left, both

        /// Whether a note of this part is one the learner practises.
        public func practises(_ part: Part) -> Bool {
            switch (self, part) {
            case (.both, .hand): return true
            case (.right, .hand(.right)), (.left, .hand(.left)): return true
            default: return false
            }
        }
    }

    /// What happens to the hand not being practised.
    public enum OtherHand: Equatable, Sendable {
        /// Played as written, as an accompaniment.
        case play
        /// Played with velocities scaled by the factor (0–1).
        case quiet(Double)
        /// Not sounded (still shown on screen).
        case mute

        public static let quietDefault = OtherHand.quiet(0.4)
    }

    /// What Etude does with the learner's own part (the notes `expects`). A learner who plays
    /// must never be given the answer: in the judging modes their part is silent unless they
    /// ask to hear it (`--guide on`), and then only quietly and only on Etude's synth, never
    /// on their instrument (`etude:midi_out`, where the key lights also go).
    public enum LearnerPart: Equatable, Sendable {
        /// Played as written (watch mode, render, export: nobody plays along).
        case heard
        /// Not sounded (shown and judged only).
        case silent
        /// Sounded on the synth only, at `guideFactor` of the written velocity.
        case guide

        /// How loud the guide is against the written velocity.
        public static let guideFactor = 0.35

        /// The part for a session in a mode: heard unless the learner plays; then silent, or
        /// the quiet guide when asked for.
        public static func forMode(judging: Bool, guide: Bool) -> LearnerPart {
            judging ? (guide ? .guide : .silent) : .heard
        }
    }

    public enum Tempo: Equatable, Sendable {
        /// Percent of the file's own tempo map (its tempo changes are followed).
        case percent(Double)
        /// Quarter-note BPM the first tempo of the file is scaled to.
        case bpm(Double)
    }

    public enum Repeat: Equatable, Sendable {
        case times(Int)
        case forever
    }

    /// Tempo rises by `step` % after each clean pass from `start` % up to `target` %, stays at
    /// the target, and with `finalSlowPass` ends with one pass at `start` %.
    public struct SpeedTrainer: Equatable, Sendable {
        public var start: Double
        public var target: Double
        public var step: Double
        public var finalSlowPass: Bool

        public init(start: Double, target: Double, step: Double, finalSlowPass: Bool = false) {
            self.start = start
            self.target = target
            self.step = step
            self.finalSlowPass = finalSlowPass
        }

        public var text: String { "\(PracticePlan.format(start)):\(PracticePlan.format(target)):\(PracticePlan.format(step))" }

        /// The tempo after a pass at `percent`: one step towards the target when the pass was
        /// clean, the same otherwise (the one rule `PassPlanner` and the results panel use).
        public func stepped(from percent: Double, clean: Bool) -> Double {
            guard clean, percent != target else { return percent }
            return target > percent ? min(target, percent + step) : max(target, percent - step)
        }

        /// The results panel's line about the next pass, e.g. "next pass at 75 % (accuracy
        /// 93 %, needed 90 %)", or that the tempo stays (and why).
        public func verdict(percent: Double, accuracy: Double, threshold: Double) -> String {
            let clean = accuracy >= threshold
            let next = stepped(from: percent, clean: clean)
            let why = "(accuracy \(PracticePlan.format(accuracy.rounded(.down))) %, needed \(PracticePlan.format(threshold)) %)"
            if next != percent { return "speed trainer: next pass at \(PracticePlan.format(next)) % \(why)" }
            if percent == target { return "speed trainer: at its target \(PracticePlan.format(target)) %" }
            return "speed trainer: stays at \(PracticePlan.format(percent)) % \(why)"
        }

        /// The speed trainer's own rules: both tempos in `TempoPercent.range`, a positive step.
        static func check(start: Double, target: Double, step: Double, as text: String) throws(PlanError) {
            for v in [start, target] where !(v.isFinite && TempoPercent.range.contains(v)) {
                throw PlanError(.speedTrainer, text, "\(PracticePlan.format(v))% is outside \(PracticePlan.format(TempoPercent.range.lowerBound))–\(PracticePlan.format(TempoPercent.range.upperBound))%")
            }
            guard step > 0, step.isFinite else { throw PlanError(.speedTrainer, text, "the step must be more than 0%") }
        }
    }

    public struct Metronome: Equatable, Sendable {
        public var enabled: Bool
        /// 0–1, scales the click velocities.
        public var volume: Double

        public init(enabled: Bool = false, volume: Double = 0.8) {
            self.enabled = enabled
            self.volume = volume
        }
    }

    public var hands: Hands = .both
    public var otherHand: OtherHand = .play
    public var tempo: Tempo = .percent(100)
    /// Loop bars A–B inclusive, numbered as in the score; nil = the whole lesson.
    public var bars: ClosedRange<Int>?
    /// One bar of metronome clicks before the first pass.
    public var countIn: Bool = false
    public var repeatMode: Repeat = .times(1)
    public var speedTrainer: SpeedTrainer?
    public var metronome = Metronome()
    /// Drums and other instruments.
    public var playAccompaniment: Bool = true
    /// The learner's keyboard (`--keys 61`, `--range C2-C7`): practised notes outside it are
    /// played by Etude, never expected (see `expects`). Nil: every key.
    public var keyboard: KeyboardRange?
    /// What Etude sounds of the notes the learner is expected to play (the other hand and the
    /// notes off their keyboard are not theirs and sound as the plan says). `PracticeSession`
    /// sets it from the mode and `--guide`.
    public var learnerPart: LearnerPart = .heard

    public init(hands: Hands = .both, otherHand: OtherHand = .play, tempo: Tempo = .percent(100),
                bars: ClosedRange<Int>? = nil, countIn: Bool = false, repeatMode: Repeat = .times(1),
                speedTrainer: SpeedTrainer? = nil, metronome: Metronome = Metronome(), playAccompaniment: Bool = true) {
        self.hands = hands
        self.otherHand = otherHand
        self.tempo = tempo
        self.bars = bars
        self.countIn = countIn
        self.repeatMode = repeatMode
        self.speedTrainer = speedTrainer
        self.metronome = metronome
        self.playAccompaniment = playAccompaniment
    }

    // MARK: Validation

    /// Checks the plan against a lesson; every error names the option and what would work.
    public func validate(for lesson: Lesson) throws(PlanError) {
        if let bars {
            let map = lesson.bars
            if bars.lowerBound < map.firstNumber || bars.upperBound > map.lastNumber {
                throw PlanError(.bars, "\(bars.lowerBound)-\(bars.upperBound)", map.outOfRange(bars.lowerBound))
            }
        }
        switch hands {
        case .both:
            // A lesson without piano notes can still be listened to and exported.
            break
        case .left, .right:
            let h: Hand = hands == .left ? .left : .right
            if !lesson.hands.contains(h) {
                let has = lesson.hands.isEmpty ? "no piano part" : "only a \(h.other.name) part"
                throw PlanError(.hand, h.rawValue, "the lesson has \(has) (\(lesson.handAssignment.description))",
                                suggestion: lesson.hands.isEmpty ? "both" : h.other.rawValue)
            }
        }
        if case .quiet(let f) = otherHand, !(0...1).contains(f) {
            throw PlanError(.other, "quiet", "the volume factor must be between 0 and 1")
        }
        if let st = speedTrainer {
            if tempo != .percent(100) {
                throw PlanError(.speedTrainer, st.text, "the speed trainer sets the tempo itself; give no fixed tempo with it")
            }
            try SpeedTrainer.check(start: st.start, target: st.target, step: st.step, as: st.text)
        } else {
            _ = try tempoFactor(for: lesson)
        }
        if case .times(let n) = repeatMode, n < 1 {
            throw PlanError(.repeat, "\(n)", "repeat at least once (or use forever)")
        }
        if !(0...1).contains(metronome.volume) {
            throw PlanError(.metronomeVolume, "\(PracticePlan.format(metronome.volume * 100))%", "use 0–100%")
        }
        try checkKeyboard(for: lesson)
    }

    /// The tempo as a factor of the file's own tempo (1 = 100 %).
    public func tempoFactor(for lesson: Lesson) throws(PlanError) -> Double {
        switch tempo {
        case .percent(let p):
            return try TempoPercent(p).value / 100
        case .bpm(let b):
            let base = lesson.tempoMap.bpm(atTick: 0)
            let percent = b / base * 100
            guard b > 0, TempoPercent.range.contains(percent) else {
                let low = TempoPercent.range.lowerBound, high = TempoPercent.range.upperBound
                throw PlanError(.bpm, PracticePlan.format(b), "that is \(PracticePlan.format(percent))% of the lesson's \(PracticePlan.format(base)) BPM; use \(PracticePlan.format(base * low / 100))–\(PracticePlan.format(base * high / 100)) BPM (\(PracticePlan.format(low))–\(PracticePlan.format(high))%)")
            }
            return percent / 100
        }
    }

    /// Loop bars, or the whole lesson.
    public func barRange(in lesson: Lesson) -> ClosedRange<Int> {
        bars ?? lesson.bars.firstNumber...lesson.bars.lastNumber
    }

    /// Tick range [start, end) of the loop or the whole lesson.
    public func tickRange(in lesson: Lesson) -> Range<Int> {
        let r = barRange(in: lesson)
        let start = lesson.bars.bar(number: r.lowerBound)?.startTick ?? 0
        let end = lesson.bars.bar(number: r.upperBound)?.endTick ?? lesson.endTick
        return start..<max(start, end)
    }

    // MARK: Parsing command-line text

    /// `5-8`, `5–8` or a single bar `12`. Checks only the form and order; `validate` checks
    /// the bars exist.
    public static func parseBars(_ text: String) throws(PlanError) -> ClosedRange<Int> {
        let cleaned = text.replacingOccurrences(of: "–", with: "-").replacingOccurrences(of: " ", with: "")
        let parts = cleaned.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.map { Int($0) }
        if numbers.count == 1, let a = numbers[0], a >= 0 { return a...a }
        guard numbers.count == 2, let a = numbers[0], let b = numbers[1], a >= 0, b >= 0 else {
            throw PlanError(.bars, text, "write the bars as A-B, e.g. 5-8")
        }
        guard a <= b else {
            throw PlanError(.bars, "\(a)-\(b)", "the first bar comes after the last; did you mean \(b)-\(a)?")
        }
        return a...b
    }

    /// `75%` or `75` for a setting that is a percentage (the metronome volume).
    public static func parsePercent(_ text: String, setting: PlanError.Setting) throws(PlanError) -> Double {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("%") { t.removeLast() }
        guard let v = Double(t), v.isFinite else {
            throw PlanError(setting, text, "write a percentage such as 75%")
        }
        return v
    }

    public static func parseTempo(_ text: String) throws(PlanError) -> Tempo {
        .percent(try TempoPercent(parsing: text).value)
    }

    /// `START:TARGET:STEP` in percent, e.g. `60:100:10`.
    public static func parseSpeedTrainer(_ text: String, finalSlowPass: Bool = false) throws(PlanError) -> SpeedTrainer {
        let parts = text.replacingOccurrences(of: "%", with: "").split(separator: ":").map { Double($0) }
        guard parts.count == 3, let s = parts[0], let t = parts[1], let st = parts[2] else {
            throw PlanError(.speedTrainer, text, "write START:TARGET:STEP in percent, e.g. 60:100:10")
        }
        try SpeedTrainer.check(start: s, target: t, step: st, as: text)
        return SpeedTrainer(start: s, target: t, step: st, finalSlowPass: finalSlowPass)
    }

    /// `left`, `right`, `both` (also `l`, `r`, `lh`, `rh`).
    public static func parseHands(_ text: String) throws(PlanError) -> Hands {
        switch text.lowercased() {
        case "left", "l", "lh": return .left
        case "right", "r", "rh": return .right
        case "both", "b", "all": return .both
        default: throw PlanError(.hand, text, "use left, right or both")
        }
    }

    /// `play`, `quiet` or `mute`.
    public static func parseOtherHand(_ text: String) throws(PlanError) -> OtherHand {
        switch text.lowercased() {
        case "play": return .play
        case "quiet": return .quietDefault
        case "mute": return .mute
        default: throw PlanError(.other, text, "use play, quiet or mute")
        }
    }

    /// `N` (at least 1) or `forever`.
    public static func parseRepeat(_ text: String) throws(PlanError) -> Repeat {
        if text.lowercased() == "forever" { return .forever }
        guard let n = Int(text), n >= 1 else {
            throw PlanError(.repeat, text, "give a number of passes (1 or more) or forever")
        }
        return .times(n)
    }

    /// A number for messages: whole numbers plain, others with one decimal.
    public static func format(_ v: Double) -> String {
        guard v.isFinite, abs(v) < 1e9 else { return String(v) }
        let tenths = Int((v * 10).rounded())
        if tenths % 10 == 0 { return String(tenths / 10) }
        return (tenths < 0 ? "-" : "") + String(abs(tenths) / 10) + "." + String(abs(tenths) % 10)
    }
}

/// Decides the tempo of each pass: fixed, or stepped by the speed trainer after clean passes.
/// A value type, so a Judge or a test can drive it pass by pass.
public struct PassPlanner: Equatable, Sendable {
    public let speedTrainer: PracticePlan.SpeedTrainer?
    public private(set) var fixedPercent: Double
    public let repeatMode: PracticePlan.Repeat
    /// Passes begun so far.
    public private(set) var passesStarted = 0
    public private(set) var currentPercent: Double
    private var didSlowPass = false
    private var finished = false

    public init(plan: PracticePlan, lesson: Lesson) throws(PlanError) {
        speedTrainer = plan.speedTrainer
        fixedPercent = plan.speedTrainer == nil ? try plan.tempoFactor(for: lesson) * 100 : 100
        repeatMode = plan.repeatMode
        currentPercent = speedTrainer?.start ?? fixedPercent
    }

    /// Tempo (percent) of the first pass.
    public mutating func firstPass() -> Double {
        passesStarted = 1
        currentPercent = speedTrainer?.start ?? fixedPercent
        didSlowPass = false
        finished = false
        return currentPercent
    }

    /// A tempo chosen live: without a speed trainer it holds for the following passes too;
    /// with one, only the current pass changes.
    public mutating func override(percent: Double) {
        if speedTrainer == nil { fixedPercent = percent }
        currentPercent = percent
    }

    /// After a pass: the tempo of the next pass, or nil when practice is over.
    public mutating func next(afterCleanPass clean: Bool) -> Double? {
        guard !finished else { return nil }
        if didSlowPass { finished = true; return nil }
        var percent = currentPercent
        if let st = speedTrainer {
            let wasAtTarget = percent == st.target
            percent = st.stepped(from: percent, clean: clean)
            switch repeatMode {
            case .times(let n):
                if passesStarted >= n { finished = true; return nil }
                if st.finalSlowPass, passesStarted == n - 1 {
                    didSlowPass = true
                    percent = st.start
                }
            case .forever:
                if st.finalSlowPass, clean, wasAtTarget {
                    didSlowPass = true
                    percent = st.start
                }
            }
        } else if case .times(let n) = repeatMode, passesStarted >= n {
            finished = true
            return nil
        }
        passesStarted += 1
        currentPercent = percent
        return percent
    }
}
