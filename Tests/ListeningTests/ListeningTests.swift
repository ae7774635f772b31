import Foundation
import Testing
@testable import Listening

/// A piano-like tone: ten partials at 1/h, slightly sharpened with their number, a 5 ms attack
/// and an exponential decay.
func pianoTone(_ pitch: Int, at start: Double, length: Double = 0.8, into samples: inout [Float], rate: Int = 44_100, gain: Double = 0.1) {
    let f0 = 440 * pow(2, Double(pitch - 69) / 12)
    let first = Int(start * Double(rate)), count = Int(length * Double(rate))
    for i in 0..<count where first + i < samples.count {
        let t = Double(i) / Double(rate)
        let envelope = min(1, t / 0.005) * exp(-t * 3)
        var v = 0.0
        for h in 1...10 {
            let f = Double(h) * f0 * (1 + 0.0004 * Double(h * h)).squareRoot()
            if f < Double(rate) / 2 { v += sin(2 * .pi * f * t) / Double(h) }
        }
        samples[first + i] += Float(v * envelope * gain)
    }
}

func listen(_ samples: [Float], expected: @escaping (Double) -> Set<Int> = { _ in [] }, rate: Int = 44_100) -> [HeardNote] {
    let listener = NoteListener(sampleRate: rate)
    listener.expectedAt = expected
    var heard: [HeardNote] = []
    var i = 0
    while i < samples.count {
        heard += listener.push(Array(samples[i..<min(samples.count, i + 512)]))
        i += 512
    }
    return heard + listener.flush()
}

@Suite struct FFTTests {
    @Test func aSineLandsInItsBin() {
        let fft = FFT(size: 1024)
        let rate = 1024.0 * 10  // 10 Hz a bin
        let samples = (0..<1024).map { Float(sin(2 * Double.pi * 440 * Double($0) / rate)) }
        let mags = fft.magnitudes(samples, start: 0)
        #expect(mags.indices.max { mags[$0] < mags[$1] } == 44)
        // Hann window: a sine of amplitude 1 peaks at about N/4.
        #expect(abs(mags[44] - 256) < 5)
    }

    @Test func samplesOutsideTheArrayAreSilence() {
        let fft = FFT(size: 256)
        #expect(fft.magnitudes([Float](repeating: 1, count: 10), start: 300).allSatisfy { $0 == 0 })
    }
}

@Suite struct NoteListenerTests {
    @Test func aSingleNoteIsHeardOnceAtItsOnset() {
        var s = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &s)
        let heard = listen(s)
        #expect(heard.map(\.pitch) == [60])
        #expect(abs((heard.first?.time ?? 0) - 0.5) < 0.03)
    }

    @Test func aTriadIsHeardWholeAndNotItsPartials() {
        var s = [Float](repeating: 0, count: 44_100 * 2)
        for p in [60, 64, 67] { pianoTone(p, at: 0.5, into: &s) }
        let heard = listen(s) { _ in [60, 64, 67] }
        #expect(Set(heard.map(\.pitch)) == [60, 64, 67])
    }

    @Test func anOctaveAboveANoteIsNotInventedButAPlayedOctaveIsHeard() {
        var alone = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(48, at: 0.5, into: &alone)
        #expect(listen(alone) { _ in [48] }.map(\.pitch) == [48])
        var both = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(48, at: 0.5, into: &both)
        pianoTone(60, at: 0.5, into: &both)
        #expect(Set(listen(both) { _ in [48, 60] }.map(\.pitch)) == [48, 60])
    }

    @Test func aWrongNeighbourIsHeardAsItselfNotAsTheKeyExpected() {
        var s = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(61, at: 0.5, into: &s)
        #expect(listen(s) { _ in [60] }.map(\.pitch) == [61])
    }

    @Test func aRingingNoteIsNotHeardAgainWhenTheNextKeyIsStruck() {
        var s = [Float](repeating: 0, count: 44_100 * 3)
        pianoTone(60, at: 0.5, length: 2, into: &s)
        pianoTone(67, at: 1.2, into: &s)
        #expect(listen(s).map(\.pitch) == [60, 67])
    }

    /// A hard bass key whose sound still grows 120 ms after its onset (a bass string's slow
    /// attack, the room's first reflections), where the melody's next key makes an onset: in that
    /// onset's new sound lie the bass key's partials, its octave among them — which the score
    /// expects next — and it was heard there, early (issue 41's Musette: the wrong key then
    /// played on time was judged extra). A key wholly on the partials of one heard at an onset
    /// under 140 ms before is that key's sound; the key played 300 ms after is heard as itself.
    @Test func aGrowingBassKeysOctaveIsNotHeardAtTheNextOnset() {
        let rate = 44_100
        var samples = [Float](repeating: 0, count: rate * 2)
        // E2 rising over 150 ms, then decaying; its fundamental weak beside its octave (a bass
        // string's), the partials above 1/h.
        let f0 = 440 * pow(2, Double(40 - 69) / 12)
        for i in 0..<Int(1.2 * Double(rate)) {
            let t = Double(i) / Double(rate)
            let envelope = min(1, t / 0.15) * exp(-t * 2)
            var v = 0.0
            for h in 1...10 { v += sin(2 * .pi * Double(h) * f0 * (1 + 0.0004 * Double(h * h)).squareRoot() * t) * (h == 1 ? 0.3 : h == 2 ? 1 : 1 / Double(h)) }
            samples[Int(0.5 * Double(rate)) + i] += Float(v * envelope * 0.2)
        }
        pianoTone(76, at: 0.5, length: 0.12, into: &samples, gain: 0.04)
        pianoTone(75, at: 0.62, length: 0.18, into: &samples, gain: 0.04)
        pianoTone(51, at: 0.8, length: 0.4, into: &samples, gain: 0.08)
        let heard = listen(samples, expected: { t in t < 0.56 ? [40, 76] : t < 0.75 ? [75, 52] : t < 0.9 ? [52] : [] })
        #expect(!heard.contains { $0.pitch == 52 && $0.time < 0.75 }, "\(heard.map { ($0.pitch, $0.time) })")
        #expect(heard.contains { $0.pitch == 75 && abs($0.time - 0.62) < 0.03 }, "\(heard.map { ($0.pitch, $0.time) })")
        #expect(heard.contains { $0.pitch == 51 && abs($0.time - 0.8) < 0.03 }, "\(heard.map { ($0.pitch, $0.time) })")
    }

    /// A knock (a short broadband burst) while a key rings and the score waits for another: what
    /// sounds at the ringing key's partials rises with everything else, and it is not taken for
    /// that key struck again.
    @Test func aKnockOverARingingKeyIsNotThatKeyStruckAgain() {
        let rate = 44_100
        var samples = [Float](repeating: 0, count: rate * 2)
        pianoTone(71, at: 0.5, length: 1.4, into: &samples, gain: 0.1)
        var seed: UInt64 = 12_345
        for i in 0..<(rate / 40) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let white = Double(Int64(bitPattern: seed)) / Double(Int64.max)
            samples[Int(0.9 * Double(rate)) + i] += Float(white * 0.3 * exp(-Double(i) / Double(rate) * 80))
        }
        let heard = listen(samples, expected: { t in t < 0.7 ? [71] : [69] })
        #expect(heard.map(\.pitch) == [71], "\(heard.map { ($0.pitch, $0.time) })")
    }

    @Test func aRepeatedKeyIsHeardEachTime() {
        var s = [Float](repeating: 0, count: 44_100 * 3)
        for t in [0.5, 1.0, 1.5] { pianoTone(64, at: t, length: 0.45, into: &s) }
        #expect(listen(s).map(\.pitch) == [64, 64, 64])
    }

    @Test func etudesOwnNoteInTheRoomIsNeitherReportedNorItsOctave() {
        var s = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(48, at: 0.5, into: &s)  // Etude's left hand from the speakers
        pianoTone(64, at: 0.5, into: &s)  // the learner
        let listener = NoteListener(sampleRate: 44_100)
        listener.expectedAt = { _ in [64] }
        listener.othersAt = { t in (t - 0.3...t + 0.05).contains(0.5) ? [48: t - 0.5] : [:] }  // as OwnSoundTap.began
        let heard = listener.push(s) + listener.flush()
        #expect(heard.map(\.pitch) == [64])
    }

    @Test func etudesOwnNoteNotInTheRoomTakesNothingFromTheLearner() {
        // Headphones: Etude began C3, but the microphone hears only the learner's C4 (its octave).
        var s = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &s)
        let listener = NoteListener(sampleRate: 44_100)
        listener.expectedAt = { _ in [60] }
        listener.othersAt = { t in (t - 0.3...t + 0.05).contains(0.5) ? [48: t - 0.5] : [:] }
        #expect((listener.push(s) + listener.flush()).map(\.pitch) == [60])
    }

    @Test func silenceAndNoiseAreNotNotes() {
        var rng = SystemRandomNumberGenerator()
        let noise = (0..<44_100 * 2).map { _ in Float.random(in: -0.003...0.003, using: &rng) }
        #expect(listen(noise).isEmpty)
        #expect(listen([Float](repeating: 0, count: 44_100)).isEmpty)
    }

    @Test func clippingIsSaid() {
        var s = [Float](repeating: 0, count: 44_100)
        pianoTone(60, at: 0.1, into: &s, gain: 1)
        let listener = NoteListener(sampleRate: 44_100)
        _ = listener.push(s.map { max(-1, min(1, $0 * 4)) })
        #expect(listener.signal == .clipped)
    }

    @Test func aKeyStruckAloneGivesItsPartialProfile() throws {
        var s = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(55, at: 0.5, into: &s)
        let key = try #require(NoteListener.measureKey(55, samples: s, sampleRate: 44_100))
        #expect(key.pitch == 55)
        #expect(key.partials.first == 1)  // the fundamental is the strongest of 1/h partials
        #expect(key.partials[1] > 0.3 && key.partials[1] < 0.7)
    }
}

@Suite struct ListeningEvaluationTests {
    @Test func plantedWrongNotesAreNeighboursNeverOnASoundingKey() {
        let notes = (0..<28).map { (pitch: 60 + $0 % 5, time: Double($0) * 0.5, duration: 0.4) }
        let performed = ListeningEvaluation.plantWrongNotes(notes, every: 7)
        #expect(performed.filter(\.isWrong).count == 4)
        for n in performed where n.isWrong { #expect([1, 2].contains(abs(n.pitch - n.expectedPitch))) }
    }

    @Test func scoringCountsFoundFalseAndPlanted() {
        let truth = [PerformedNote(pitch: 60, time: 1, duration: 0.5, expectedPitch: 60),
                     PerformedNote(pitch: 63, time: 2, duration: 0.5, expectedPitch: 62),
                     PerformedNote(pitch: 64, time: 3, duration: 0.5, expectedPitch: 64)]
        let heard = [HeardNote(pitch: 60, time: 1.01, strength: 10, wasExpected: true),
                     HeardNote(pitch: 63, time: 2.01, strength: 10, wasExpected: false),
                     HeardNote(pitch: 70, time: 2.5, strength: 5, wasExpected: false)]
        let s = ListeningEvaluation.score(heard: heard, truth: truth)
        #expect(s.played == 2 && s.found == 1 && s.falseWrongs == 1 && s.planted == 1 && s.plantedFound == 1)
    }
}

/// `etude calibrate --input audio`'s steps from the samples alone.
@Suite struct RoomCalibrationTests {
    /// Three and a half seconds of a quiet room (uniform noise of RMS ≈ 0.0006), then `keys` struck
    /// every two seconds.
    static func session(_ keys: [Int], rate: Int = 44_100) -> [Float] {
        var rng = SystemRandomNumberGenerator()
        var s = (0..<(rate * (4 + 2 * keys.count))).map { _ in Float.random(in: -0.001...0.001, using: &rng) }
        for (i, k) in keys.enumerated() { pianoTone(k, at: 4 + 2 * Double(i), length: 1.5, into: &s, rate: rate) }
        return s
    }

    static func run(_ samples: [Float], rate: Int = 44_100) -> (RoomCalibration, [RoomCalibration.Event]) {
        let setup = RoomCalibration(sampleRate: rate)
        var events: [RoomCalibration.Event] = []
        var i = 0
        while i < samples.count {
            events += setup.push(Array(samples[i..<min(samples.count, i + rate / 100)]))
            i += rate / 100
        }
        return (setup, events)
    }

    @Test func theRoomThenEachKeyGiveTheProfile() throws {
        let (setup, events) = Self.run(Self.session(RoomCalibration.keys))
        guard case .roomMeasured(let noise)? = events.first else { Issue.record("\(events)"); return }
        #expect(noise > 0.0004 && noise < 0.0008, "\(noise)")
        #expect(events.compactMap { if case .measured(let k, _) = $0 { return k } else { return nil } } == RoomCalibration.keys)
        guard case .finished(let profile)? = events.last else { Issue.record("\(events)"); return }
        #expect(setup.step == .done)
        #expect(profile.isMeasured && profile.noiseFloor == noise)
        #expect(profile.templates?.keys.map(\.pitch) == RoomCalibration.keys)
        #expect(profile.playedLevel > 0.01 && profile.playedLevel < 0.2, "\(profile.playedLevel)")
        // The decision waits for the pitch window after the onset (~200 ms), no more than a fragment later.
        #expect(profile.latency > 0.15 && profile.latency < 0.3, "\(profile.latency)")
    }

    @Test func anotherKeyIsNamedAndNotMeasured() {
        let (setup, events) = Self.run(Self.session([37, 36]))
        #expect(events.contains(.otherKey(expected: 36, heard: 37)), "\(events)")
        #expect(events.contains { if case .measured(36, _) = $0 { return true } else { return false } })
        #expect(setup.step == .key(48))
    }

    @Test func aLoudRoomIsRefused() {
        var rng = SystemRandomNumberGenerator()
        let loud = (0..<44_100 * 4).map { _ in Float.random(in: -0.3...0.3, using: &rng) }
        let (setup, events) = Self.run(loud)
        #expect(events.contains { if case .roomTooLoud = $0 { return true } else { return false } })
        #expect(setup.step == .quiet)
    }
}

/// What the header says of the signal.
@Suite struct SignalStateTests {
    @Test func aPianoFarTooQuietIsSaidAndAFairOneIsNot() {
        var quiet = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &quiet, gain: 0.0005)
        let listener = NoteListener(sampleRate: 44_100)
        _ = listener.push(quiet)
        #expect(listener.signal == .tooQuiet)
        var fair = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &fair)
        let other = NoteListener(sampleRate: 44_100)
        _ = other.push(fair)
        #expect(other.signal == .ok)
    }

    @Test func aCalibratedRoomSetsTheThresholds() {
        let profile = ListeningProfile(noiseFloor: 0.0005, playedLevel: 0.1)
        #expect(profile.tooQuietLevel == 0.01)
        #expect(profile.noteGate == 0.001)
        // A sound no louder than the room's noise is no note once the room is measured.
        var faint = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &faint, gain: 0.001)
        let measured = NoteListener(sampleRate: 44_100, profile: profile)
        #expect((measured.push(faint) + measured.flush()).isEmpty)
        #expect(listen(faint).map(\.pitch) == [60])
    }
}

/// The speakers case: Etude's bass note reaches the microphone with its fundamental too weak to
/// hear, so only its upper partials sound, on the learner's expected key an octave above.
@Suite struct OwnAttackTests {
    /// The learner played E4 firmly twice in a quiet room; then, at 2.5 s, the room gives C4 at `gain` while
    /// Etude began C3 at `etudeBegan`. What is heard at 2.5 s.
    static func heard(etudeBegan: Double, gain: Double = 0.01) -> [Int] {
        var rng = SystemRandomNumberGenerator()
        var s = (0..<44_100 * 4).map { _ in Float.random(in: -0.0005...0.0005, using: &rng) }  // the room
        pianoTone(64, at: 0.5, into: &s)
        pianoTone(64, at: 1.5, into: &s)
        pianoTone(60, at: 2.5, into: &s, gain: gain)
        let listener = NoteListener(sampleRate: 44_100)
        listener.expectedAt = { t in t > 2 ? [60] : [64] }
        listener.othersAt = { t in (t - 0.3...t + 0.05).contains(etudeBegan) ? [48: t - etudeBegan] : [:] }
        return (listener.push(s) + listener.flush()).filter { $0.time > 2 }.map(\.pitch)
    }

    @Test func anOnsetThatIsEtudesOwnAttackIsNotTheLearnersOctave() {
        #expect(Self.heard(etudeBegan: 2.5).isEmpty)
    }

    @Test func theLearnersKeyStruckWellAfterEtudesNoteIsHeard() {
        #expect(Self.heard(etudeBegan: 2.34) == [60])
    }

    @Test func theLearnersOctaveStruckWithEtudesNoteAsFirmlyAsTheirPlayingIsHeard() {
        #expect(Self.heard(etudeBegan: 2.5, gain: 0.1) == [60])
    }
}

/// What a recording says of itself before it is judged (issue 41 point 4).
@Suite struct RecordingCheckTests {
    @Test func aCleanRecordingSaysNothing() {
        var s = [Float](repeating: 0, count: 44_100 * 3)
        pianoTone(60, at: 1.2, into: &s)
        #expect(RecordingCheck(channels: [s], sampleRate: 44_100).line == nil)
    }

    @Test func clippedQuietNoisyAndLowRatesAreSaidInOneLine() {
        var s = [Float](repeating: 0, count: 8_000 * 2)
        pianoTone(60, at: 0.5, into: &s, rate: 8_000, gain: 2)
        let loud = s.map { max(-1, min(1, $0)) }
        let check = RecordingCheck(channels: [loud], sampleRate: 8_000)
        #expect(check.isClipped && check.isLowRate && !check.isTooQuiet)
        let line = check.line ?? ""
        #expect(line.contains("clipped") && line.contains("8000 Hz") && !line.contains("\n"), "\(line)")
        var faint = [Float](repeating: 0, count: 44_100 * 2)
        pianoTone(60, at: 0.5, into: &faint, gain: 0.0005)
        #expect(RecordingCheck(channels: [faint], sampleRate: 44_100).isTooQuiet)
        var noisy = (0..<(44_100 * 2)).map { i in Float(sin(Double(i) * 12.9898).truncatingRemainder(dividingBy: 1) * 0.05) }
        pianoTone(60, at: 0.5, into: &noisy, gain: 0.05)
        #expect(RecordingCheck(channels: [noisy], sampleRate: 44_100).isNoisy)
        // Cut off part way: its header promised more than the two seconds measured.
        var cut = RecordingCheck(channels: [faint.map { $0 * 400 }], sampleRate: 44_100)
        #expect(cut.line == nil && abs(cut.seconds - 2) < 0.02)
        cut.promisedSeconds = 41.2
        #expect(cut.isCutShort && cut.line?.contains("cut short (its header promises 41.2 s, the file holds 2.0 s: what it lost is judged missed)") == true, "\(cut.line ?? "")")
        cut.promisedSeconds = 192
        #expect(cut.line?.contains("promises 3 min 12 s") == true, "\(cut.line ?? "")")
    }

    /// A loud room (its noise 15 dB under the loudest note): no second lies 20 dB under the music,
    /// so the first steady second quieter than most of the take — its lead-in — is the room (the
    /// judge listens with it); a take that is all music has none.
    @Test func aLoudRoomIsItsFirstSteadySecondQuieterThanTheMusic() {
        let rate = 44_100
        var seed: UInt64 = 3
        var s = (0..<(rate * 6)).map { _ -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1
            return (Float(seed >> 40) / Float(1 << 24) - 0.5) * 0.02 * Float(12.0.squareRoot())
        }
        for k in 0..<8 { pianoTone(60 + k, at: 1.5 + Double(k) * 0.55, into: &s, gain: 0.12) }
        let check = RecordingCheck(channels: [s], sampleRate: rate)
        #expect(check.quietStart.map { $0 < 0.6 } == true, "\(String(describing: check.quietStart))")
        #expect(abs((check.quietSecond ?? 0) - 0.02) < 0.002, "the room \(String(describing: check.quietSecond)), 0.02 played")
        var music = [Float](repeating: 0, count: rate * 4)
        for k in 0..<8 { pianoTone(60 + k, at: Double(k) * 0.5, into: &music, gain: 0.12) }
        #expect(RecordingCheck(channels: [music], sampleRate: rate).quietStart == nil)
    }

    @Test func theRoomIsTheFirstQuietSecondNotDigitalSilence() {
        var s = [Float](repeating: 0, count: 44_100 * 4)
        // Half a second of digital silence, then the room (RMS 0.001), a note at 2.5 s.
        var seed: UInt64 = 7
        for i in (44_100 / 2)..<s.count {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1
            s[i] = (Float(seed >> 40) / Float(1 << 24) - 0.5) * 0.001 * Float(12.0.squareRoot())
        }
        pianoTone(60, at: 2.5, into: &s)
        let room = RecordingCheck(channels: [s], sampleRate: 44_100).quietSecond ?? 0
        #expect(abs(room - 0.001) < 0.0003, "\(room)")
        #expect(RecordingCheck(channels: [[Float](repeating: 0, count: 44_100 * 2)], sampleRate: 44_100).quietSecond == nil)
    }
}
