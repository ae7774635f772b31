import Foundation
import MIDIFile
import Synth
import Testing
import TestSupport

/// Isolated middle Cs at irregular ticks, a tempo change and an empty bar (`TestSong.onsets`,
/// which the render command's end-to-end tests play too).
let onsetSong = TestSong.onsets
let onsetTicks = TestSong.onsetTicks
/// Bar 6 at 75 BPM in 4/4 (ticks 9600–11520) has no notes.
let silentBar = 9600..<11520

func dryOptions(rate: Int = 44_100, tail: Double? = 0.5) -> OfflineRenderer.Options {
    var o = OfflineRenderer.Options()
    o.sampleRate = rate
    o.format = .float
    o.reverb = false
    o.chorus = false
    o.tail = tail
    return o
}

@Suite struct OfflineRenderTests {
    @Test func everyOnsetLandsWithinOneBlockOfItsSample() throws {
        for rate in [44_100, 48_000] {
            let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions(rate: rate))
            let audio = try renderer.renderSamples(MessageSchedule(file: onsetSong.file()))
            let found = Signal.onsets(audio.left, threshold: 0)
            #expect(found.count == onsetTicks.count, "onsets found at \(found)")
            guard found.count == onsetTicks.count else { continue }
            // The first note is at sample 0 (block-aligned): its detection delay is the voice's own.
            let delay = found[0]
            var errors: [Int] = []
            for (i, tick) in onsetTicks.enumerated() {
                let ideal = Int((onsetSong.seconds(atTick: tick) * Double(rate)).rounded())
                let error = found[i] - delay - ideal
                errors.append(error)
                #expect(error >= 0 && error < 64, "note \(i) at tick \(tick): \(error) samples from sample \(ideal)")
            }
            print("onset errors at \(rate) Hz (samples): \(errors)")
        }
    }

    @Test func anEmptyBarIsSilent() throws {
        let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions())
        let audio = try renderer.renderSamples(MessageSchedule(file: onsetSong.file()))
        let from = Int(onsetSong.seconds(atTick: silentBar.lowerBound) * 44_100)
        let to = Int(onsetSong.seconds(atTick: silentBar.upperBound) * 44_100)
        #expect(Signal.peak(audio.left[from..<to]) == 0)
        #expect(Signal.peak(audio.right[from..<to]) == 0)
        // …and the bars around it are not.
        #expect(Signal.peak(audio.left[to..<min(audio.left.count, to + 44_100)]) > 0.01)
    }

    @Test func lengthFollowsTheTempoMap() throws {
        let expected = onsetSong.seconds(atTick: onsetSong.endTick)  // 3840 @ 120 + 8640 @ 75 = 4 + 14.4 s
        #expect(abs(expected - 18.4) < 1e-9)
        for rate in [44_100, 48_000] {
            let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions(rate: rate, tail: 0))
            let dir = TestEnv.tempDir()
            defer { TestEnv.remove(dir) }
            let result = try renderer.render(MessageSchedule(file: onsetSong.file()), to: dir + "/out.wav")
            #expect(result.frames == Int((expected * Double(rate)).rounded()))
            let wav = try WAVData(path: dir + "/out.wav")
            #expect(wav.sampleRate == rate && wav.channels == 2 && wav.isFloat)
            #expect(wav.frameCount == result.frames)
        }
    }

    @Test func autoTailStopsAfterTheReleaseDecays() throws {
        let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions(tail: nil))
        let audio = try renderer.renderSamples(MessageSchedule(file: onsetSong.file()))
        let end = 18.4 * 44_100
        #expect(Double(audio.left.count) >= end)
        #expect(Double(audio.left.count) < end + 2 * 44_100)
        #expect(Signal.peak(audio.left.suffix(441)) < 1e-4)
    }

    @Test func aProgramChangeChangesTheTimbre() throws {
        var song = TestSong(events: [], endTick: 3840)
        song.events = [
            (0, .programChange(channel: 0, program: 0)),
            (0, .noteOn(channel: 0, key: 60, velocity: 100)), (700, .noteOff(channel: 0, key: 60, velocity: 0)),
            (1200, .noteOn(channel: 0, key: 60, velocity: 100)), (1900, .noteOff(channel: 0, key: 60, velocity: 0)),
            (2300, .programChange(channel: 0, program: 19)),  // church organ
            (2400, .noteOn(channel: 0, key: 60, velocity: 100)), (3100, .noteOff(channel: 0, key: 60, velocity: 0)),
        ]
        let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions())
        let audio = try renderer.renderSamples(MessageSchedule(file: song.file()))
        func profile(_ tick: Int) -> [Double] {
            let start = Int(song.seconds(atTick: tick) * 44_100) + 2205  // 50 ms into the note
            return Signal.harmonicProfile(audio.left[start..<start + 8192], f0: 261.63, rate: 44_100)
        }
        let piano1 = profile(0), piano2 = profile(1200), organ = profile(2400)
        let same = Signal.distance(piano1, piano2)
        let different = Signal.distance(piano1, organ)
        print("harmonic profile distance: same program \(same), program change \(different)")
        #expect(same < 0.05)
        #expect(different > 0.3)
    }

    @Test func drumChannelAndBankSelectReachTheSynth() throws {
        // Key 38 on channel 10 is a snare; on channel 1 it is a piano D2: different spectra.
        var song = TestSong(events: [], endTick: 1920)
        song.events = [
            (0, .noteOn(channel: 9, key: 38, velocity: 100)), (200, .noteOff(channel: 9, key: 38, velocity: 0)),
            (960, .noteOn(channel: 0, key: 38, velocity: 100)), (1160, .noteOff(channel: 0, key: 38, velocity: 0)),
        ]
        let renderer = try OfflineRenderer(soundFont: TestEnv.soundFont(), options: dryOptions())
        let audio = try renderer.renderSamples(MessageSchedule(file: song.file()))
        let onsets = Signal.onsets(audio.left, gap: 8000)
        #expect(onsets.count == 2)
        guard onsets.count == 2 else { return }
        let drum = Signal.harmonicProfile(audio.left[onsets[0]..<onsets[0] + 4096], f0: 73.42, rate: 44_100)
        let piano = Signal.harmonicProfile(audio.left[onsets[1]..<onsets[1] + 4096], f0: 73.42, rate: 44_100)
        #expect(Signal.distance(drum, piano) > 0.3)
    }
}
