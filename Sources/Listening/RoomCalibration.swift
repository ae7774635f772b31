import Foundation

/// `etude calibrate --input audio`, one piano in one room, from the samples alone: a few seconds
/// of the room with nobody playing (the noise floor), then a few keys across the range struck one
/// at a time (each key's partial profile for `PartialTemplates`, how loud the piano is played, and
/// how long the listener takes to decide a note). Pure: a test pushes rendered audio, the command
/// pushes what the microphone reads, and both get the same `ListeningProfile`.
public final class RoomCalibration {
    /// Where the set-up is.
    public enum Step: Equatable, Sendable {
        case quiet
        case key(Int)
        case done
    }

    /// What happened in the samples just pushed, for the caller to say.
    public enum Event: Equatable, Sendable {
        /// The room's noise measured (RMS); the keys come next.
        case roomMeasured(noiseFloor: Double)
        /// The key asked for was heard and measured (its RMS just after the onset).
        case measured(key: Int, level: Double)
        /// Another key sounded instead of the one asked for.
        case otherKey(expected: Int, heard: Int)
        /// The key asked for clipped the input: not measured, to be played again.
        case clipped(key: Int)
        /// The room was too loud with nobody playing to judge a piano in it.
        case roomTooLoud(noiseFloor: Double)
        /// Every key measured: the profile to store.
        case finished(ListeningProfile)
    }

    /// The keys struck: C2 to C6, one per octave across the range a learner plays in.
    public static let keys = [36, 48, 60, 72, 84]
    /// Seconds of the room measured (after `settleSeconds`).
    public static let quietSeconds = 3.0
    /// The first moments of the stream are not the room (the stream starting, a key click).
    static let settleSeconds = 0.3
    /// A room whose quiet is louder than this (−26 dBFS) is too loud to calibrate in.
    public static let loudestRoom = 0.05

    public let sampleRate: Int
    public let keys: [Int]
    public private(set) var step: Step = .quiet
    /// Seconds between the microphone and the stream (the server's buffer), added to each
    /// decision's latency.
    public var captureLatency = 0.0

    private let listener: NoteListener
    private var samplesSeen = 0
    private var quietRMS: [Double] = []
    private var pendingQuiet: [Float] = []
    /// The quiet seconds themselves, for the room's spectrum.
    private var quietSamples: [Float] = []
    private var roomSpectrum: RoomSpectrum?
    private var noiseFloor = 0.0
    private var onsets: [(time: Double, partials: [Double], level: Double, clipped: Bool)] = []
    private var measured: [PartialTemplates.Key] = []
    private var levels: [Double] = []
    private var latencies: [Double] = []

    public init(sampleRate: Int, keys: [Int] = RoomCalibration.keys) {
        self.sampleRate = max(8_000, sampleRate)
        self.keys = keys.isEmpty ? Self.keys : keys
        listener = NoteListener(sampleRate: self.sampleRate)
        listener.expectedAt = { [unowned self] _ in
            if case .key(let k) = self.step { return [k] }
            return []
        }
        listener.onOnset = { [unowned self] time, estimator in
            guard case .key(let k) = self.step else { return }
            let start = Int(time * Double(self.sampleRate))
            let level = self.listener.rms(from: start, seconds: 0.1)
            let clipped = self.listener.signal == .clipped
            self.onsets.append((time, estimator.partials(k), level, clipped))
            if self.onsets.count > 16 { self.onsets.removeFirst() }
        }
    }

    /// Pushes mono samples (−1…1); returns what they completed, in order.
    public func push(_ samples: [Float]) -> [Event] {
        var events: [Event] = []
        let before = samplesSeen
        samplesSeen += samples.count
        if step == .quiet {
            let settle = Int(Self.settleSeconds * Double(sampleRate))
            let skip = max(0, min(samples.count, settle - before))
            pendingQuiet += samples[skip...]
            quietSamples += samples[skip...]
            let hop = sampleRate / 100
            while pendingQuiet.count >= hop {
                var sum = 0.0
                for s in pendingQuiet[0..<hop] { sum += Double(s) * Double(s) }
                quietRMS.append((sum / Double(hop)).squareRoot())
                pendingQuiet.removeFirst(hop)
            }
            if Double(quietRMS.count) / 100 >= Self.quietSeconds {
                let sorted = quietRMS.sorted()
                // The median: a cough or a chair is not the room. Digital silence is a room too.
                noiseFloor = max(sorted[sorted.count / 2], 1e-6)
                if noiseFloor > Self.loudestRoom {
                    events.append(.roomTooLoud(noiseFloor: noiseFloor))
                    quietRMS = []
                    quietSamples = []
                    return events
                }
                // Bin by bin too, for live listening to take off (`NoteListener.hearRoom(_:)`).
                roomSpectrum = RoomSpectrum.measure(quietSamples, sampleRate: sampleRate)
                quietSamples = []
                events.append(.roomMeasured(noiseFloor: noiseFloor))
                step = .key(keys[0])
            }
        }
        // The listener hears the quiet too, so its onset detector knows the room before a key.
        let heard = listener.push(samples)
        let now = listener.seconds
        events += take(heard, decidedAt: now)
        return events
    }

    private func take(_ heard: [HeardNote], decidedAt now: Double) -> [Event] {
        guard case .key = step, !heard.isEmpty else { return [] }
        var events: [Event] = []
        // One onset's notes together: the key asked for, or the strongest other.
        var byOnset: [Double: [HeardNote]] = [:]
        for n in heard { byOnset[n.time, default: []].append(n) }
        for time in byOnset.keys.sorted() {
            guard case .key(let current) = step else { break }
            let notes = byOnset[time] ?? []
            guard notes.contains(where: { $0.pitch == current }),
                  let onset = onsets.min(by: { abs($0.time - time) < abs($1.time - time) }), abs(onset.time - time) < 0.001 else {
                if let other = notes.max(by: { $0.strength < $1.strength }) { events.append(.otherKey(expected: current, heard: other.pitch)) }
                continue
            }
            if onset.clipped {
                events.append(.clipped(key: current))
                continue
            }
            guard onset.partials.contains(where: { $0 > 0 }) else { continue }
            measured.append(PartialTemplates.Key(pitch: current, partials: PartialTemplates.normalise(onset.partials)))
            levels.append(onset.level)
            latencies.append(now - time + captureLatency)
            events.append(.measured(key: current, level: onset.level))
            if measured.count < keys.count {
                step = .key(keys[measured.count])
            } else {
                step = .done
                events.append(.finished(profile))
            }
        }
        return events
    }

    /// What was measured so far as a profile (complete once `step` is `.done`).
    public var profile: ListeningProfile {
        func median(_ v: [Double]) -> Double? { v.isEmpty ? nil : v.sorted()[v.count / 2] }
        return ListeningProfile(noiseFloor: noiseFloor, playedLevel: median(levels) ?? ListeningProfile().playedLevel,
                                latency: median(latencies) ?? ListeningProfile().latency,
                                templates: measured.isEmpty ? nil : PartialTemplates(keys: measured), roomSpectrum: roomSpectrum)
    }

    /// Decibels relative to full scale, for what the learner reads ("−62 dBFS").
    public static func dBFS(_ rms: Double) -> Int { Int((20 * log10(max(rms, 1e-7))).rounded()) }
}

/// The room's noise bin by bin in the listener's pitch window, as `etude calibrate --input audio`
/// measured it in its quiet seconds: what live listening takes off every spectrum before keys
/// are looked for (`NoteListener.hearRoom(_:)`), as `etude judge` does with a recording's own
/// first quiet second. The level alone (`ListeningProfile.noiseFloor`) says nothing of where the
/// noise lies: a room's pink noise is loudest in the bass, where it was heard as a bass key.
public struct RoomSpectrum: Equatable, Sendable, Codable {
    /// The rate it was measured at: bin k lies at k × sampleRate / `windowSize` Hz.
    public var sampleRate: Int
    /// The mean magnitude of each bin of a Hann window of `windowSize` samples (the first half).
    public var magnitudes: [Double]

    /// The listener's pitch window.
    public static let windowSize = 8192
    /// Rates a stream runs at.
    public static let rates = 8_000...384_000

    /// Nil for figures no measurement gives (a damaged row): no bins, more than a window's,
    /// negative or not finite.
    public init?(sampleRate: Int, magnitudes: [Double]) {
        guard Self.rates.contains(sampleRate), (1...(Self.windowSize / 2)).contains(magnitudes.count),
              magnitudes.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        self.sampleRate = sampleRate
        self.magnitudes = magnitudes
    }

    /// Measures it from samples where nobody played: per bin, the median magnitude over windows
    /// a quarter apart, times 1.0645 (a noise bin's magnitude is Rayleigh, whose mean is 1.0645
    /// times its median) — the median, so that a cough or a chair in the quiet seconds is not
    /// the room, as the median RMS is not for its level. Nil under one window of samples.
    public static func measure(_ quiet: [Float], sampleRate: Int) -> RoomSpectrum? {
        let fft = FFT(size: windowSize)
        guard quiet.count >= windowSize else { return nil }
        var frames: [[Double]] = []
        var start = 0
        while start + windowSize <= quiet.count {
            frames.append(Array(fft.magnitudes(quiet, start: start).prefix(windowSize / 2)))
            start += windowSize / 4
        }
        let medians = (0..<(windowSize / 2)).map { k -> Double in
            let column = frames.map { $0[k] }.sorted()
            return column[column.count / 2] * 1.0645
        }
        return RoomSpectrum(sampleRate: sampleRate, magnitudes: medians)
    }

    /// Its magnitudes at the bins of a window of `windowSize` samples at `rate` (the frequency
    /// interpolated between the two nearest bins; above what was measured, its top bin): a JACK
    /// server may run at another rate than the one the room was measured at.
    public func magnitudes(at rate: Int, bins: Int) -> [Double] {
        guard rate != sampleRate || bins != magnitudes.count else { return magnitudes }
        let last = magnitudes.count - 1
        return (0..<bins).map { k in
            let x = Double(k) * Double(rate) / Double(sampleRate)
            let i = min(last, Int(x))
            let j = min(last, i + 1)
            let f = min(1, x - Double(i))
            return magnitudes[i] * (1 - f) + magnitudes[j] * f
        }
    }
}
