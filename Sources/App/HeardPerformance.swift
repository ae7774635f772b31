import Foundation
import Judge
import Lesson
import Listening
import Reports
import Store
import Synth

/// A recording of an acoustic piano (`etude judge LESSON RECORDING.wav`), heard by the same
/// listener as `--input audio`: first without expectations, to find where its first note
/// sounds; then, with that note aligned to the first note expected, told at each moment which
/// keys the lesson wants (score-informed, as live). Only onsets are judged from sound.
public enum HeardPerformance {
    /// The longest recording judged: a lesson played through, with room; a header saying more is
    /// refused before a sample is read.
    public static let maxSeconds = 60.0 * 60
    /// How long a heard key is taken as held (onsets only: nothing is judged of its length).
    static let heldSeconds = 0.15

    /// A RIFF or RF64 WAVE file, whatever its name.
    public static func isWAV(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && (bytes[0..<4].elementsEqual("RIFF".utf8) || bytes[0..<4].elementsEqual("RF64".utf8))
            && bytes[8..<12].elementsEqual("WAVE".utf8)
    }

    /// Whether the file at `path` starts as a WAV (its first 12 bytes only).
    public static func isWAV(path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        return isWAV([UInt8]((try? h.read(upToCount: 12)) ?? Data()))
    }

    /// A recording rather than MIDI: named as one, or starting as one (a phone's take may have
    /// any name). Anything else is read as MIDI, and said so when it is not.
    public static func isRecording(path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        if ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff"].contains(ext) { return true }
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let head = [UInt8]((try? h.read(upToCount: 12)) ?? Data())
        func starts(_ tag: String) -> Bool { head.starts(with: Array(tag.utf8)) }
        let mpegSync = head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0
        return isWAV(head) || starts("fLaC") || starts("OggS") || starts("ID3") || starts("FORM") || mpegSync
    }

    /// The SHA-256 of the file at `path`, read a megabyte at a time.
    public static func digest(path: String) -> [UInt8] {
        var hash = SHA256()
        if let h = FileHandle(forReadingAtPath: path) {
            defer { try? h.close() }
            while let chunk = try? h.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update([UInt8](chunk)) }
        }
        return hash.finalize()
    }

    /// `calibration` is the microphone set-up of the source it was recorded through
    /// (`--calibration SOURCE`); without it the listener's defaults. The performance's `notice`
    /// says what is wrong with the recording itself (clipped, too quiet, too noisy, below 22 kHz),
    /// judged anyway.
    public static func performance(path: String, name: String, lesson: Lesson, plan: PracticePlan,
                                   calibration: ListeningProfile? = nil) throws -> PerformanceJudge.Performance {
        let wav = try openRecordedSound(path: path, name: name)
        let rate = wav.sampleRate
        guard wav.frameCount > 0 else {
            throw EtudeFailure("\(name) holds no sound (0 frames at \(rate) Hz); record the piano again")
        }
        guard wav.seconds <= maxSeconds else {
            throw EtudeFailure("\(name) lasts \(Int(wav.seconds / 60)) min; Etude judges recordings up to \(Int(maxSeconds / 60)) min: cut it to the lesson")
        }
        let percent = ((try? plan.tempoFactor(for: lesson)) ?? 1) * 100
        let expected = PerformanceJudge.expected(lesson: lesson, plan: plan, percent: percent).sorted { $0.time < $1.time }
        guard let firstExpected = expected.first?.time else {
            let hand = plan.hands == .both ? "the lesson" : "the \(plan.hands.rawValue) hand"
            throw EtudeFailure("\(hand) has no notes to judge in these bars; choose another --hand or --bars")
        }
        // The recording's own problems, measured in one pass a tenth of a second at a time.
        var meter = RecordingCheck.Meter(sampleRate: rate)
        try wav.forEachBlock(frames: max(1, rate / 10)) { meter.add($0); return true }
        var check = meter.check
        check.promisedSeconds = wav.promisedSeconds
        let profile = calibration ?? ListeningProfile()
        // The room's noise, bin by bin, from the recording's own first quiet second (issue 41).
        let room = try check.quietStart.map { try quietSecond(wav, from: $0, lowRate: check.isLowRate) }
        guard let first = try heard(wav, profile: profile, lowRate: check.isLowRate, room: room, firstOnly: true, expectedAt: { _ in [] }).first?.time else {
            throw EtudeFailure("\(name): no piano note heard in it (too quiet, or silence); record closer to the piano")
        }
        let shift = firstExpected - first
        let due = DueKeys(expected.map { (time: $0.time - shift, pitch: $0.pitch) })
        let notes = try heard(wav, profile: profile, lowRate: check.isLowRate, room: room, firstOnly: false, dueAt: due.dueTimes(at:),
                              expectedAt: due.keys(at:), alreadyHeardAt: due.heardKeys(at:), onHeard: due.hear)
        var events: [PlayedEvent] = []
        for n in notes {
            events.append(PlayedEvent(pitch: n.pitch, velocity: 80, time: n.time, isOn: true))
            events.append(PlayedEvent(pitch: n.pitch, velocity: 0, time: n.time + heldSeconds, isOn: false))
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : (!$0.isOn && $1.isOn) }
        return PerformanceJudge.Performance(events: events, pedal: [], onsetOnly: true, recordingSeconds: wav.seconds,
                                            notice: check.line)
    }

    /// The notes the listener hears in the recording, at their times in it (the listener is fed
    /// half a second of silence first, `lead`, taken off again: it hears an onset only once the
    /// moment before it is in its window, and a recording may start on its first note), in time order (with `firstOnly`, as soon as one is); read a
    /// tenth of a second at a time. A recording below 22 kHz (`lowRate`) is heard upsampled to
    /// 48 kHz (the listener's windows are sized for 44.1–48 kHz: at 8 kHz they would be seconds
    /// long), its own band only (`bandLimit`: above its half rate lie images, not partials).
    static func heard(_ wav: any RecordedSound, profile: ListeningProfile = ListeningProfile(), lowRate: Bool = false, room: [Float]? = nil,
                      firstOnly: Bool, dueAt: ((Double) -> [Int: Double])? = nil,
                      expectedAt: @escaping (Double) -> Set<Int>,
                      alreadyHeardAt: @escaping (Double) -> Set<Int> = { _ in [] },
                      onHeard: (HeardNote) -> Void = { _ in }) throws -> [HeardNote] {
        let source = wav.sampleRate
        let rate = lowRate ? 48_000 : source
        let listener = NoteListener(sampleRate: rate, profile: profile)
        if let room { listener.hearRoom(room) }
        listener.bandLimit = Double(source) / 2
        let lead = Double(5 * (rate / 10)) / Double(rate)
        listener.expectedAt = { t in expectedAt(t - lead) }
        listener.alreadyHeardAt = { t in alreadyHeardAt(t - lead) }
        if let dueAt { listener.dueAt = { t in dueAt(t - lead) } }
        var upsampler = Upsampler(from: source, to: rate)
        let chunk = max(1, source / 10)
        var out: [HeardNote] = []
        for _ in 0..<5 { out += listener.push([Float](repeating: 0, count: rate / 10)) }
        func unpadded(_ notes: [HeardNote]) -> [HeardNote] { notes.map { var n = $0; n.time -= lead; return n } }
        try wav.forEachMonoBlock(frames: chunk) { block in
            let new = listener.push(upsampler.push(block))
            for n in unpadded(new) { onHeard(n) }
            out += new
            return !(firstOnly && !out.isEmpty)
        }
        if firstOnly && !out.isEmpty { return unpadded(out) }
        out += listener.push(upsampler.flush())
        return unpadded(out + listener.flush())
    }

    /// The keys the lesson expects around a moment of the recording, and which of them had their
    /// note there heard already: the listener took a key still expected for heard again (accepted
    /// at a tenth of the loudest), so in the Prelude in C under the pedal a note due 230 ms before,
    /// still ringing at the next onset, was heard a second time and judged extra — 32 extras in a
    /// render of the lesson itself, scored 90 %. Told it was heard (`alreadyHeardAt`), the listener
    /// applies its rules for what still rings to it; a key struck again is due again at its own time.
    final class DueKeys {
        /// The lesson's notes in the recording's time, by time.
        let notes: [(time: Double, pitch: Int)]
        private var heard: Set<Int> = []
        /// How far from its time a note is expected (the judge's window and more).
        static let window = 0.3
        /// How long before its time a key heard may be that note: sooner, it is more likely the
        /// same key's last note still sounding (the Musette's drone D3 heard 190 ms early, its note
        /// then taken for heard and missed at its time).
        static let early = 0.1

        init(_ notes: [(time: Double, pitch: Int)]) { self.notes = notes.sorted { $0.time < $1.time } }

        /// The first note at or after `time`.
        private func index(from time: Double) -> Int {
            var lo = 0, hi = notes.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if notes[mid].time < time { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// Every key due within the window of `time`.
        func keys(at time: Double) -> Set<Int> { keys(at: time) { _ in true } }

        /// Each key due within the window of `time`, with the seconds to its nearest due time (a
        /// key due now counts more than one due later: `NoteListener.dueAt`).
        func dueTimes(at time: Double) -> [Int: Double] {
            var due: [Int: Double] = [:]
            var i = index(from: time - Self.window)
            while i < notes.count, notes[i].time <= time + Self.window {
                let d = notes[i].time - time
                if due[notes[i].pitch].map({ abs(d) < abs($0) }) ?? true { due[notes[i].pitch] = d }
                i += 1
            }
            return due
        }

        /// The keys due within the window of `time` each of whose notes there was heard already.
        func heardKeys(at time: Double) -> Set<Int> {
            keys(at: time) { self.heard.contains($0) }.subtracting(keys(at: time) { !self.heard.contains($0) })
        }

        private func keys(at time: Double, where include: (Int) -> Bool) -> Set<Int> {
            var out = Set<Int>()
            var i = index(from: time - Self.window)
            while i < notes.count, notes[i].time <= time + Self.window {
                if include(i) { out.insert(notes[i].pitch) }
                i += 1
            }
            return out
        }

        /// A key heard: the nearest note of that key not yet heard, within the window, is.
        func hear(_ note: HeardNote) {
            var best: Int?
            var i = index(from: note.time - Self.window)
            while i < notes.count, notes[i].time <= note.time + Self.early {
                if notes[i].pitch == note.pitch, !heard.contains(i),
                   best.map({ abs(notes[i].time - note.time) < abs(notes[$0].time - note.time) }) ?? true { best = i }
                i += 1
            }
            if let best { heard.insert(best) }
        }
    }

    /// The second of the recording from `start` (seconds), mono, at the listener's rate: the room
    /// with nobody playing (`RecordingCheck.quietStart`), for `NoteListener.hearRoom`.
    static func quietSecond(_ wav: any RecordedSound, from start: Double, lowRate: Bool) throws -> [Float] {
        let source = wav.sampleRate
        let first = Int(start * Double(source)), last = first + source
        var frame = 0
        var out: [Float] = []
        try wav.forEachMonoBlock(frames: max(1, source / 10)) { block in
            let lo = max(first, frame), hi = min(last, frame + block.count)
            if lo < hi { out += block[(lo - frame)..<(hi - frame)] }
            frame += block.count
            return frame < last
        }
        var upsampler = Upsampler(from: source, to: lowRate ? 48_000 : source)
        return upsampler.push(out) + upsampler.flush()
    }

    /// Linear interpolation from one rate to another, a block at a time (unchanged when the rates
    /// match); what lies above the original band is left out by the listener's `bandLimit`.
    struct Upsampler {
        let step: Double
        /// The next output's position in input samples, from the start.
        var x = 0.0
        /// The input not yet passed (from index `base` of the whole input).
        var pending: [Float] = []
        var base = 0

        init(from: Int, to: Int) { step = Double(from) / Double(max(1, to)) }

        mutating func push(_ block: [Float]) -> [Float] {
            guard step != 1 else { return block }
            pending += block
            var out: [Float] = []
            out.reserveCapacity(Int(Double(block.count) / step) + 2)
            while Int(x) + 1 < base + pending.count {
                let j = Int(x), f = Float(x - Double(j))
                let a = pending[j - base], b = pending[j + 1 - base]
                out.append(a + (b - a) * f)
                x += step
            }
            let keep = min(Int(x), base + pending.count) - base
            if keep > 0 {
                pending.removeFirst(keep)
                base += keep
            }
            return out
        }

        /// The last outputs, held as the final sample.
        mutating func flush() -> [Float] {
            guard step != 1 else { return [] }
            var out: [Float] = []
            while Int(x) < base + pending.count {
                out.append(pending[Int(x) - base])
                x += step
            }
            return out
        }
    }
}
