import Clocks
import Devices
import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Recording
import RecordingAudio
import Reports
import Store
import Synchronization
import Synth

/// `etude align LESSON RECORDING`: where each printed bar (and beat) of the lesson falls in a
/// recording of it. The lesson is rendered offline by FluidSynth, both are reduced to chroma and
/// onset features, and a multiscale DTW pairs them (`BarAligner`, trying the score's repeats
/// played and skipped). The result is kept in the library by the recording's content, so the
/// next time (or after the file moved) it is read back at once.
public enum RecordingAlign {
    /// What `--json` prints.
    public struct Output: Codable, Sendable, Equatable {
        public struct Bar: Codable, Sendable, Equatable {
            public var bar: String
            public var pass: Int
            public var start: Double
            /// Where the bar ends in the recording (the passage `render --recording` cuts ends here).
            public var end: Double
            public var confidence: Double
            public var beats: [Double]
        }
        public var bars: [Bar]
        public var method: String
        public var confidence: Double
        public var unsure: Bool
        public var repeatsPlayed: Bool
        public var stored: Bool
    }

    /// A lesson and a recording, opened and checked.
    public struct Job {
        public var lessonPath: String
        public var recordingPath: String
        public var soundfont: String?
        public var again = false

        public init(lesson: String, recording: String) {
            lessonPath = lesson
            recordingPath = recording
        }
    }

    /// Opens a recording: every refusal one line naming the file.
    public static func openRecording(_ path: String) throws -> RecordingFile {
        do {
            return try RecordingFile(path: path)
        } catch {
            throw EtudeFailure("\(safe(path)): \(safe(error.message))")
        }
    }

    /// The lesson's bars as its render plays them, `lead` seconds of silence first.
    public static func scoreBars(_ lesson: Lesson, lead: Double) -> [ScoreBar] {
        let map = lesson.tempoMap
        return lesson.bars.bars.map { bar in
            let beats = bar.beats.map { map.seconds(atTick: $0.tick) + lead }
            return ScoreBar(number: bar.number, label: "\(bar.printed)", printed: bar.printed, pass: bar.pass,
                            start: map.seconds(atTick: bar.startTick) + lead, end: map.seconds(atTick: bar.endTick) + lead,
                            beats: beats.isEmpty ? [map.seconds(atTick: bar.startTick) + lead] : beats)
        }
    }

    /// Silence before the render, so a recording's own lead-in has something to match.
    static let lead = 0.5

    /// The lesson's render at the analysis rate (mono), `lead` seconds of silence first: rendered
    /// at that rate by FluidSynth itself (nothing to resample) and without its chorus (the
    /// features see pitch classes below 5.5 kHz; the chorus only costs time).
    public static func render(_ file: MIDIFile, soundfont: String) throws -> [Float] {
        var options = OfflineRenderer.Options()
        options.sampleRate = AlignmentFeatures.analysisRate
        options.chorus = false
        options.tail = 1
        let renderer: OfflineRenderer
        do {
            renderer = try OfflineRenderer(soundFont: soundfont, options: options, onSlowLoad: LiveSound.slowLoadReporter(soundfont))
            LiveSound.endProgressLine()
        } catch {
            LiveSound.endProgressLine()
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        let (left, right) = try renderer.renderSamples(MessageSchedule(file: file))
        let leadCount = Int(lead * Double(AlignmentFeatures.analysisRate))
        var mono = [Float](repeating: 0, count: leadCount + left.count)
        for i in left.indices { mono[leadCount + i] = 0.5 * (left[i] + right[i]) }
        return mono
    }

    /// Finds the bars (or reads them from the library) and returns them with whether they were stored before.
    public static func align(_ job: Job, library: Library?) throws -> (alignment: RecordingAlignment, stored: Bool) {
        let read = try LessonOpener.read(job.lessonPath)
        let lesson = Lesson(file: read.file, fileName: job.lessonPath)
        guard !lesson.notes.isEmpty else { throw EtudeFailure("\(safe(job.lessonPath)): no notes to align a recording with") }
        let recording = try openRecording(job.recordingPath)
        let keys = try identity(recording: job.recordingPath, lesson: job.lessonPath)
        if !job.again, let library, let found = try? library.withStore(scan: false, { try $0.alignment(recording: keys.recording, lesson: keys.lesson) }),
           let decoded = try? JSONDecoder().decode(RecordingAlignment.self, from: Data(found.bars.utf8)) {
            return (decoded, true)
        }
        let font = try LiveSound.soundFont(job.soundfont)
        // The lesson rendered and analysed on one core while the recording is decoded and
        // analysed on the other: the two halves share nothing until the DTW.
        let file = read.file, source = RecordingFile.Box(recording), path = job.recordingPath
        let halves = Mutex<[Int: Result<AlignmentFeatures, EtudeFailure>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            let result: Result<AlignmentFeatures, EtudeFailure>
            if half == 0 {
                do {
                    let rendered = try render(file, soundfont: font)
                    result = .success(AlignmentFeatures.of(rendered))
                } catch {
                    result = .failure(error as? EtudeFailure ?? EtudeFailure("\(error)"))
                }
            } else {
                do {
                    let samples = try source.file.analysisSamples()
                    result = .success(AlignmentFeatures.of(samples))
                } catch {
                    result = .failure(EtudeFailure("\(safe(path)): \(safe((error as? RecordingError)?.message ?? "\(error)")); nothing was aligned"))
                }
            }
            halves.withLock { $0[half] = result }
        }
        let (renderResult, recordingResult) = halves.withLock { ($0[0], $0[1]) }
        guard let renderResult, let recordingResult else { throw EtudeFailure("\(safe(path)): nothing was aligned") }
        let renderFeatures = try renderResult.get()
        let recordingFeatures = try recordingResult.get()
        guard let alignment = BarAligner.align(render: renderFeatures, bars: scoreBars(lesson, lead: lead), recording: recordingFeatures) else {
            throw EtudeFailure("\(safe(job.recordingPath)): holds no sound to align; give a recording of this lesson")
        }
        if let library { save(alignment, keys: keys, library: library) }
        return (alignment, false)
    }

    /// Keeps `alignment` for the next time; a library that cannot be written costs one line.
    package static func save(_ alignment: RecordingAlignment, keys: (recording: String, lesson: String), library: Library) {
        do {
            let json = String(decoding: try JSONOutput.encoder().encode(alignment), as: UTF8.self)
            try library.withStore(scan: false) { s in
                try s.saveAlignment(StoredAlignment(recording: keys.recording, lesson: keys.lesson, bars: json, method: alignment.method.rawValue))
            }
        } catch {
            Console.error("etude: the alignment is not kept in the library: \((error as? EtudeFailure)?.message ?? "\(error)")")
        }
    }

    /// The recording's and the lesson's identities: content hashes, so a renamed file keeps them.
    package static func identity(recording: String, lesson: String) throws -> (recording: String, lesson: String) {
        guard let r = RecordingIdentity.hash(path: recording) else {
            throw EtudeFailure("\(safe(recording)): cannot be read (check its permissions)")
        }
        let bytes = try LessonOpener.readBytes(lesson)
        return (r, SHA256.hex(bytes))
    }

    /// `etude align`: aligns and prints (text, or `--json`). Unsure: says so and how to tap.
    public static func run(_ job: Job, json: Bool, library: Library) throws {
        let started = MonotonicClock.seconds()
        let (alignment, stored) = try align(job, library: library)
        show(alignment, job: job, json: json, stored: stored, seconds: MonotonicClock.seconds() - started)
    }

    /// The bars on stdout (a table, or `--json`); an unsure alignment said on stderr with the way out.
    package static func show(_ alignment: RecordingAlignment, job: Job, json: Bool, stored: Bool, seconds: Double) {
        if json {
            let out = Output(bars: alignment.bars.map { .init(bar: $0.bar, pass: $0.pass, start: round3($0.start), end: round3($0.end), confidence: $0.confidence, beats: $0.beats.map(round3)) },
                             method: alignment.method.rawValue, confidence: alignment.confidence, unsure: alignment.isUnsure,
                             repeatsPlayed: alignment.repeatsPlayed, stored: stored)
            Console.out(JSONOutput.line(out))
        } else {
            Console.out(text(alignment, recording: job.recordingPath, stored: stored, seconds: seconds))
        }
        if alignment.isUnsure && alignment.method == .audio {
            Console.error("etude: the alignment is unsure (confidence \(String(format: "%.2f", alignment.confidence))): the recording may be another piece, another version, or played very freely; "
                          + "tap the beats instead: etude align \(shellWord(job.lessonPath)) \(shellWord(job.recordingPath)) --tap")
        }
    }

    static func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    static func shellWord(_ s: String) -> String {
        let plain = s.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._/-+,@%".unicodeScalars.contains($0) }
        return plain ? safe(s) : "'" + safe(s).replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The table `etude align` prints.
    static func text(_ a: RecordingAlignment, recording: String, stored: Bool, seconds: Double) -> String {
        var out = "\(safe(recording)): \(a.bars.count) bars"
        out += a.method == .taps ? ", tapped" : ", confidence \(String(format: "%.2f", a.confidence))"
        out += a.repeatsPlayed ? "" : ", repeats skipped"
        out += stored ? " (stored alignment)\n" : " (aligned in \(String(format: "%.1f", seconds)) s)\n"
        out += "bar      start  confidence\n"
        for b in a.bars {
            let label = b.pass > 1 ? "\(b.bar)@\(b.pass)" : b.bar
            let minutes = Int(b.start / 60), rest = b.start - Double(minutes * 60)
            out += label.padding(toLength: max(6, label.count), withPad: " ", startingAt: 0)
                + String(format: " %2d:%06.3f  %.2f", minutes, rest, b.confidence) + (b.confidence < 0.35 ? "  unsure\n" : "\n")
        }
        return out
    }
}

/// A recording's identity: SHA-256 of its size, its first and last megabyte and 32 blocks
/// spread between — its content, read in milliseconds whatever its length, the same after
/// the file is moved or renamed.
public enum RecordingIdentity {
    public static func hash(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        var sha = SHA256()
        sha.update(Array(String(size).utf8))
        var places: [(UInt64, Int)] = [(0, 1 << 20)]
        for k in 1...32 { places.append((size / 33 * UInt64(k), 1 << 16)) }
        places.append((size > 1 << 20 ? size - (1 << 20) : 0, 1 << 20))
        for (at, length) in places {
            guard (try? handle.seek(toOffset: at)) != nil else { return nil }
            guard let data = try? handle.read(upToCount: length) else { return nil }
            sha.update(Array(data))
        }
        return sha.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
