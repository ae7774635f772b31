import Foundation
import Listening

/// What a recording (or the lesson's render) is compared by, 50 frames a second: a chroma
/// vector (the energy of each of the 12 pitch classes, log-compressed, unit length) for the
/// harmony, and a decaying chroma onset vector (where energy of a pitch class rises: a note
/// begins) for the timing — the pair the Sync Toolbox aligns by (Ewert, Müller and Grosche
/// 2009), since chroma alone blurs where a held chord ends and the next begins.
public struct AlignmentFeatures: Sendable, Equatable {
    /// Frames per second.
    public var rate: Double
    /// 12 values per frame, each frame unit length (silence: all equal).
    public var chroma: [Float]
    /// 12 values per frame: decaying, locally normalised onset strength per pitch class.
    public var onsets: [Float]

    public var count: Int { chroma.count / 12 }

    public init(rate: Double, chroma: [Float], onsets: [Float]) {
        self.rate = rate
        self.chroma = chroma
        self.onsets = onsets
    }

    /// The sample rate features are taken at: a recording is resampled to it first.
    public static let analysisRate = 11_025
    /// Feature frames per second.
    public static let frameRate = 50.0
    static let fftSize = 2048

    /// The frames `range` (clamped), as a new sequence: a bar's stretch of a render.
    public func slice(_ range: Range<Int>) -> AlignmentFeatures {
        let lo = max(0, min(count, range.lowerBound)), hi = max(lo, min(count, range.upperBound))
        return AlignmentFeatures(rate: rate, chroma: Array(chroma[lo * 12..<hi * 12]), onsets: Array(onsets[lo * 12..<hi * 12]))
    }

    /// Sequences one after the other (a score's repeats played or skipped).
    public static func joined(_ parts: [AlignmentFeatures], rate: Double) -> AlignmentFeatures {
        AlignmentFeatures(rate: rate, chroma: parts.flatMap(\.chroma), onsets: parts.flatMap(\.onsets))
    }

    /// Every `factor` frames pooled into one (chroma averaged and made unit length again, onsets
    /// their maximum): the coarse levels of the multiscale alignment.
    public func pooled(by factor: Int) -> AlignmentFeatures {
        guard factor > 1 else { return self }
        let n = (count + factor - 1) / factor
        var c = [Float](repeating: 0, count: n * 12), o = [Float](repeating: 0, count: n * 12)
        for f in 0..<count {
            let g = f / factor
            for k in 0..<12 {
                c[g * 12 + k] += chroma[f * 12 + k]
                o[g * 12 + k] = max(o[g * 12 + k], onsets[f * 12 + k])
            }
        }
        for g in 0..<n { Self.normalise(&c, frame: g) }
        return AlignmentFeatures(rate: rate / Double(factor), chroma: c, onsets: o)
    }

    static func normalise(_ v: inout [Float], frame g: Int) {
        var sum: Float = 0
        for k in 0..<12 { sum += v[g * 12 + k] * v[g * 12 + k] }
        let norm = sum.squareRoot()
        if norm < 1e-6 {
            for k in 0..<12 { v[g * 12 + k] = 1 / Float(12).squareRoot() }
        } else {
            for k in 0..<12 { v[g * 12 + k] /= norm }
        }
    }

    /// The features of mono `samples` at `AlignmentFeatures.analysisRate`.
    public static func of(_ samples: [Float]) -> AlignmentFeatures {
        let rate = Double(analysisRate)
        let hop = rate / frameRate
        let n = samples.isEmpty ? 0 : Int((Double(samples.count) / hop).rounded(.up))
        let fft = FFT(size: fftSize)
        // Each FFT bin's MIDI pitch (bins below A0 or above C8 are left out).
        let binPitch: [Int] = (0...fftSize / 2).map { bin in
            let f = Double(bin) * rate / Double(fftSize)
            guard f > 25 else { return -1 }
            let p = Int((69 + 12 * log2(f / 440)).rounded())
            return (21...108).contains(p) ? p : -1
        }
        var chroma = [Float](repeating: 0, count: n * 12)
        var pitchEnergy = [Float](repeating: 0, count: 88)
        var previous = [Float](repeating: 0, count: 88)
        var rise = [Float](repeating: 0, count: n * 12)
        for f in 0..<n {
            let centre = Int((Double(f) * hop).rounded())
            let mags = fft.magnitudes(samples, start: centre - fftSize / 2)
            for p in 0..<88 { pitchEnergy[p] = 0 }
            for (bin, m) in mags.enumerated() where binPitch[bin] >= 0 {
                pitchEnergy[binPitch[bin] - 21] += Float(m * m)
            }
            for p in 0..<88 {
                let e = log1p(100 * pitchEnergy[p])
                chroma[f * 12 + (p + 21) % 12] += e
                let d = e - previous[p]
                if d > 0, f > 0 { rise[f * 12 + (p + 21) % 12] += d }
                previous[p] = e
            }
            normalise(&chroma, frame: f)
        }
        return AlignmentFeatures(rate: frameRate, chroma: chroma, onsets: decayingOnsets(rise, frames: n))
    }

    /// Onset strength made comparable between a loud and a soft recording: each frame divided
    /// by the largest onset within a second around it, then each onset left to fade over the
    /// next 200 ms (the Sync Toolbox's DLNCO), so a small timing difference costs a little,
    /// not everything.
    static func decayingOnsets(_ rise: [Float], frames n: Int) -> [Float] {
        guard n > 0 else { return [] }
        var strength = [Float](repeating: 0, count: n)
        for f in 0..<n {
            var s: Float = 0
            for k in 0..<12 { s += rise[f * 12 + k] }
            strength[f] = s
        }
        let half = Int(frameRate / 2)
        var localMax = [Float](repeating: 0, count: n)
        // Sliding maximum over ±half frames (a deque of candidate indices).
        var deque: [Int] = []
        var head = 0
        var next = 0
        for f in 0..<n {
            while next < n && next <= f + half {
                while deque.count > head, strength[deque[deque.count - 1]] <= strength[next] { deque.removeLast() }
                deque.append(next)
                next += 1
            }
            while deque[head] < f - half { head += 1 }
            localMax[f] = strength[deque[head]]
        }
        // A floor at a tenth of a strong onset (the 95th percentile): between notes, where a
        // recording holds only noise, the noise's flicker is not blown up to an onset.
        let sorted = strength.sorted()
        let floor = sorted[min(n - 1, n * 95 / 100)] * 0.1 + 1e-6
        let decay: [Float] = (0..<10).map { Float((1 - Double($0) / 10).squareRoot()) }
        var out = [Float](repeating: 0, count: n * 12)
        for f in 0..<n {
            let scale = 1 / max(localMax[f], floor)
            for k in 0..<12 {
                let v = rise[f * 12 + k] * scale
                guard v > 0 else { continue }
                for (d, w) in decay.enumerated() where f + d < n {
                    out[(f + d) * 12 + k] = max(out[(f + d) * 12 + k], v * w)
                }
            }
        }
        return out
    }

    /// The cost of pairing frame `i` of `self` with frame `j` of `other`: chroma's cosine
    /// distance plus the onsets' Euclidean distance (weighted as the Sync Toolbox does).
    @inline(__always)
    public func cost(_ i: Int, _ other: AlignmentFeatures, _ j: Int) -> Float {
        var dot: Float = 0, onset: Float = 0
        let a = i * 12, b = j * 12
        for k in 0..<12 {
            dot += chroma[a + k] * other.chroma[b + k]
            let d = onsets[a + k] - other.onsets[b + k]
            onset += d * d
        }
        return (1 - dot) + 0.5 * onset.squareRoot()
    }
}

/// Mono samples at any rate → `AlignmentFeatures.analysisRate`, block by block, so a long
/// recording is never held at its own rate: an averaging low-pass as wide as the rate ratio,
/// then linear interpolation.
public struct Downsampler: Sendable {
    public let fromRate: Int
    public let toRate: Int
    private var position = 0.0
    private var ring: [Float]
    private var ringAt = 0
    private var ringSum: Float = 0
    private var seen = 0
    private var filtered: [Float] = []
    private var consumed = 0
    public private(set) var output: [Float] = []

    public init(from fromRate: Int, to toRate: Int = AlignmentFeatures.analysisRate) {
        self.fromRate = max(1, fromRate)
        self.toRate = max(1, toRate)
        ring = [Float](repeating: 0, count: max(1, Int((Double(fromRate) / Double(toRate)).rounded())))
    }

    /// Adds the next block of samples.
    public mutating func push(_ block: UnsafeBufferPointer<Float>) {
        // Moving average as wide as the rate ratio (a cheap anti-alias filter: chroma only
        // looks below 5.5 kHz).
        filtered.reserveCapacity(filtered.count + block.count)
        for x in block {
            ringSum += x - ring[ringAt]
            ring[ringAt] = x
            ringAt = ringAt + 1 == ring.count ? 0 : ringAt + 1
            seen += 1
            filtered.append(ringSum / Float(min(seen, ring.count)))
        }
        let step = Double(fromRate) / Double(toRate)
        while true {
            let local = position - Double(consumed)
            let i = Int(local)
            guard i + 1 < filtered.count else { break }
            let t = Float(local - Double(i))
            output.append(filtered[i] * (1 - t) + filtered[i + 1] * t)
            position += step
        }
        let keep = max(0, Int(position) - consumed)
        if keep > 0 && keep <= filtered.count {
            filtered.removeFirst(keep)
            consumed += keep
        }
    }

    /// Mono `samples` at `rate`, resampled in one go.
    public static func resample(_ samples: [Float], from rate: Int, to target: Int = AlignmentFeatures.analysisRate) -> [Float] {
        if rate == target { return samples }
        var d = Downsampler(from: rate, to: target)
        samples.withUnsafeBufferPointer { d.push($0) }
        return d.output
    }
}
