import Foundation
import Jack
import Judge
import LessonLibrary
import MIDIInput
import Practice
import Reports
import Store

/// The names settings are stored under, one per input device (`InputDeviceID` in MIDIInput:
/// an opened source's `deviceID`, or `InputSpec.deviceID` before it opens), as the learner reads them.
public enum InputDevice {
    /// The computer keyboard (`--input keys`, or the fallback when no MIDI keyboard is found).
    public static let computerKeyboard = InputDeviceID.computerKeyboard

    /// What the learner reads: "the computer keyboard", "MIDI port Digital Piano", a path.
    public static func description(_ device: String) -> String {
        if device == computerKeyboard { return "the computer keyboard" }
        if device.hasPrefix("midi:") { return "MIDI port " + safe(String(device.dropFirst(5))) }
        if device == "audio" { return "the default microphone" }
        if device.hasPrefix("audio:") { return "microphone " + safe(String(device.dropFirst(6))) }
        if device.hasPrefix("jack:") { return "JACK port " + safe(String(device.dropFirst(5))) }
        return safe(device)
    }
}

/// The timing offset a session judges with, looked up once per input: `--offset` when given,
/// else the offset `etude calibrate` stored for the device in use, else none — and, for a
/// learner who never calibrated, the suggestion to (shown once, remembered in the library).
public struct InputTiming: Sendable {
    public enum Source: String, Sendable {
        case override, calibrated, none
    }

    /// The device in use (see `InputDevice`).
    public var device: String
    /// Subtracted from every played time (ms; positive = the learner's keys arrive late).
    public var offsetMs: Double
    public var source: Source
    /// Asked after each pass judged in real time: the line suggesting `etude calibrate`, once.
    public var hint: (@Sendable (PassReport) -> String?)?

    /// The notice name under which the suggestion is remembered as shown.
    public static let hintNotice = "calibrate-hint"

    /// The timing for an opened input. A library that cannot be opened means no stored offset
    /// and no hint (practice goes on; the history says why it is off).
    public static func lookUp(hookup: InputHookup?, override: Double?, library: Library?) -> InputTiming {
        let device = hookup?.deviceID ?? InputDevice.computerKeyboard
        if let override { return InputTiming(device: device, offsetMs: override, source: .override) }
        guard let store = library?.storeIfAvailable else {
            return InputTiming(device: device, offsetMs: 0, source: .none)
        }
        if let stored = try? store.inputOffset(device: device) {
            return InputTiming(device: device, offsetMs: stored.offsetMs, source: .calibrated)
        }
        let calibratedBefore = !((try? store.inputOffsets()) ?? []).isEmpty
        let shown = (try? store.wasShown(notice: hintNotice)) ?? true
        var timing = InputTiming(device: device, offsetMs: 0, source: .none)
        if !calibratedBefore && !shown { timing.hint = hint() }
        return timing
    }

    /// The suggestion after a pass whose hits were steadily off, the first time only: decided
    /// in memory (the library said at `lookUp` it was never shown). The session emits
    /// `PracticeEffect.calibrateHintShown` when it shows it; `remembering(in:)` performs that.
    static func hint() -> @Sendable (PassReport) -> String? {
        let told = OnceFlag()
        return { report in
            guard Calibration.suggestsCalibrating(report.figures), told.take() else { return nil }
            return hintLine(meanMs: report.figures.timingMeanMs)
        }
    }

    /// Remembers in `library` that the calibrate hint was shown (the effects thread performs
    /// `.calibrateHintShown` with it, never the runner or the screen).
    public static func remembering(in library: Library?) -> @Sendable () -> Void {
        { _ = try? library?.storeIfAvailable?.markShown(notice: hintNotice) }
    }

    /// "hits 62 ms late on average, steadily: `etude calibrate` measures your offset once".
    public static func hintLine(meanMs: Double) -> String {
        "hits \(Int(abs(meanMs).rounded())) ms \(TimingLean(meanMs: meanMs).word) on average, steadily: `etude calibrate` measures your offset once"
    }

    /// `--offset MS` checked: one line naming the range when it is outside it (`InputOffsetMilliseconds`'s rule).
    public static func override(_ text: String?) throws -> Double? {
        guard let text else { return nil }
        do { return try InputOffsetMilliseconds(parsing: text).milliseconds } catch { throw EtudeFailure(error.worded(option: "--offset")) }
    }
}

/// True the first time `take()` is called, false after (from any thread).
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = false

    func take() -> Bool {
        lock.withLock {
            defer { taken = true }
            return !taken
        }
    }
}
