import Foundation
import Jack
import LessonLibrary
import Reports
import Screen
import Synth

/// The one way a command opens the live synth: the SoundFont found (or one line naming the
/// paths tried and the package to install), progress while a big one loads, FluidSynth's log
/// only when asked, and without an audio device a warning printed once per process — the
/// session goes on silently and its screen says so (`silentNotice`).
public struct LiveSound: Sendable {
    public var soundfont: String?
    public var audioDriver: String?
    public var verbose = false
    public var periodSize: Int?
    public var periods: Int?
    public var rate: Int?
    /// `--audio-buffer MS`: the synth's buffer length to aim for (nil = the default, 40 ms,
    /// unless `periodSize` is given).
    public var bufferMilliseconds: Double?
    /// `--echo on|off` (nil: the choice remembered for the input device, see `EchoChoice`).
    public var echo: Bool?
    /// `--sound`: where the lesson is heard (nil: the synth, or both with `--midi-out`).
    public var lessonSound: LessonSound?
    /// `--midi-out PORT`: connected to `etude:midi_out` before the first note.
    public var midiOut: String?
    /// `--lights CHANNEL` (0–15 here): the keys to play next, lit through `etude:midi_out`.
    public var lights: Int?
    /// `--gestures`: hands-free commands from keys outside the lesson (nil: off).
    public var gestures: Gestures?
    /// `--metronome-out CHANNEL` (0–15 here): the clicks to the instrument on that channel
    /// (nil: on Etude's synth only).
    public var metronomeOut: Int?
    /// Where the PulseAudio buffer learned per output device is remembered (nil: found again
    /// each time; `AudioBufferMemory`).
    public var library: Library?

    /// These settings with the instrument options a command was given (each checked where it
    /// was typed): `--echo`, `--sound`, `--midi-out`, `--lights`, `--gestures`.
    public func instrument(echo: EchoChoice.Setting?, sound: LessonSound?, midiOut: String?, lights: KeyLights.Channel?,
                           gestures: Gestures.Setting?, metronomeOut: MetronomeOut.Channel? = nil) -> LiveSound {
        var s = self
        s.metronomeOut = metronomeOut?.index
        s.echo = echo?.on
        s.lessonSound = sound
        s.midiOut = midiOut
        s.lights = lights?.index
        s.gestures = gestures?.gestures
        return s
    }

    /// These settings remembering the audio buffer in `library`, unless one was given already.
    public func remembering(in library: Library?) -> LiveSound {
        var s = self
        s.library = s.library ?? library
        return s
    }

    /// The lesson's output for `live`, routed as `--sound` and `--midi-out` say (one line when
    /// etude:midi_out has no JACK server or the port does not exist).
    public func lesson(_ live: FluidSynthLive) throws -> LessonOutput {
        do {
            return try live.routeLesson(lessonSound ?? (midiOut == nil ? .synth : .both), midiOut: midiOut, route: instrumentRoute)
        } catch {
            live.close()
            throw EtudeFailure(error.message)
        }
    }

    public init(soundfont: String? = nil, audioDriver: String? = nil, verbose: Bool = false, periodSize: Int? = nil,
                periods: Int? = nil, rate: Int? = nil, bufferMilliseconds: Double? = nil) {
        self.soundfont = soundfont
        self.audioDriver = audioDriver
        self.verbose = verbose
        self.periodSize = periodSize
        self.periods = periods
        self.rate = rate
        self.bufferMilliseconds = bufferMilliseconds
    }

    /// `--audio-buffer MS` checked: one line naming the range when it is outside it
    /// (`AudioBufferMilliseconds`' rule).
    public static func bufferMilliseconds(_ text: String?) throws -> Double? {
        guard let text else { return nil }
        do {
            return try AudioBufferMilliseconds(parsing: text).milliseconds
        } catch {
            throw EtudeFailure(error.worded(option: "--audio-buffer"))
        }
    }

    /// `--jack-name`: names Etude's one JACK client, before anything opens it. One line for a bad name.
    public static func name(jackClient jackName: String?) throws {
        guard let jackName else { return }
        guard !jackName.isEmpty, jackName.count <= 60, !jackName.contains(":"),
              jackName.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw EtudeFailure("--jack-name \(safe(jackName)): give a client name of 1–60 characters without ':' (e.g. etude2)")
        }
        JackClient.configure(name: jackName)
    }

    /// The synth's options as this command asks for them.
    var options: FluidSynthLive.Options {
        var options = FluidSynthLive.Options()
        if let audioDriver { options.drivers = [audioDriver] }
        if let periodSize {
            options.periodSize = periodSize
            options.bufferTargetMilliseconds = nil  // frames as given
        }
        if let periods { options.periods = periods }
        options.sampleRate = rate.map(Double.init)
        if let bufferMilliseconds { options.bufferTargetMilliseconds = bufferMilliseconds }
        // A buffer the learner chose only grows on underruns; the default looks for the smallest.
        options.probesDown = periodSize == nil && bufferMilliseconds == nil
        return options
    }

    /// Which driver the live synth opens here and its buffer, without a SoundFont or a sound.
    public func check() -> FluidSynthLive.AudioCheck {
        let result = FluidSynthLive.check(options: options)
        Self.flushLog(verbose: verbose)
        return result
    }

    /// Opens the synth. Without an audio device it warns once (stderr) and stays silent.
    public func open() throws -> FluidSynthLive {
        if let midiOut {  // nowhere to send the lesson: one line before the synth loads
            do { try FluidSynthLive.checkReachable(midiOut: midiOut) } catch { throw EtudeFailure(error.message) }
        }
        if lights != nil { _ = try keyLights() }  // the same for key lights without a JACK server
        let font = try Self.soundFont(soundfont)
        let live: FluidSynthLive
        do {
            live = try FluidSynthLive(soundFont: font, options: options, onSlowLoad: Self.slowLoadReporter(font))
            Self.endProgressLine()
        } catch {
            Self.endProgressLine()
            Self.flushLog(verbose: verbose)
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        // The JACK server stopping mid-lesson, or the PulseAudio buffer growing: one line (the
        // practice screen shows it instead).
        live.onNotice = { Console.error("etude: \($0)") }
        if verbose { live.onBufferChange = { Console.error($0) } }
        if let warning = live.warning {
            Self.warnOnce(warning)
        } else if verbose, let driver = live.driver {
            let rate = live.engine.sampleRate
            let o = live.options
            Console.error("audio: \(driver), \(o.periodSize) × \(o.periods) frames at \(Int(rate)) Hz (\(String(format: "%.1f", o.bufferMilliseconds(at: rate))) ms buffer, audio flowing after \(String(format: "%.0f", live.audioStartup * 1000)) ms)")
        }
        if let line = AudioBufferMemory.attach(live, library: library), verbose { Console.error(line) }
        Self.flushLog(verbose: verbose)
        return live
    }

    /// The status-line marker for a synth that has no audio device (nil when it plays).
    public static func silentNotice(_ live: FluidSynthLive) -> String? {
        live.driver == nil ? StatusBarWidget.silentWords : nil
    }

    private static let warned = WarnedOnce()

    /// The no-device warning, once per process however many lessons are opened.
    static func warnOnce(_ warning: String) {
        if warned.first() { Console.error("etude: \(warning)") }
    }

    /// The SoundFont to use, or one line naming the paths tried and the package to install.
    public static func soundFont(_ explicit: String?) throws -> String {
        do {
            return try SoundFontLocator(explicit: explicit).locate()
        } catch {
            throw EtudeFailure(error.message)
        }
    }

    /// Progress shown while a large SoundFont loads (> 0.5 s), on a terminal only.
    public static func slowLoadReporter(_ path: String) -> (@Sendable (Double) -> Void)? {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).flatMap { $0 } ?? 0
        let name = safe((path as NSString).lastPathComponent)
        return { elapsed in
            Console.progress("loading SoundFont \(name) (\(size / 1_000_000) MB)… \(String(format: "%.1f", elapsed)) s")
        }
    }

    /// Ends a progress line started by `slowLoadReporter` (if it printed anything).
    public static func endProgressLine() {
        if isatty(STDERR_FILENO) != 0 { Console.clearProgress() }
    }

    /// Prints FluidSynth's captured log when asked, always clears it.
    public static func flushLog(verbose: Bool) {
        let log = FluidSynthLog.take()
        if verbose && !log.isEmpty {
            for line in log.split(separator: "\n") { Console.error(safe(String(line))) }
        }
    }
}

/// True the first time only (thread-safe).
final class WarnedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func first() -> Bool { lock.withLock { let was = done; done = true; return !was } }
}
