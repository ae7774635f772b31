import MIDIFile

/// The keys the learner's keyboard has (`--keys 61`, `--range C2-C7`): a lesson note of the
/// practised hand outside them is played by Etude like the other hand and never expected, so a
/// 61-key keyboard can pass a piece written for 88.
public struct KeyboardRange: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var low: Int
    public var high: Int
    /// The key count when given as `--keys N` (its usual compass), nil for `--range`.
    public var size: Int?

    /// The usual compass of each keyboard size: 88 A0–C8, 76 E1–G7, 73 E1–E7, 61 C2–C7,
    /// 49 C2–C6, 37 C3–C6, 25 C3–C5.
    public static let sizes: [(keys: Int, range: ClosedRange<Int>)] = [
        (88, 21...108), (76, 28...103), (73, 28...100), (61, 36...96), (49, 36...84), (37, 48...84), (25, 48...72),
    ]

    /// The fewest keys a range may have: an octave and one.
    public static let minimumKeys = 12

    public init(low: Int, high: Int, size: Int? = nil) {
        self.low = low
        self.high = high
        self.size = size
    }

    public var range: ClosedRange<Int> { low...max(low, high) }
    public var count: Int { high - low + 1 }
    public func contains(_ pitch: Int) -> Bool { pitch >= low && pitch <= high }

    /// `61 keys (C2–C7)` or `C2–C7`.
    public var description: String {
        let span = "\(PitchName.name(low))–\(PitchName.name(high))"
        return size.map { "\($0) keys (\(span))" } ?? span
    }

    /// The text it is stored and typed as: `61` or `C2-C7`.
    public var text: String { size.map(String.init) ?? "\(PitchName.name(low))-\(PitchName.name(high))" }

    /// `--keys N`: one of the usual sizes.
    public static func keys(_ text: String) throws(PlanError) -> KeyboardRange {
        let all = sizes.map { String($0.keys) }.joined(separator: ", ")
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), let s = sizes.first(where: { $0.keys == n }) else {
            throw PlanError(.keys, text, "give a keyboard size: \(all); or --range LOW-HIGH, e.g. --range C2-C7")
        }
        return KeyboardRange(low: s.range.lowerBound, high: s.range.upperBound, size: n)
    }

    /// `--range LOW-HIGH`: note names (`C2-C7`, `F#1-G7`, middle C = C4) or MIDI numbers (`36-96`).
    public static func range(_ text: String) throws(PlanError) -> KeyboardRange {
        let t = text.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "–", with: "-")
        // The separator is a dash after a digit ("C-1-G9" has a minus sign first).
        let chars = Array(t)
        var split: Int?
        for i in chars.indices.dropFirst() where chars[i] == "-" && chars[i - 1].isNumber {
            split = i
            break
        }
        guard let split, let low = PitchName.parse(String(chars[..<split])), let high = PitchName.parse(String(chars[(split + 1)...])) else {
            throw PlanError(.range, text, "give the lowest and highest key, e.g. C2-C7 or 36-96")
        }
        guard high - low + 1 >= minimumKeys else {
            throw PlanError(.range, text, "a keyboard has at least \(minimumKeys) keys, lowest first", suggestion: "C3-C5")
        }
        return KeyboardRange(low: low, high: high)
    }

    /// Reads what was stored by `text` (nil for anything that no longer reads).
    public init?(text: String) {
        if let r = try? (Int(text) != nil ? KeyboardRange.keys(text) : KeyboardRange.range(text)) { self = r } else { return nil }
    }
}

extension PracticePlan {
    /// Whether the learner is to play this note: a note of a practised hand on their keys.
    /// The one test the Coach, the wait gate, play and memory modes and `etude judge` share.
    public func expects(_ note: LessonNote) -> Bool {
        hands.practises(note.part) && (keyboard?.contains(Int(note.pitch)) ?? true)
    }

    /// A keyboard that leaves none of the practised notes of the bars to play is refused.
    func checkKeyboard(for lesson: Lesson) throws(PlanError) {
        guard let keyboard else { return }
        let ticks = tickRange(in: lesson)
        var practised = 0
        for n in lesson.notes where n.startTick >= ticks.lowerBound && n.startTick < ticks.upperBound && hands.practises(n.part) {
            if keyboard.contains(Int(n.pitch)) { return }
            practised += 1
        }
        guard practised > 0 else { return }
        let setting: PlanError.Setting = keyboard.size == nil ? .range : .keys
        throw PlanError(setting, keyboard.text, "none of the \(practised) notes to play is on those keys (\(keyboard)); give your keyboard's real range, e.g. --keys 88")
    }
}

/// How the practised hands sit on the learner's keyboard: the notes Etude plays for them, and
/// for a hand mostly off the keys, the octaves that would put most of it on them. A pianist
/// leaves a few stray notes (Für Elise's one low A1 on 61 keys) to someone else rather than
/// play the whole hand in another octave, so a hand is only offered a move when most of its
/// notes are off the keys.
public struct KeyboardFit: Equatable, Sendable {
    public struct HandFit: Equatable, Sendable {
        public var hand: Hand
        /// Notes of the hand (in the bars practised) off the keyboard: Etude plays them.
        public var outside: Int
        public var below: Int
        /// Every note of the hand in the bars practised.
        public var total: Int = 0
        /// Octaves (±1, ±2 …) moving the hand so that most of it is on the keys; nil when
        /// most of the hand is on the keys as written (the few others are left to Etude) or
        /// no octave puts most of it on them.
        public var octaves: Int?
        /// Notes still off the keys after the move by `octaves` (Etude plays them).
        public var offAfterMove: Int = 0
    }

    public var keyboard: KeyboardRange
    public var hands: [HandFit]

    /// The fit of `plan`'s hands on `plan.keyboard` in its bars (nil without a keyboard).
    public static func check(_ lesson: Lesson, plan: PracticePlan) -> KeyboardFit? {
        guard let keyboard = plan.keyboard else { return nil }
        let ticks = plan.tickRange(in: lesson)
        var out: [HandFit] = []
        for hand in [Hand.right, .left] where plan.hands.practises(.hand(hand)) {
            let pitches = lesson.notes.lazy.filter { $0.part == .hand(hand) && $0.startTick >= ticks.lowerBound && $0.startTick < ticks.upperBound }.map { Int($0.pitch) }
            guard !pitches.isEmpty else { continue }
            let outside = pitches.filter { !keyboard.contains($0) }.count
            guard outside > 0 else { continue }
            let move = octaveMove(pitches: Array(pitches), keyboard: keyboard)
            out.append(HandFit(hand: hand, outside: outside, below: pitches.filter { $0 < keyboard.low }.count, total: pitches.count,
                               octaves: move?.octaves, offAfterMove: move?.off ?? 0))
        }
        return KeyboardFit(keyboard: keyboard, hands: out)
    }

    /// The octave move for a hand whose notes are `pitches`: only when most of them (more than
    /// half) are off the keys, the move that puts the most on them (the nearest of equals),
    /// provided it puts most on them; nil otherwise.
    static func octaveMove(pitches: [Int], keyboard: KeyboardRange) -> (octaves: Int, off: Int)? {
        let off = pitches.filter { !keyboard.contains($0) }.count
        guard off * 2 > pitches.count else { return nil }
        var best: (octaves: Int, off: Int)?
        for k in [1, -1, 2, -2, 3, -3, 4, -4] {
            let left = pitches.filter { !keyboard.contains($0 + 12 * k) }.count
            if left < (best?.off ?? off) { best = (k, left) }
        }
        guard let best, best.off * 2 < pitches.count else { return nil }
        return best
    }

    /// One line per hand off the keyboard, e.g. `your 61 keys (C2–C7): Etude plays the 3 right-hand
    /// notes above C7; the whole right hand fits an octave down: add --fit octave`.
    public func notices(fitOption: String) -> [String] {
        hands.map { h in
            let above = h.outside - h.below
            var side: [String] = []
            if above > 0 { side.append("\(above) above \(PitchName.name(keyboard.high))") }
            if h.below > 0 { side.append("\(h.below) below \(PitchName.name(keyboard.low))") }
            var line = "your \(keyboard): Etude plays the \(h.hand.rawValue)-hand notes off it (\(side.joined(separator: ", ")))"
            if let k = h.octaves {
                let rest = h.offAfterMove == 0 ? "the whole \(h.hand.rawValue) hand fits" : "the \(h.hand.rawValue) hand fits but for \(h.offAfterMove) \(h.offAfterMove == 1 ? "note" : "notes")"
                line += "; \(rest) \(Self.octaves(k)): add \(fitOption)"
            }
            return line
        }
    }

    /// `an octave down`, `2 octaves up`.
    public static func octaves(_ k: Int) -> String {
        "\(abs(k) == 1 ? "an octave" : "\(abs(k)) octaves") \(k > 0 ? "up" : "down")"
    }

    /// The lesson with each hand mostly off the keys moved by its octaves (`--fit octave`), and
    /// one line per hand moved; a hand mostly on the keys stays as written.
    public func fitted(_ lesson: Lesson) -> (lesson: Lesson, notices: [String]) {
        var out = lesson
        var lines: [String] = []
        for h in hands {
            guard let k = h.octaves else { continue }
            out = out.transposed(Transposition(semitones: 12 * k, steps: 7 * k, from: nil), hand: h.hand)
            lines.append("the \(h.hand.rawValue) hand moved \(Self.octaves(k)) to fit your \(keyboard)")
        }
        return (out, lines)
    }
}

/// `--keys N` as typed: one of the usual sizes, checked where it is typed.
public struct KeyboardKeysArgument: Equatable, Sendable, CustomStringConvertible {
    /// The sizes help and completions offer.
    public static var names: [String] { KeyboardRange.sizes.map { String($0.keys) } }
    public let keyboard: KeyboardRange

    public init(parsing text: String) throws(PlanError) { keyboard = try KeyboardRange.keys(text) }

    public var description: String { keyboard.text }
}

/// `--range LOW-HIGH` as typed, checked where it is typed.
public struct KeyboardRangeArgument: Equatable, Sendable, CustomStringConvertible {
    public let keyboard: KeyboardRange

    public init(parsing text: String) throws(PlanError) { keyboard = try KeyboardRange.range(text) }

    public var description: String { keyboard.text }
}

/// `--fit octave|none`: whether a hand that fits the learner's keys by octaves is moved onto them.
public enum OctaveFit: String, Equatable, Sendable, CaseIterable, CustomStringConvertible {
    case octave, none

    public static var names: [String] { allCases.map(\.rawValue) }

    public init(parsing text: String) throws(PlanError) {
        switch text.lowercased() {
        case "octave", "octaves": self = .octave
        case "none", "off": self = .none
        default: throw PlanError(.fit, text, "use octave (move a hand that fits your keys by octaves) or none")
        }
    }

    public var description: String { rawValue }
}

extension PracticePlan {
    /// Why Etude cannot follow the learner's tempo with this plan (`--follow`), or nil. A partner
    /// follows where the learner plays in real time (play and memory mode) and needs a part of
    /// its own to play with them: the other hand or an accompaniment, or the metronome.
    public func followProblem(mode: PracticeMode, in lesson: Lesson) -> PlanError? {
        guard mode.follows else {
            return PlanError("--follow: Etude follows your tempo in play and memory mode; add --mode play (or memory)")
        }
        let ticks = tickRange(in: lesson)
        let othersPlay = otherHand != .mute && lesson.notes.contains { n in
            n.startTick >= ticks.lowerBound && n.startTick < ticks.upperBound && !expects(n)
        }
        guard othersPlay || metronome.enabled else {
            return PlanError("--follow: Etude has no part to play with you here (you play every note); practise one hand (--hand right) or add --metronome")
        }
        return nil
    }
}
