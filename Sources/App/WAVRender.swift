import Clocks
import Devices
import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Synth

/// `etude render`: a lesson to a WAV through FluidSynth with no sound card. Every check comes
/// before the SoundFont loads: the output is none of the inputs (the lesson, the SoundFont), the
/// lesson is no longer than `maxMinutes` (a file whose timing makes it millions of hours long
/// is refused in one line instead of rendering until killed), and the disk has room. The WAV
/// goes through a temporary file renamed into place, RF64 past 4 GiB, its header always right.
public struct WAVRender: Sendable {
    public var input: String
    public var output: String
    public var soundfont: String?
    public var options = OfflineRenderer.Options()
    /// The longest lesson rendered, in minutes.
    public var maxMinutes = WAVRender.defaultMaxMinutes
    public var verbose = false
    /// `--transpose` (semitones or a key), nil for as written.
    public var transpose: Transposition.Request?
    /// Files the output must not be besides the lesson and the SoundFont (the database).
    public var protected: [String] = []

    /// Two hours: any lesson, with room to spare; a slip in a file's timing is caught at once.
    public static let defaultMaxMinutes = 120.0
    /// A day of audio (15 GB as s16, 30 GB as float): the most `--max-minutes` allows.
    public static let maxMinutesLimit = 1440.0

    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// Renders; the summary line for stdout.
    public func run() throws -> String {
        guard maxMinutes.isFinite, maxMinutes > 0, maxMinutes <= Self.maxMinutesLimit else {
            throw EtudeFailure("--max-minutes \(NumberText.short(maxMinutes)): give the longest render in minutes, more than 0 and at most \(Int(Self.maxMinutesLimit)) (a day)")
        }
        let font = try LiveSound.soundFont(soundfont)
        try OutputFile.check(output, inputs: [input, font] + protected)
        let midi = try LessonOpener.read(input)
        let schedule = MessageSchedule(file: try LessonFit.file(midi, path: input, transpose: transpose))
        guard schedule.duration.isFinite, schedule.duration <= maxMinutes * 60 else {
            throw EtudeFailure("\(safe(input)) lasts \(Self.length(schedule.duration)), longer than --max-minutes \(NumberText.short(maxMinutes)); "
                               + "raise --max-minutes (up to \(Int(Self.maxMinutesLimit))) if it is meant to")
        }
        defer { LiveSound.flushLog(verbose: verbose) }
        let started = MonotonicClock.seconds()
        let renderer: OfflineRenderer
        do {
            renderer = try OfflineRenderer(soundFont: font, options: options, onSlowLoad: LiveSound.slowLoadReporter(font))
            LiveSound.endProgressLine()
        } catch {
            LiveSound.endProgressLine()
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        try checkSpace(bytes: renderer.maxFrames(schedule) * UInt64(2 * options.format.bytesPerSample))
        let tty = isatty(STDERR_FILENO) != 0
        let bar: ((Double) -> Void)? = tty ? { p in
            let width = 30
            let filled = max(0, min(width, Int((p * Double(width)).rounded(.down))))
            Console.progress("rendering [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(filled * 100 / width)%")
        } : nil
        var result: OfflineRenderer.Result?
        do {
            try OutputFile.write(to: output, inputs: [input, font] + protected) { handle in
                do {
                    result = try renderer.render(schedule, into: handle, progress: bar)
                } catch {
                    throw EtudeFailure("-o \(safe(output)): \((error as? SynthError)?.message ?? "\(error)"); nothing was written")
                }
            }
        } catch {
            if tty { Console.clearProgress() }
            throw error
        }
        if tty { Console.clearProgress() }
        guard let result else { throw EtudeFailure("-o \(safe(output)): nothing was rendered") }
        let took = MonotonicClock.seconds() - started
        return "wrote \(safe(output)): \(String(format: "%.3f", result.seconds)) s, \(result.frames) frames, \(options.sampleRate) Hz, "
            + "\(options.format.rawValue) stereo (\(String(format: "%.1f", took)) s, \(String(format: "%.0f", result.seconds / max(took, 1e-6)))× real time)\n"
    }

    /// Refuses before rendering when the output's disk cannot hold the longest WAV it may be.
    func checkSpace(bytes: UInt64) throws {
        let folder = OutputFile.split(output).folder
        var fs = statvfs()
        guard statvfs(folder, &fs) == 0 else { return }
        let free = UInt64(fs.f_bavail) &* UInt64(fs.f_frsize)
        // The old file (if any) stays until the new one is whole: both need room.
        guard bytes + 1_000_000 <= free else {
            throw EtudeFailure("-o \(safe(output)): the WAV may take \(Self.size(bytes)) and \(safe(folder)) has \(Self.size(free)) free; free some space or write elsewhere")
        }
    }

    /// "3 min 20 s", "2,000,000 hours".
    static func length(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "forever" }
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        if seconds < 3600 { return "\(Int(seconds / 60)) min \(Int(seconds.truncatingRemainder(dividingBy: 60))) s" }
        let hours = seconds / 3600
        if hours < 1e12 {
            let f = NumberFormatter()
            f.numberStyle = .decimal
            f.maximumFractionDigits = hours < 100 ? 1 : 0
            return (f.string(from: NSNumber(value: hours)) ?? String(Int(hours))) + " hours"
        }
        return String(format: "%.3g hours", hours)
    }

    /// "1.3 GB".
    static func size(_ bytes: UInt64) -> String {
        bytes >= 1_000_000_000 ? String(format: "%.1f GB", Double(bytes) / 1e9) : String(format: "%.0f MB", Double(bytes) / 1e6)
    }
}
