import Foundation

/// Key → sound from a recording of what a sound server plays (a PulseAudio sink's `.monitor`
/// read by `parecord`), for the PulseAudio test and `make bench`: the recorder's output is
/// timed as it arrives, each frame dated back from the moment its chunk arrived, and each key's
/// latency is the date of the first loud frame after it. The figure includes the recorder's own
/// delivery delay (a few ms at `--latency-msec=2`), so it is an upper bound.
public enum KeyToSound {
    /// `frames` frames had arrived by the monotonic second `seconds`.
    public struct Arrival: Equatable, Sendable {
        public var seconds: Double
        public var frames: Int
        public init(seconds: Double, frames: Int) {
            self.seconds = seconds
            self.frames = frames
        }
    }

    /// The monotonic second frame `index` left the sink: its chunk's arrival, less the frames
    /// after it in that chunk (nil past the last arrival).
    public static func date(of index: Int, rate: Double, arrivals: [Arrival]) -> Double? {
        var lo = 0, hi = arrivals.count
        while lo < hi {  // the first arrival that includes the frame
            let mid = (lo + hi) / 2
            if arrivals[mid].frames > index { hi = mid } else { lo = mid + 1 }
        }
        guard lo < arrivals.count else { return nil }
        return arrivals[lo].seconds - Double(arrivals[lo].frames - 1 - index) / rate
    }

    /// Seconds from each key (a monotonic second) to the first frame above `threshold` dated
    /// after it, within `window`; nil when none came (or the sound before it had not died away).
    public static func latencies(samples: [Float], rate: Double, arrivals: [Arrival], keys: [Double], threshold: Float = 0.02,
                                 window: Double = 0.5) -> [Double?] {
        keys.map { key in
            // The first frame dated at or after the key (dates only grow with the index).
            var lo = 0, hi = samples.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if let d = date(of: mid, rate: rate, arrivals: arrivals), d >= key { hi = mid } else { lo = mid + 1 }
            }
            guard lo < samples.count else { return nil }
            // Silence just before the key: a tail still sounding would be taken for its onset.
            let quiet = samples[max(0, lo - Int(rate * 0.02))..<lo].allSatisfy { abs($0) <= threshold }
            guard quiet else { return nil }
            var i = lo
            while i < samples.count, abs(samples[i]) <= threshold { i += 1 }
            guard i < samples.count, let d = date(of: i, rate: rate, arrivals: arrivals), d - key <= window else { return nil }
            return d - key
        }
    }

    /// Median and maximum in ms of the measured keys (nil when none was).
    public static func summary(_ seconds: [Double?]) -> (median: Double, max: Double)? {
        let s = seconds.compactMap { $0 }.sorted()
        guard !s.isEmpty else { return nil }
        return (s[s.count / 2] * 1000, s[s.count - 1] * 1000)
    }
}
