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

    /// Measures `channels` (each in −1…1, at `sampleRate`).
    public init(channels: [[Float]], sampleRate: Int) {
        self.sampleRate = sampleRate
        var runs = 0
        for c in channels {
            var run = 0
            for s in c {
                if abs(s) >= 0.98 {
                    run += 1
                    if run == 3 { runs += 1 }
                } else {
                    run = 0
                }
            }
        }
        clippedRuns = runs
        // 10 ms blocks of the channels' mean.
        let block = max(1, sampleRate / 100)
        let frames = channels.map(\.count).min() ?? 0
        var levels: [Double] = []
        levels.reserveCapacity(frames / block + 1)
        var start = 0
        while start + block <= frames {
            var sum = 0.0
            for i in start..<(start + block) {
                var v = 0.0
                for c in channels { v += Double(c[i]) }
                v /= Double(max(1, channels.count))
                sum += v * v
            }
            levels.append((sum / Double(block)).squareRoot())
            start += block
        }
        loudest = levels.max() ?? 0
        // The first second (100 blocks) whose loudest block stays within 6 dB of its quietest and
        // under a tenth of the loudest: nobody played then. Digital silence is no room.
        var quiet: Double?
        if levels.count >= 100 {
            var i = 0
            while i + 100 <= levels.count {
                let second = levels[i..<(i + 100)]
                let lo = second.min() ?? 0, hi = second.max() ?? 0
                if lo > 1e-7, hi <= lo * 2, hi < loudest * 0.1 {
                    quiet = (second.reduce(0) { $0 + $1 * $1 } / 100).squareRoot()
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
}
