import Foundation
import Listening
import Testing

/// Two frames' spectra from one complex FFT (`FFT.magnitudes(_:start:and:)`, what the alignment's
/// features take) are the spectra two separate FFTs give.
@Test func twoFramesFromOneFFTAreTheTwoSpectra() {
    var seed: UInt64 = 42
    let samples: [Float] = (0..<10_000).map { i in
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return 0.3 * sin(Float(i) * 0.05) + 0.2 * sin(Float(i) * 0.71) + Float(Int64(bitPattern: seed >> 11) % 1000) / 10_000
    }
    let fft = FFT(size: 2048)
    for (a, b) in [(0, 220), (-1024, 5000), (9000, 1000), (4000, 9500)] {
        let pair = fft.magnitudes(samples, start: a, and: b)
        let one = fft.magnitudes(samples, start: a), two = fft.magnitudes(samples, start: b)
        let worst = zip(pair.first + pair.second, one + two).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-9, "frames at \(a) and \(b): \(worst)")
    }
}
