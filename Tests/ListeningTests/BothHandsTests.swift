import Foundation
import Listening
import Testing
import TestSupport

/// Issue 41 points 1–3: both hands, the pedal, chords of four to ten keys (struck and rolled),
/// soft repeated keys and a fast run, each rendered here by a piano the listener was never tuned
/// on (MuseScore General's; its defaults and the bench's calibration are FluidR3's) through a
/// room (sox reverb) with pink noise 20 dB under the music, every 7th note planted a semitone or
/// a tone wrong. Each asserts how many right notes were found and that a right note is not heard
/// as a wrong key.
@Suite(.enabled(if: Tools.fluidsynth.available, Tools.fluidsynth.reason), .enabled(if: Tools.sox.available, Tools.sox.reason),
       .enabled(if: Tools.heldOutPiano.available, Tools.heldOutPiano.reason))
struct BothHandsTests {
    /// A note of the score: key, start and length in seconds, how hard.
    struct Played {
        var pitch: Int
        var time: Double
        var duration: Double
        var velocity: Int = 80
    }

    /// Renders `notes` (with `pedal` presses and releases, seconds) by the held-out piano in a
    /// room, adds pink noise 20 dB under the music, and scores what the listener told the score
    /// heard. `plant`: every how many notes one is played wrong (0: none).
    static func listen(_ notes: [Played], pedal: [(time: Double, down: Bool)] = [], plant: Int = 7, tolerance: Double = 0.06,
                       name: String) throws -> ListeningScore? {
        let sorted = notes.sorted { $0.time < $1.time }
        let truth = ListeningEvaluation.plantWrongNotes(sorted.map { (pitch: $0.pitch, time: $0.time + 0.5, duration: $0.duration) }, every: plant)
        guard let heard = try hear(truth, velocities: sorted.map(\.velocity), pedal: pedal, name: name) else { return nil }
        return score(heard, truth: truth, tolerance: tolerance, name: name)
    }

    /// What the listener heard of `truth` (times from the render's start; `velocities` per note)
    /// played by the held-out piano in the room, the score expecting each note's key `window`
    /// seconds either side (`etude judge` expects them ±300 ms).
    /// `due`: the listener is also told each expected key's due time (`NoteListener.dueAt`), as
    /// `etude judge` tells it. `noise`: pink noise 20 dB under (false: the room's reverb alone,
    /// as the bench's dry rows, where a note's strength is measured against little).
    static func hear(_ truth: [PerformedNote], velocities: [Int], pedal: [(time: Double, down: Bool)] = [], window: Double = 0.15,
                     due: Bool = false, noise: Bool = true, name: String) throws -> [HeardNote]? {
        let dir = try TempDir("etude-hands")
        let tick = { (t: Double) in Int((t * 960).rounded()) }
        let rendered = truth.enumerated().map { i, n in
            OtherPiano.Note(key: UInt8(n.pitch), tick: tick(n.time), length: max(1, tick(n.duration)), velocity: UInt8(velocities[i]))
        }
        let end = tick((truth.map { $0.time + $0.duration }.max() ?? 0) + 1.5)
        guard let path = try OtherPiano.recording(rendered, endTick: end, in: dir, name: name, soundFont: Tools.heldOutPiano.path,
                                                  pedal: pedal.map { (tick: tick($0.time + 0.5), down: $0.down) }),
              var samples = try OtherPiano.samples(path, in: dir) else { return nil }
        if noise { PinkNoise.add(to: &samples, under: 20) }
        return listen(samples, expecting: truth, window: window, due: due)
    }

    /// What a listener at 48 kHz hears in `samples`, told `score`'s keys expected `window`
    /// seconds either side of their times (and, with `due`, each one's due time), 10 ms at a time.
    static func listen(_ samples: [Float], expecting score: [PerformedNote], window: Double, due: Bool) -> [HeardNote] {
        let listener = NoteListener(sampleRate: 48_000)
        listener.expectedAt = { t in Set(score.filter { abs($0.time - t) < window }.map(\.expectedPitch)) }
        if due {
            listener.dueAt = { t in
                var out: [Int: Double] = [:]
                for n in score where abs(n.time - t) < window && abs(n.time - t) < abs(out[n.expectedPitch] ?? .infinity) { out[n.expectedPitch] = n.time - t }
                return out
            }
        }
        var heard: [HeardNote] = []
        var i = 0
        while i < samples.count {
            heard += listener.push(Array(samples[i..<min(samples.count, i + 480)]))
            i += 480
        }
        return heard + listener.flush()
    }

    static func score(_ heard: [HeardNote], truth: [PerformedNote], tolerance: Double, name: String) -> ListeningScore {
        let score = ListeningEvaluation.score(heard: heard, truth: truth, tolerance: tolerance)
        if ProcessInfo.processInfo.environment["LISTEN_DEBUG"] != nil {
            print("\(name): \(score.line)")
            for t in truth {
                let near = heard.filter { abs($0.time - score.offset - t.time) < 0.08 }
                guard !near.contains(where: { $0.pitch == t.pitch }) else { continue }
                print(String(format: "  missed %7.3f %3d (exp %3d) heard: %@", t.time, t.pitch, t.expectedPitch,
                             near.map { String(format: "%d/%.1f", $0.pitch, $0.strength) }.joined(separator: " ")))
            }
            let extra = heard.filter { h in !truth.contains { abs(h.time - score.offset - $0.time) < 0.07 && $0.pitch == h.pitch } }
            print("  extra:", extra.map { String(format: "%d@%.3f/%.1f", $0.pitch, $0.time, $0.strength) }.joined(separator: " "))
        }
        return score
    }

    /// Right hand a melody in eighths over C4–C6, left hand a bass in quarters over C2–C3.
    static var twoHands: [Played] {
        let melody = [72, 74, 76, 77, 79, 77, 76, 74, 72, 76, 79, 84, 83, 79, 77, 74, 76, 72, 74, 71, 72, 76, 79, 81, 79, 77, 76, 74, 72, 71, 72, 74]
        let bass = [36, 43, 40, 43, 41, 45, 43, 47, 36, 40, 43, 48, 45, 41, 43, 36]
        return melody.enumerated().map { Played(pitch: $0.element, time: Double($0.offset) * 0.25, duration: 0.24) }
            + bass.enumerated().map { Played(pitch: $0.element, time: Double($0.offset) * 0.5, duration: 0.48, velocity: 70) }
    }

    @Test func bothHandsAreHeardWithTheLowerUnderTheUpper() throws {
        guard let s = try Self.listen(Self.twoHands, name: "hands") else { Issue.record("render failed"); return }
        #expect(s.foundRatio >= 0.96, "\(s.line)")
        #expect(s.falseWrongs <= 1, "\(s.line)")
        #expect(s.plantedRatio >= 0.8, "\(s.line)")
    }

    /// The Prelude in C's figure: each bar a chord broken in sixteenths, held by the pedal.
    @Test func pedalledBrokenChordsAreHeardThroughWhatStillRings() throws {
        let bars = [[48, 52, 55, 60, 64], [48, 50, 57, 62, 65], [47, 50, 55, 62, 65], [48, 52, 55, 60, 64],
                    [48, 52, 57, 64, 69], [48, 50, 54, 57, 62], [47, 50, 55, 62, 67], [47, 48, 52, 55, 60]]
        var notes: [Played] = []
        var pedal: [(time: Double, down: Bool)] = []
        for (b, chord) in bars.enumerated() {
            let start = Double(b) * 3.2
            pedal += [(start + 0.02, true), (start + 3.17, false)]
            let figure = chord + Array(chord.suffix(3))
            for half in 0..<2 {
                for (j, key) in figure.enumerated() {
                    notes.append(Played(pitch: key, time: start + Double(half) * 1.6 + Double(j) * 0.2, duration: 0.19, velocity: 70))
                }
            }
        }
        guard let s = try Self.listen(notes, pedal: pedal, name: "pedal") else { Issue.record("render failed"); return }
        // Measured: 110/110 found, none heard wrong, 18/18 planted caught (before: 109/110, 4
        // heard wrong, 3.1 %: a frame of noise taken for an onset just before a due key, which
        // was then heard there, early, its own onset refused; the octave of the key just struck,
        // and a semitone beside a ringing key, heard as keys struck). The issue's target: ≤ 1 %.
        #expect(s.foundRatio >= 0.96, "\(s.line)")
        #expect(s.falseWrongRatio <= 0.01, "\(s.line)")
        #expect(s.plantedRatio >= 0.8, "\(s.line)")
    }

    /// Chords of four to ten keys over both hands, struck together and rolled (30 ms a key).
    @Test func chordsOfFourToTenKeysStruckOrRolled() throws {
        let chords = [[48, 55, 64, 72], [43, 50, 59, 67, 71], [41, 48, 57, 65, 69, 72], [36, 43, 48, 55, 64, 67, 72, 76],
                      [36, 40, 43, 48, 52, 55, 60, 64, 67, 72], [45, 52, 57, 60, 64], [38, 45, 50, 53, 57, 62, 65],
                      [43, 47, 50, 55, 59, 62, 67, 71, 74]]
        var notes: [Played] = []
        for (c, chord) in chords.enumerated() {
            for roll in [false, true] {
                let start = Double(c * 2 + (roll ? 1 : 0)) * 1.2
                for (j, key) in chord.enumerated() {
                    notes.append(Played(pitch: key, time: start + (roll ? Double(j) * 0.03 : 0), duration: 1.0, velocity: 75))
                }
            }
        }
        // A rolled chord (up to 270 ms from its first key to its last) is one onset: its keys
        // count when heard within its roll.
        guard let s = try Self.listen(notes, plant: 0, tolerance: 0.3, name: "chords") else { Issue.record("render failed"); return }
        // Measured: 100/108 found (an octave or a fifth of a louder key in the same chord is
        // what is still missed), 4 keys heard that were not in the chord.
        #expect(s.foundRatio >= 0.9, "\(s.line)")
        #expect(s.falseWrongs <= 5, "\(s.line)")
    }

    /// A key struck again 30 velocity steps softer while it still rings, in both hands.
    @Test func softRepeatedKeysAreHeardAgain() throws {
        var notes: [Played] = []
        for (i, key) in [60, 64, 67, 62, 65, 69, 48, 55].enumerated() {
            let start = Double(i) * 1.0
            notes.append(Played(pitch: key, time: start, duration: 0.45, velocity: 95))
            notes.append(Played(pitch: key, time: start + 0.5, duration: 0.45, velocity: 65))
        }
        guard let s = try Self.listen(notes, plant: 0, name: "repeats") else { Issue.record("render failed"); return }
        // Measured: 15/16, none heard wrong; the one missed (C3 again, 30 steps softer) was heard
        // as D♯2 before `NoteListener.unstruck` (its partials rose 2.5 times, the band's 0.8).
        #expect(s.foundRatio >= 0.9, "\(s.line)")
        #expect(s.falseWrongs <= 1, "\(s.line)")
    }

    /// Ode to Joy's first phrase (both hands, 100 BPM), as (key, key expected, seconds, length).
    static var odePhrase: [(Int, Int, Double, Double)] {
        let beat = 0.6
        let melody: [(Int, Double)] = [(64, 0), (64, 1), (65, 2), (67, 3), (67, 4), (65, 5), (64, 6), (62, 7),
                                       (60, 8), (60, 9), (62, 10), (64, 11), (64, 12), (62, 13.5), (62, 14)]
        let bass: [(Int, Double)] = [(48, 0), (55, 4), (48, 8), (55, 12)]
        return melody.map { ($0.0, $0.0, $0.1 * beat, beat * 0.95) } + bass.map { ($0.0, $0.0, $0.1 * beat, 4 * beat * 0.95) }
    }

    /// Ode to Joy's first phrase with every key struck again about 30 velocity steps under the
    /// strike before, the other hand's octave below struck with it louder (the bench's G4 96 →
    /// 68 over G3 83): issue 41's bench found 126 of 136 such repeats (basic-pitch 131). A soft
    /// repeat's new sound is under what the key rang just before, so taking 0.7 × the window
    /// before off left little of it, and the fit gave all of what was left to the octave below.
    /// The judge's window (±300 ms), as `etude judge` asks.
    @Test func softRepeatedKeysOverTheOctaveBelowAreHeard() throws {
        let (truth, _) = Self.passage(Self.odePhrase)
        var velocities: [Int] = []
        var repeats: [Int] = []
        for (i, n) in truth.enumerated() {
            let before = truth[..<i].lastIndex { $0.pitch == n.pitch }
            let between = before.map { b in truth[(b + 1)..<i].contains { $0.pitch >= 60 } } ?? true
            if n.pitch < 60 {
                velocities.append(85)
            } else if let b = before, !between, velocities[b] == 100 {
                velocities.append(68)
                repeats.append(i)
            } else {
                velocities.append(100)
            }
        }
        guard let heard = try Self.hear(truth, velocities: velocities, window: 0.3, name: "soft-repeats") else { Issue.record("render failed"); return }
        let s = Self.score(heard, truth: truth, tolerance: 0.06, name: "soft-repeats")
        let found = repeats.filter { i in heard.contains { $0.pitch == truth[i].pitch && abs($0.time - s.offset - truth[i].time) < 0.06 } }
        #expect(repeats.count == 5)
        #expect(found.count == repeats.count, "repeats heard \(found.map { truth[$0].pitch }) of \(repeats.map { truth[$0].pitch }); \(s.line)")
        #expect(s.found == truth.count && s.falseWrongs == 0, "\(s.line)")
    }

    /// Notes as (key, key the score expects, seconds, length), at velocity 80, the lower hand's 70.
    static func passage(_ notes: [(Int, Int, Double, Double)]) -> (truth: [PerformedNote], velocities: [Int]) {
        let sorted = notes.sorted { $0.2 < $1.2 }
        return (sorted.map { PerformedNote(pitch: $0.0, time: $0.2 + 0.5, duration: $0.3, expectedPitch: $0.1) }, sorted.map { $0.1 < 60 ? 70 : 80 })
    }

    /// The Minuet in G's bar 15 with A4 played B4 again, just after B4: a wrong key on the note
    /// just played sounds much like that note still ringing (under 55 % of its partials new), and
    /// was heard as nothing, the A4 missed instead of wrong (issue 41's bench). Its partials rose
    /// since just before the onset, which a ringing string's never do, and nothing else began.
    @Test func aWrongKeyStruckOnTheNoteJustPlayedIsHeard() throws {
        var (truth, velocities) = Self.passage([(60, 60, 0, 0.6), (69, 69, 0, 0.6), (62, 62, 0.6, 0.6), (71, 71, 0.6, 0.29),
                                                (71, 69, 0.9, 0.3), (50, 50, 1.2, 0.6), (67, 67, 1.2, 0.3), (66, 66, 1.5, 0.3),
                                                (55, 55, 1.8, 0.9), (67, 67, 1.8, 0.9)])
        // The B4 firm, played again softer (the bench's velocities vary ±12).
        velocities[3] = 86
        velocities[4] = 76
        guard let heard = try Self.hear(truth, velocities: velocities, window: 0.3, name: "again") else { Issue.record("render failed"); return }
        let s = Self.score(heard, truth: truth, tolerance: 0.06, name: "again")
        let wrong = heard.filter { abs($0.time - s.offset - 1.4) < 0.06 }
        #expect(wrong.map(\.pitch) == [71], "at the wrong key: \(wrong.map(\.pitch)); \(s.line)")
        #expect(s.found == 9 && s.falseWrongs == 0, "\(s.line)")
    }

    /// The Musette in D's bars 13–14 and 16–17 as the bench plays them, a wrong key a semitone
    /// or a tone under each E3 after a hard E2: the E2's octave grows into the next onsets (the
    /// melody's sixteenths, 110–150 ms on) while the E3 the score wants is due there only 150–300 ms
    /// later. Told only which keys are due within ±300 ms, the listener heard that octave as the
    /// E3, early, and the wrong key played on time was extra (issue 41's bench, both pianos).
    /// Told each key's due time (`NoteListener.dueAt`, as `etude judge` tells it), a key due
    /// later on the partials of one just heard is that key's sound.
    @Test func aHardBassNotesOctaveIsNotTheSameKeyDueLater() throws {
        var (truth, velocities) = Self.passage([
            (52, 52, 0, 0.3), (75, 75, 0, 0.15), (40, 40, 0.3, 0.3), (64, 64, 0.3, 0.3), (52, 52, 0.6, 0.3), (74, 74, 0.6, 0.3),
            (40, 40, 0.9, 0.3), (54, 52, 1.2, 0.3), (73, 73, 1.2, 0.3),
            (75, 75, 2.0, 0.15), (52, 52, 2.15, 0.3), (73, 73, 2.15, 0.15), (75, 75, 2.3, 0.15), (40, 40, 2.45, 0.3), (76, 76, 2.45, 0.15),
            (75, 75, 2.6, 0.15), (51, 52, 2.75, 0.3), (73, 73, 2.75, 0.15), (75, 75, 2.9, 0.15), (40, 40, 3.05, 0.3), (76, 76, 3.05, 0.3)])
        // The E2s hard, the rest as firm as the melody (the bench's velocities vary ±12).
        velocities = truth.map { $0.pitch == 40 ? 92 : 80 }
        guard let heard = try Self.hear(truth, velocities: velocities, window: 0.3, due: true, name: "octave") else { Issue.record("render failed"); return }
        let s = Self.score(heard, truth: truth, tolerance: 0.06, name: "octave")
        let e3 = heard.filter { $0.pitch == 52 }.map { $0.time - s.offset }
        #expect(e3.allSatisfy { t in truth.contains { $0.pitch == 52 && abs($0.time - t) < 0.06 } }, "E3 heard at \(e3); \(s.line)")
        // (Told only the keys due within ±300 ms: 7 heard that nobody played, 3 of them E3s.
        // One is left: a B4 on the hard E2's sixth partial, at that E2's onset.)
        #expect(s.found == s.played && s.plantedFound == s.planted && s.falseWrongs <= 1, "\(s.line)")
    }

    /// Ode to Joy's bar 15 with its C4 played D4 again, as the bass's C3 is struck: most of what
    /// sounds at the D4's partials is new (struck again), but the C3's attack raised the
    /// background its strength is measured against, and it was taken for the D4 still ringing
    /// (under 15 % of its last strength), the C4 missed instead of wrong (issue 41's bench, dry),
    /// and the C3's octave 120 ms on heard as the C4. Nearly all new (over 75 %), a twentieth is
    /// enough.
    @Test func aKeyStruckAgainWithABassNoteIsHeard() throws {
        var (truth, velocities) = Self.passage([(64, 64, 0, 0.6), (43, 43, 0, 1.2), (62, 62, 0.6, 0.6), (48, 48, 1.2, 1.2), (62, 60, 1.2, 0.6),
                                                (60, 60, 1.8, 1.2), (43, 43, 2.4, 0.6)])
        // The D4 firm, struck again softer over a firm C3 (the bench's velocities vary ±12).
        velocities = truth.map { $0.pitch == 62 ? ($0.isWrong ? 70 : 92) : $0.pitch == 48 ? 88 : 80 }
        guard let heard = try Self.hear(truth, velocities: velocities, window: 0.3, due: true, noise: false, name: "again-bass") else { Issue.record("render failed"); return }
        let s = Self.score(heard, truth: truth, tolerance: 0.06, name: "again-bass")
        #expect(s.found == s.played && s.plantedFound == s.planted && s.falseWrongs == 0, "\(s.line)")
    }

    /// A scale run at seven notes a second over two octaves, up and down, over a held bass.
    @Test func aFastRunAtSevenNotesASecond() throws {
        let up = [60, 62, 64, 65, 67, 69, 71, 72, 74, 76, 77, 79, 81, 83, 84]
        let run = up + up.reversed().dropFirst()
        var notes = run.enumerated().map { Played(pitch: $0.element, time: Double($0.offset) / 7, duration: 1 / 7.0, velocity: 75) }
        notes += [Played(pitch: 36, time: 0, duration: 2, velocity: 65), Played(pitch: 43, time: 2, duration: 2, velocity: 65)]
        guard let s = try Self.listen(notes, name: "run") else { Issue.record("render failed"); return }
        #expect(s.foundRatio >= 0.96, "\(s.line)")
        #expect(s.falseWrongs <= 1, "\(s.line)")
        #expect(s.plantedRatio >= 0.75, "\(s.line)")
    }
}

/// Pink noise (Paul Kellet's filter on seeded white noise), added at a level under the music.
enum PinkNoise {
    /// Adds pink noise `dB` under the RMS of `samples`' sounding part (10 ms blocks over −50 dBFS).
    static func add(to samples: inout [Float], under dB: Double) {
        var sum = 0.0, count = 0
        var i = 0
        while i + 480 <= samples.count {
            var block = 0.0
            for j in i..<(i + 480) { block += Double(samples[j]) * Double(samples[j]) }
            if block / 480 > 1e-5 { sum += block; count += 480 }
            i += 480
        }
        guard count > 0 else { return }
        let music = (sum / Double(count)).squareRoot()
        let noise = Self.noise(count: samples.count, rms: music * pow(10, -dB / 20))
        for k in samples.indices { samples[k] += Float(noise[k]) }
    }

    /// `count` samples of pink noise of RMS `rms` (`seed`: another stretch of the same room).
    static func noise(count: Int, rms target: Double, seed start: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Double] {
        var seed = start
        var b = [Double](repeating: 0, count: 7)
        var noise = [Double](repeating: 0, count: count)
        for k in noise.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let white = Double(Int64(bitPattern: seed)) / Double(Int64.max)
            b[0] = 0.99886 * b[0] + white * 0.0555179; b[1] = 0.99332 * b[1] + white * 0.0750759
            b[2] = 0.96900 * b[2] + white * 0.1538520; b[3] = 0.86650 * b[3] + white * 0.3104856
            b[4] = 0.55000 * b[4] + white * 0.5329522; b[5] = -0.7616 * b[5] - white * 0.0168980
            noise[k] = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + white * 0.5362
            b[6] = white * 0.115926
        }
        let rms = (noise.reduce(0) { $0 + $1 * $1 } / Double(max(1, noise.count))).squareRoot()
        let gain = target / max(rms, 1e-12)
        return noise.map { $0 * gain }
    }
}

/// Issue 41 point 5: the room's noise measured bin by bin from a quiet second
/// (`NoteListener.hearRoom`, what `etude judge` does with a recording's first quiet second).
@Suite struct RoomNoiseTests {
    /// Half a second of digital silence (the judge's lead-in), two seconds of a room's pink noise,
    /// then three notes in it, the noise 20 dB under them: unmeasured, the step from silence into
    /// the noise was heard as a bass key (which the judge aligned the first note to); measured,
    /// nothing is heard in the noise and every note still is (a gate that lost notes would not do).
    @Test func theRoomMeasuredHearsNothingInItsNoiseAndEveryNote() {
        let rate = 44_100
        var music = [Float](repeating: 0, count: rate * 5)
        for (i, key) in [48, 60, 67].enumerated() { pianoTone(key, at: 2.5 + Double(i) * 0.6, into: &music, gain: 0.1) }
        // Pink noise 20 dB under the notes while they sound, over the whole take.
        var noisy = music
        PinkNoise.add(to: &noisy, under: 20)
        let take = [Float](repeating: 0, count: rate / 2) + noisy
        func heard(room: Bool) -> [HeardNote] {
            let listener = NoteListener(sampleRate: rate)
            if room { listener.hearRoom(Array(take[(rate / 2)..<(rate / 2 + rate)])) }
            var out: [HeardNote] = []
            var i = 0
            while i < take.count {
                out += listener.push(Array(take[i..<min(take.count, i + 512)]))
                i += 512
            }
            return out + listener.flush()
        }
        let unmeasured = heard(room: false), measured = heard(room: true)
        #expect(unmeasured.contains { $0.time < 2.9 }, "the noise alone was expected to sound like a note unmeasured: \(unmeasured.map(\.pitch))")
        #expect(!measured.contains { $0.time < 2.9 }, "heard in the room's noise: \(measured.filter { $0.time < 2.9 }.map(\.pitch))")
        #expect(measured.map(\.pitch) == [48, 60, 67], "\(measured.map { ($0.pitch, $0.time) })")
    }
}
