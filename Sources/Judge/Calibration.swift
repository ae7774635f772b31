import Foundation
import MIDIFile

/// The learner's timing offset, measured once: what they hear arrives after the audio buffer,
/// the sound server and the speakers, and what they play arrives after the keyboard's own delay.
/// A steady click sounds; the learner plays a key on each beat; each tap is paired with the
/// nearest click within half a beat, and the median of (tap − click) over the counted beats
/// (the first few are a count-in) is the offset judging subtracts from then on.
///
/// Plain values fed with clock times, so the rule is tested without a clock or a device.
public struct Calibration: Equatable, Sendable {
    /// Beats clicked when none are asked for.
    public static let defaultBeats = 16
    /// Beats at the start that are a count-in: taps on them are not counted.
    public static let ignoredBeats = 4
    /// The click's tempo: slow enough to land on, fast enough to stay steady.
    public static let defaultBPM = 100.0
    /// Fewest and most beats `--beats` may ask for.
    public static let beatRange = 8...64
    /// A spread (ms) above which the taps do not say where the learner's beat is: refused.
    public static let trustedSpreadMs = 50.0
    /// A pass whose hits are this far off on average (ms), consistently, suggests calibrating.
    public static let hintMeanMs = 40.0
    /// Fewest hits a pass needs before its mean says anything about the learner's offset.
    public static let hintMinimumHits = 4
    /// The largest offset (ms) a calibration or `--offset` may set: beyond it no click was followed.
    public static let offsetLimitMs = 500.0
    /// Most keys a click may have on average (a chord at most): more is no learner tapping the
    /// beat but a sequence playing or bytes that are not MIDI, and is refused.
    public static let maxKeysPerClick = 4
    /// Most messages other than keys (pedals, wheels, program changes…; aftertouch not
    /// counted) a click may have on average: a stream of them is not a keyboard played by hand.
    public static let maxOtherMessagesPerClick = 8

    public let beats: Int
    public let beatSeconds: Double
    /// When each click sounded (clock seconds), in order.
    public private(set) var clicks: [Double] = []
    /// When each key went down (clock seconds), in order of arrival.
    public private(set) var taps: [Double] = []
    /// Messages other than keys the input sent (see `maxOtherMessagesPerClick`).
    public private(set) var otherMessages = 0

    /// - Parameters:
    ///   - beats: clicks in all, the count-in included (clamped to at least one more than it).
    ///   - bpm: the click's tempo.
    public init(beats: Int = Calibration.defaultBeats, bpm: Double = Calibration.defaultBPM) {
        self.beats = max(Self.ignoredBeats + 1, beats)
        beatSeconds = 60 / (bpm.isFinite && bpm > 0 ? bpm : Self.defaultBPM)
    }

    /// Beats whose taps count.
    public var countedBeats: Int { beats - Self.ignoredBeats }

    /// A click sounded at `time`.
    public mutating func clicked(at time: Double) {
        guard clicks.count < beats else { return }
        clicks.append(time)
    }

    /// A key went down at `time`.
    public mutating func tapped(at time: Double) {
        taps.append(time)
    }

    /// The input sent a message that is not a key (`isCounted` false for aftertouch, which
    /// a held key on some keyboards streams).
    public mutating func otherMessage(isCounted: Bool = true) {
        if isCounted { otherMessages += 1 }
    }

    /// True once every click sounded and half a beat passed for the last tap (at `now`).
    public func isComplete(now: Double) -> Bool {
        guard clicks.count == beats, let last = clicks.last else { return false }
        return now >= last + beatSeconds / 2
    }

    /// Each tap paired with the nearest click within half a beat: (click index, tap − click).
    /// A click with several taps keeps the nearest; taps near no click are dropped.
    public func pairs() -> [(click: Int, errorSeconds: Double)] {
        guard !clicks.isEmpty else { return [] }
        var best: [Int: Double] = [:]
        let half = beatSeconds / 2
        for tap in taps {
            var nearest = 0
            for (i, c) in clicks.enumerated() where abs(tap - c) < abs(tap - clicks[nearest]) { nearest = i }
            let error = tap - clicks[nearest]
            guard abs(error) <= half + 1e-9 else { continue }
            if let kept = best[nearest], abs(kept) <= abs(error) { continue }
            best[nearest] = error
        }
        return best.sorted { $0.key < $1.key }.map { (click: $0.key, errorSeconds: $0.value) }
    }

    /// The offsets (ms) of the counted beats that have a tap.
    public var countedErrorsMs: [Double] {
        pairs().filter { $0.click >= Self.ignoredBeats }.map { $0.errorSeconds * 1000 }
    }

    /// What the taps say: the median offset, its spread, and whether it can be trusted.
    public func result() -> CalibrationResult {
        CalibrationResult(errorsMs: countedErrorsMs, countedBeats: countedBeats, keys: taps.count, otherMessages: otherMessages,
                          clicks: clicks.count)
    }

    /// The practice hint's rule: a pass whose hits are consistently early or late by more than
    /// `hintMeanMs` (their spread small beside the mean, and within what a calibration trusts).
    public static func suggestsCalibrating(_ figures: ScoreFigures) -> Bool {
        guard let (mean, sd) = figures.timing, figures.hit >= hintMinimumHits else { return false }
        return abs(mean) > hintMeanMs && sd <= trustedSpreadMs && sd < abs(mean)
    }
}

/// The outcome of a calibration.
public struct CalibrationResult: Equatable, Sendable {
    public enum Verdict: Equatable, Sendable {
        /// The offset can be stored.
        case trusted
        /// The taps wander too much to say where the learner's beat is.
        case tooSpread
        /// Too few counted beats had a tap near them.
        case tooFewTaps
        /// More keys or other messages than a hand plays on a click (`Calibration.maxKeysPerClick`):
        /// a sequence or a stream that is not MIDI, whatever its figures.
        case notAHand
    }

    /// Median of (tap − click) in whole milliseconds (positive = the learner's key arrives late);
    /// nil without a counted tap.
    public var offsetMs: Double?
    /// How far the taps wander around the median: 1.4826 × the median absolute deviation, a
    /// standard deviation one stray tap cannot inflate (whole ms).
    public var spreadMs: Double
    /// Counted beats that had a tap.
    public var taps: Int
    /// Beats counted (after the count-in).
    public var countedBeats: Int
    /// Every key played, every other message, and the clicks they came with (0 clicks: not known).
    public var keys = 0
    public var otherMessages = 0
    public var clicks = 0

    public init(errorsMs: [Double], countedBeats: Int, keys: Int = 0, otherMessages: Int = 0, clicks: Int = 0) {
        self.countedBeats = countedBeats
        self.keys = keys
        self.otherMessages = otherMessages
        self.clicks = clicks
        taps = errorsMs.count
        guard let median = Self.median(errorsMs) else {
            offsetMs = nil
            spreadMs = 0
            return
        }
        offsetMs = median.rounded()
        spreadMs = (1.4826 * (Self.median(errorsMs.map { abs($0 - median) }) ?? 0)).rounded()
    }

    /// Fewest counted taps for a result: half the counted beats, and at least three.
    public var minimumTaps: Int { max(3, (countedBeats + 1) / 2) }

    public var verdict: Verdict {
        if clicks > 0, keys > Calibration.maxKeysPerClick * clicks || otherMessages > Calibration.maxOtherMessagesPerClick * clicks {
            return .notAHand
        }
        guard offsetMs != nil, taps >= minimumTaps else { return .tooFewTaps }
        return spreadMs > Calibration.trustedSpreadMs ? .tooSpread : .trusted
    }

    /// `offset 31 ms, spread 4 ms` (nil without a counted tap).
    public var line: String? {
        offsetMs.map { "offset \(Int(saturating: $0)) ms, spread \(Int(saturating: spreadMs)) ms" }
    }

    /// Why a result that is not trusted was refused (nil when it is trusted).
    public var problem: String? {
        switch verdict {
        case .trusted:
            return nil
        case .tooSpread:
            return "the taps spread \(Int(saturating: spreadMs)) ms around the beat (more than \(Int(Calibration.trustedSpreadMs)) ms): too uneven to trust"
        case .tooFewTaps:
            return "only \(taps) of the \(countedBeats) counted beats had a key played near them"
        case .notAHand:
            let what = keys > Calibration.maxKeysPerClick * clicks ? "\(keys) keys" : "\(otherMessages) messages that are not keys"
            return "the input sent \(what) for \(clicks) clicks: no hand plays so much (a sequence playing, or not MIDI at all)"
        }
    }

    /// What to do after a refusal.
    public static let advice = "try again, playing one key exactly with each click"

    /// The refusal as one line: the problem, that nothing was saved, what to do.
    public var refusal: String? {
        problem.map { "\($0); nothing was saved: \(Self.advice)" }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }
}
