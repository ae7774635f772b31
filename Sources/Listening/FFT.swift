import Foundation

/// A radix-2 FFT sized once and reused: the detector takes thousands of spectra a second, so
/// the twiddles and the bit reversal are computed up front and no call allocates but its result.
public struct FFT: Sendable {
    public let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]
    /// The Hann window of this size (spectral leakage would smear a note across its neighbours).
    public let window: [Double]

    /// `size` must be a power of two ≥ 2.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        var c = [Double](repeating: 0, count: size / 2)
        var s = [Double](repeating: 0, count: size / 2)
        for i in 0..<size / 2 {
            let a = -2 * Double.pi * Double(i) / Double(size)
            c[i] = cos(a)
            s[i] = sin(a)
        }
        cosines = c
        sines = s
        var bits = 0
        while 1 << bits < size { bits += 1 }
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
        window = (0..<size).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size)) }
    }

    /// Magnitudes of bins 0…size/2 of `samples[start..<start+size]` under the Hann window;
    /// samples outside the array count as silence.
    public func magnitudes(_ samples: [Float], start: Int) -> [Double] {
        var re = [Double](repeating: 0, count: size)
        var im = [Double](repeating: 0, count: size)
        for i in 0..<size {
            let j = start + i
            if j >= 0 && j < samples.count { re[reversed[i]] = Double(samples[j]) * window[i] }
        }
        butterflies(&re, &im)
        var out = [Double](repeating: 0, count: size / 2 + 1)
        for i in 0...size / 2 { out[i] = (re[i] * re[i] + im[i] * im[i]).squareRoot() }
        return out
    }

    /// The magnitudes of two frames at once — `start` and `other` — from one complex FFT (the
    /// first frame as its real part, the second as its imaginary part, split by the spectrum's
    /// symmetry): half the work of two calls, for whoever takes every frame of a recording.
    public func magnitudes(_ samples: [Float], start: Int, and other: Int) -> (first: [Double], second: [Double]) {
        var re = [Double](repeating: 0, count: size)
        var im = [Double](repeating: 0, count: size)
        samples.withUnsafeBufferPointer { x in
            for i in 0..<size {
                let j = start + i, k = other + i
                let r = reversed[i]
                if j >= 0 && j < x.count { re[r] = Double(x[j]) * window[i] }
                if k >= 0 && k < x.count { im[r] = Double(x[k]) * window[i] }
            }
        }
        butterflies(&re, &im)
        var first = [Double](repeating: 0, count: size / 2 + 1), second = first
        for k in 0...size / 2 {
            let n = (size - k) % size
            // X = (Z[k] + conj Z[n]) / 2, Y = (Z[k] − conj Z[n]) / 2i.
            let xr = (re[k] + re[n]) / 2, xi = (im[k] - im[n]) / 2
            let yr = (im[k] + im[n]) / 2, yi = (re[n] - re[k]) / 2
            first[k] = (xr * xr + xi * xi).squareRoot()
            second[k] = (yr * yr + yi * yi).squareRoot()
        }
        return (first, second)
    }

    /// The in-place radix-2 butterflies over bit-reversed input: the one transform both
    /// `magnitudes` calls run.
    private func butterflies(_ re: inout [Double], _ im: inout [Double]) {
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        var half = 1
                        while half < size {
                            let step = size / (half * 2)
                            var k = 0
                            while k < size {
                                for j in 0..<half {
                                    let t = j * step
                                    let wr = cosines[t], wi = sines[t]
                                    let a = k + j, b = a + half
                                    let xr = re[b] * wr - im[b] * wi
                                    let xi = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - xr
                                    im[b] = im[a] - xi
                                    re[a] += xr
                                    im[a] += xi
                                }
                                k += half * 2
                            }
                            half *= 2
                        }
                    }
                }
            }
        }
    }
}
