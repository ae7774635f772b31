import Foundation
import Judge
import Lesson
import Listening
import Synth

/// A recording of an acoustic piano (`etude judge LESSON RECORDING.wav`), heard by the same
/// listener as `--input audio`: first without expectations, to find where its first note
/// sounds; then, with that note aligned to the first note expected, told at each moment which
/// keys the lesson wants (score-informed, as live). Only onsets are judged from sound.
public enum HeardPerformance {
    /// The largest recording read (about 45 minutes of 16-bit stereo at 48 kHz).
    public static let maxBytes = 512 << 20
    /// How long a heard key is taken as held (onsets only: nothing is judged of its length).
    static let heldSeconds = 0.15

    /// A RIFF or RF64 WAVE file, whatever its name.
    public static func isWAV(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && (bytes[0..<4].elementsEqual("RIFF".utf8) || bytes[0..<4].elementsEqual("RF64".utf8))
            && bytes[8..<12].elementsEqual("WAVE".utf8)
    }

    /// `calibration` is the microphone set-up of the source it was recorded through
    /// (`--calibration SOURCE`); without it the listener's defaults. The performance's `notice` says what is wrong with the recording
    /// itself (clipped, too quiet, too noisy, below 22 kHz), judged anyway.
    public static func performance(wav bytes: [UInt8], name: String, lesson: Lesson, plan: PracticePlan,
                                   calibration: ListeningProfile? = nil) throws -> PerformanceJudge.Performance {
        let wav: WAVData
        do {
            wav = try WAVData(bytes: bytes)
        } catch {
            throw EtudeFailure("\(name) is not a WAV recording Etude can read (\(error.message)); give a 16-bit, 24-bit or float PCM .wav")
        }
        guard wav.frameCount > 0, wav.sampleRate >= 8_000 else {
            throw EtudeFailure("\(name) holds no sound (\(wav.frameCount) frames at \(wav.sampleRate) Hz); record the piano again")
        }
        // Half a second of silence first: the listener hears an onset only once the moment before
        // it is in its window, and a recording may start on its first note.
        let check = RecordingCheck(channels: wav.samples, sampleRate: wav.sampleRate)
        // Without a set-up the room measured from the first quiet second (`check.quietSecond`) is
        // not yet listened with: not shown to help (docs/LISTENING.md).
        let profile = calibration ?? ListeningProfile()
        // Below 22 kHz the listener's windows (sized for 44.1–48 kHz) would be seconds long: the
        // recording is heard at 48 kHz, its own band only.
        let rate = check.isLowRate ? 48_000 : wav.sampleRate
        let lead = rate / 2
        var mono = [Float](repeating: 0, count: lead) + Self.upsampled(wav.samples[0], from: wav.sampleRate, to: rate)
        if wav.channels > 1 {
            for c in 1..<wav.channels {
                let channel = Self.upsampled(wav.samples[c], from: wav.sampleRate, to: rate)
                for i in channel.indices where lead + i < mono.count { mono[lead + i] += channel[i] }
            }
            let scale = 1 / Float(wav.channels)
            for i in mono.indices { mono[i] *= scale }
        }
        let band = Double(wav.sampleRate) / 2
        let percent = ((try? plan.tempoFactor(for: lesson)) ?? 1) * 100
        let expected = PerformanceJudge.expected(lesson: lesson, plan: plan, percent: percent).sorted { $0.time < $1.time }
        guard let firstExpected = expected.first?.time else {
            let hand = plan.hands == .both ? "the lesson" : "the \(plan.hands.rawValue) hand"
            throw EtudeFailure("\(hand) has no notes to judge in these bars; choose another --hand or --bars")
        }
        guard let first = heard(mono, rate: rate, profile: profile, band: band, firstOnly: true, expectedAt: { _ in [] }).first?.time else {
            throw EtudeFailure("\(name): no piano note heard in it (too quiet, or silence); record closer to the piano")
        }
        let shift = firstExpected - first
        let notes = heard(mono, rate: rate, profile: profile, band: band, firstOnly: false) { t in
            let at = t + shift
            return Set(expected.lazy.filter { abs($0.time - at) <= 0.3 }.map(\.pitch))
        }
        var events: [PlayedEvent] = []
        for n in notes {
            events.append(PlayedEvent(pitch: n.pitch, velocity: 80, time: n.time, isOn: true))
            events.append(PlayedEvent(pitch: n.pitch, velocity: 0, time: n.time + heldSeconds, isOn: false))
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : (!$0.isOn && $1.isOn) }
        return PerformanceJudge.Performance(events: events, pedal: [], onsetOnly: true, notice: check.line)
    }

    /// `samples` at `to` Hz by linear interpolation (unchanged when the rates match); what lies
    /// above the original band is left out by the listener's `bandLimit`.
    static func upsampled(_ samples: [Float], from: Int, to: Int) -> [Float] {
        guard from != to, from > 0, !samples.isEmpty else { return samples }
        let count = Int((Double(samples.count) * Double(to) / Double(from)).rounded(.down))
        let step = Double(from) / Double(to)
        return (0..<count).map { i in
            let x = Double(i) * step
            let j = Int(x), f = Float(x - Double(j))
            let a = samples[min(j, samples.count - 1)], b = samples[min(j + 1, samples.count - 1)]
            return a + (b - a) * f
        }
    }

    /// The notes the listener hears in `samples`, in time order (with `firstOnly`, as soon as one is).
    static func heard(_ samples: [Float], rate: Int, profile: ListeningProfile = ListeningProfile(), band: Double? = nil, firstOnly: Bool,
                      expectedAt: @escaping (Double) -> Set<Int>) -> [HeardNote] {
        let listener = NoteListener(sampleRate: rate, profile: profile)
        listener.bandLimit = band
        listener.expectedAt = expectedAt
        var out: [HeardNote] = []
        let chunk = max(1, rate / 10)
        var i = 0
        while i < samples.count {
            out += listener.push(Array(samples[i..<min(samples.count, i + chunk)]))
            if firstOnly && !out.isEmpty { return out }
            i += chunk
        }
        return out + listener.flush()
    }
}
