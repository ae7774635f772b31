import Foundation
import Listening
import Testing

/// Issue 41: the calibration's quiet seconds give the room's noise bin by bin (`RoomSpectrum`),
/// stored with the set-up, and live listening takes it off every spectrum as `etude judge` does
/// with a recording's first quiet second (`NoteListener.hearRoom(_:)`).
@Suite struct RoomSpectrumTests {
    static let rate = 48_000

    /// `seconds` of a room's pink noise of RMS `rms` (`seed`: another stretch of it).
    static func room(_ seconds: Double, rms: Double = 0.004, seed: UInt64 = 7) -> [Float] {
        PinkNoise.noise(count: Int(seconds * Double(rate)), rms: rms, seed: seed).map { Float($0) }
    }

    /// The one-minute set-up in that room: its quiet seconds, then C2…C6 struck in it.
    static func calibrated() -> ListeningProfile? {
        var session = room(4 + 2 * Double(RoomCalibration.keys.count))
        for (i, k) in RoomCalibration.keys.enumerated() { pianoTone(k, at: 4 + 2 * Double(i), length: 1.5, into: &session, rate: rate) }
        let setup = RoomCalibration(sampleRate: rate)
        var i = 0
        while i < session.count {
            for case .finished(let profile) in setup.push(Array(session[i..<min(session.count, i + rate / 100)])) { return profile }
            i += rate / 100
        }
        return nil
    }

    /// Mean of `magnitudes` over the bins between `lo` and `hi` Hz.
    static func level(_ room: RoomSpectrum, _ lo: Double, _ hi: Double) -> Double {
        let bin = Double(room.sampleRate) / Double(RoomSpectrum.windowSize)
        let part = room.magnitudes[Int(lo / bin)...Int(hi / bin)]
        return part.reduce(0, +) / Double(part.count)
    }

    @Test func theSetUpsQuietSecondsGiveTheRoomBinByBin() throws {
        let profile = try #require(Self.calibrated())
        let room = try #require(profile.roomSpectrum)
        #expect(room.sampleRate == Self.rate && room.magnitudes.count == RoomSpectrum.windowSize / 2)
        // Pink noise: 3 dB less an octave, so the octave 100–200 Hz holds about 16 times the
        // magnitude of 6.4–12.8 kHz (a level alone, as stored before, said nothing of this).
        let ratio = Self.level(room, 100, 200) / Self.level(room, 6_400, 12_800)
        #expect(ratio > 8 && ratio < 32, "\(ratio)")
        // A bin's mean magnitude under the Hann window, as `hearRoom` measures it from samples.
        let measured = NoteListener(sampleRate: Self.rate)
        measured.hearRoom(Self.room(3.3))
        let direct = try #require(measured.roomNoise)
        let theirs = Self.level(RoomSpectrum(sampleRate: Self.rate, magnitudes: direct)!, 300, 3_000)
        let ours = Self.level(room, 300, 3_000)
        #expect(abs(ours / theirs - 1) < 0.15, "\(ours) against \(theirs)")
    }

    /// A knock in the quiet seconds is not the room: the median over its windows.
    @Test func aKnockInTheQuietIsNotTheRoom() throws {
        var quiet = Self.room(3)
        for i in 0..<2_400 { quiet[Self.rate + i] += Float(0.3 * exp(-Double(i) / 400) * sin(Double(i) * 0.3)) }
        let knocked = try #require(RoomSpectrum.measure(quiet, sampleRate: Self.rate))
        let clean = try #require(RoomSpectrum.measure(Self.room(3), sampleRate: Self.rate))
        for (lo, hi) in [(50.0, 200.0), (200.0, 2_000.0), (2_000.0, 10_000.0)] {
            let ratio = Self.level(knocked, lo, hi) / Self.level(clean, lo, hi)
            #expect(ratio < 1.3, "\(lo)–\(hi) Hz: \(ratio)")
        }
        #expect(RoomSpectrum.measure(Array(quiet.prefix(1_000)), sampleRate: Self.rate) == nil)
    }

    /// Measured at 44.1 kHz and heard at 48 kHz (a JACK server's rate): the same noise at the same
    /// frequencies. Figures no measurement gives are refused.
    @Test func aSpectrumIsHeardAtAnotherRateByFrequency() throws {
        let room = try #require(RoomSpectrum(sampleRate: 44_100, magnitudes: (0..<4_096).map { Double($0) }))
        let at48 = room.magnitudes(at: 48_000, bins: 4_096)
        // Bin 1000 at 48 kHz is 5,859 Hz: bin 1088.4 at 44.1 kHz.
        #expect(abs(at48[1_000] - 1_088.4) < 0.1, "\(at48[1_000])")
        #expect(at48.last == 4_095)
        #expect(room.magnitudes(at: 44_100, bins: 4_096) == room.magnitudes)
        #expect(RoomSpectrum(sampleRate: 48_000, magnitudes: []) == nil)
        #expect(RoomSpectrum(sampleRate: 48_000, magnitudes: [1, .nan]) == nil)
        #expect(RoomSpectrum(sampleRate: 48_000, magnitudes: [1, -1]) == nil)
        #expect(RoomSpectrum(sampleRate: 1_000, magnitudes: [1]) == nil)
        #expect(RoomSpectrum(sampleRate: 48_000, magnitudes: [Double](repeating: 1, count: 4_097)) == nil)
    }

    /// Live, as `AudioInput` listens (`AudioInput.listener`: the profile and its room's spectrum),
    /// a stream of the room's noise from its first moment, then a bass-to-treble line in it with
    /// the noise 20 dB under the notes, the score expecting each: nothing is heard in the noise,
    /// every note is, on time, and nothing else. (Told only the room's level, the listener hears
    /// the same here, and so on BothHandsTests' renders: live, the gate 6 dB over the room already
    /// refuses the noise alone. This guards that the room taken off bin by bin loses no note.)
    @Test func liveListeningWithTheRoomMeasuredHearsNothingInItsNoiseAndEveryNote() throws {
        let profile = try #require(Self.calibrated())
        let keys = [36, 40, 43, 48, 52, 55, 60, 64, 67, 72]
        let times = keys.indices.map { 2.0 + 0.6 * Double($0) }
        var music = [Float](repeating: 0, count: Self.rate * 9)
        for (k, t) in zip(keys, times) { pianoTone(k, at: t, into: &music, rate: Self.rate, gain: 0.1) }
        // Another stretch of the same room, 20 dB under the notes while they sound.
        var stream = music
        PinkNoise.add(to: &stream, under: 20)
        func heard(_ profile: ListeningProfile) -> [HeardNote] {
            // As `AudioInput.listener` makes it (MIDIInputTests checks that it does).
            let listener = NoteListener(sampleRate: Self.rate, profile: profile)
            if let room = profile.roomSpectrum { listener.hearRoom(room) }
            listener.expectedAt = { t in Set(zip(keys, times).filter { abs($0.1 - t) < 0.15 }.map(\.0)) }
            var out: [HeardNote] = []
            var i = 0
            while i < stream.count {
                out += listener.push(Array(stream[i..<min(stream.count, i + Self.rate / 100)]))
                i += Self.rate / 100
            }
            return out + listener.flush()
        }
        let now = heard(profile)
        #expect(!now.contains { $0.time < 1.9 }, "heard in the room's noise: \(now.filter { $0.time < 1.9 }.map(\.pitch))")
        #expect(now.map(\.pitch) == keys, "\(now.map { ($0.pitch, $0.time) })")
        for (n, t) in zip(now, times) { #expect(abs(n.time - t) < 0.05, "\(n.pitch) at \(n.time), played at \(t)") }
    }
}
