import Foundation

/// What a whole recording says about itself before it is judged (`etude judge LESSON REC.wav`):
/// clipped, too quiet, too noisy, or sampled below 22 kHz. Each makes notes harder to hear, so the
/// judge says so in one line before its verdicts (and judges anyway) rather than blame the learner.
public struct RecordingCheck: Equatable, Sendable {
    public var sampleRate: Int
    /// Flat tops: runs of three or more samples in a row at full scale (one channel).
    public var clippedRuns: Int
    /// RMS of the loudest 10 ms (full scale = 1).
    public var loudest: Double
    /// The room's noise: RMS of the first quiet second, else of the quietest 10 ms that is not
    /// digital silence (0 when the whole recording is digital silence).
    public var noise: Double
    /// RMS of the first second that held no note (nil when none did): the room measured.
    public var quietSecond: Double?
    /// Where that quiet second starts, in seconds from the recording's start.
    public var quietStart: Double?
    /// How long the recording measured lasts.
    public var seconds: Double
    /// The seconds its file's header promised when it holds fewer (cut off part way: a full disk,
    /// a crash, a copy interrupted); set by whoever read the header.
    public var promisedSeconds: Double?

    /// Below this rate a piano's upper partials are gone (and the listener's windows are long).
    public static let lowestRate = 22_000
    /// Below this loudest level (−54 dBFS) a note barely stands out of a converter's own noise.
    public static let quietLevel = 0.002
    /// Noise within 12 dB of the loudest notes buries the soft ones.
    public static let noisyRatio = 0.25

    public var isClipped: Bool { clippedRuns > 0 }
    public var isTooQuiet: Bool { loudest < Self.quietLevel }
    public var isNoisy: Bool { noise > loudest * Self.noisyRatio && noise > 1e-4 }
    public var isLowRate: Bool { sampleRate < Self.lowestRate }
    public var isCutShort: Bool { promisedSeconds.map { $0 > seconds + 0.01 } ?? false }

    /// Measures `channels` (each in −1…1, at `sampleRate`).
    public init(channels: [[Float]], sampleRate: Int) {
        var meter = Meter(sampleRate: sampleRate)
        meter.add(channels)
        self = meter.check
    }

    /// The same measures taken a block at a time (a long recording is never held whole): feed
    /// every block of channels in order with `add`, then read `check`.
    public struct Meter: Sendable {
        let sampleRate: Int
        let block: Int
        var runs: [Int] = []
        var clippedRuns = 0
        /// Squared sum of the 10 ms block being filled, and how many frames it holds.
        var sum = 0.0
        var filled = 0
        /// Every 10 ms block's RMS (a recording of an hour: 360 000 doubles).
        var levels: [Double] = []

        public init(sampleRate: Int) {
            self.sampleRate = sampleRate
            block = max(1, sampleRate / 100)
        }

        /// The next frames of every channel (equal lengths).
        public mutating func add(_ channels: [[Float]]) {
            if runs.count < channels.count { runs += [Int](repeating: 0, count: channels.count - runs.count) }
            for (c, samples) in channels.enumerated() {
                var run = runs[c]
                for s in samples {
                    if abs(s) >= 0.98 {
                        run += 1
                        if run == 3 { clippedRuns += 1 }
                    } else {
                        run = 0
                    }
                }
                runs[c] = run
            }
            let frames = channels.map(\.count).min() ?? 0
            let scale = 1 / Double(max(1, channels.count))
            for i in 0..<frames {
                var v = 0.0
                for c in channels { v += Double(c[i]) }
                v *= scale
                sum += v * v
                filled += 1
                if filled == block {
                    levels.append((sum / Double(block)).squareRoot())
                    sum = 0
                    filled = 0
                }
            }
        }

        /// What the frames so far say.
        public var check: RecordingCheck { RecordingCheck(sampleRate: sampleRate, clippedRuns: clippedRuns, levels: levels) }
    }

    init(sampleRate: Int, clippedRuns: Int, levels: [Double]) {
        self.sampleRate = sampleRate
        self.clippedRuns = clippedRuns
        loudest = levels.max() ?? 0
        seconds = Double(levels.count) / 100
        // The first second (100 blocks) whose loudest 50 ms stays within 6 dB of its quietest and
        // under a tenth of the loudest: nobody played then (a room's pink noise swings more than
        // that from one 10 ms to the next; over 50 ms it holds). Digital silence is no room.
        var quiet: Double?
        // In a loud room (its noise within 20 dB of the loudest note) no second is that far under
        // the music; then the first steady second quieter than most of the recording is the room
        // (the lead-in before the first note): unmeasured, the step from the judge's silence into
        // that noise was heard as A0 and the lesson aligned to it, a second early (issue 41's
        // noise sweep: Ode to Joy's left hand lost notes from noise at −36 dBFS, the music at −32).
        let sounding = levels.filter { $0 > 1e-7 }.sorted()
        let typical = sounding.isEmpty ? 0 : sounding[sounding.count / 2]
        for underLoudest in [true, false] where quiet == nil && levels.count >= 100 {
            var i = 0
            while i + 100 <= levels.count {
                let second = levels[i..<(i + 100)]
                let spans = stride(from: i, to: i + 100, by: 5).map { j in (levels[j..<(j + 5)].reduce(0) { $0 + $1 * $1 } / 5).squareRoot() }
                let lo = spans.min() ?? 0, hi = spans.max() ?? 0
                let rms = (second.reduce(0) { $0 + $1 * $1 } / 100).squareRoot()
                if lo > 1e-7, hi <= lo * 2, underLoudest ? hi < loudest * 0.1 : rms < typical * 0.7 {
                    quiet = rms
                    quietStart = Double(i) / 100
                    break
                }
                i += 10
            }
        }
        quietSecond = quiet
        noise = quiet ?? levels.filter { $0 > 1e-7 }.min() ?? 0
    }

    /// The one line said before the verdicts, naming what is wrong and the fix; nil when the
    /// recording is fit to judge.
    public var line: String? {
        var words: [String] = []
        var fixes: [String] = []
        if isCutShort, let promisedSeconds {
            words.append("cut short (its header promises \(Self.duration(promisedSeconds)), the file holds \(Self.duration(seconds)): what it lost is judged missed)")
            fixes.append("copy or export the whole recording")
        }
        if isClipped {
            words.append("clipped (\(clippedRuns) flat top\(clippedRuns == 1 ? "" : "s"))")
            fixes.append("turn the recording level down")
        }
        if isTooQuiet {
            words.append("too quiet (loudest \(RoomCalibration.dBFS(loudest)) dBFS)")
            fixes.append("record closer to the piano or the level up")
        }
        if isNoisy {
            words.append("too noisy (the room \(Int((20 * log10(max(noise, 1e-9) / max(loudest, 1e-9))).rounded())) dB from the loudest note)")
            fixes.append("record in a quieter room or closer to the piano")
        }
        if isLowRate {
            words.append("sampled at \(sampleRate) Hz (below 22 kHz, the piano's upper partials are lost)")
            fixes.append("record at 44.1 or 48 kHz")
        }
        guard !words.isEmpty else { return nil }
        return "etude: this recording is " + words.joined(separator: ", ") + "; judged anyway, so some notes may be called wrong — "
            + fixes.joined(separator: ", ") + " and record again"
    }

    /// "41.2 s", "3 min 12 s".
    static func duration(_ seconds: Double) -> String {
        seconds < 60 ? String(format: "%.1f s", seconds) : "\(Int(seconds) / 60) min \(Int(seconds) % 60) s"
    }
}
