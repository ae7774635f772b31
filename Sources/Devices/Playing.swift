import Clocks
import Foundation
import Judge
import Lesson
import LessonLibrary
import Listening
import MIDIInput
import Practice
import Reports
import Synth

/// How the learner plays along (`--mode`, `--input`…): the instrument and how strictly it is
/// judged. Shared by `practice`, `resume` and routine entries.
public struct Playing: Sendable {
    public var mode: PracticeMode = .watch
    /// The real-time modes count in before each pass (`--no-count-in` turns it off).
    public var countIn = true
    /// Watch mode plays the piece once unless a loop is on (false when `--repeat` was given).
    public var watchStopsAtEnd = true
    /// The judging modes hold after each pass until a key (routines flow on instead).
    public var holdAfterPass = true
    public var input = InputSpec.computerKeyboard
    /// `--input` was given: the instrument set up (`MyInstrument`) does not replace it.
    public var inputChosen = false
    public var window = TimingWindow()
    public var threshold = 90.0
    public var reportPath: String?
    /// Files `--report` must not be (the lesson, the SoundFont, the input device or FIFO, the
    /// database): `OutputFile` refuses them before the file is opened.
    public var reportInputs: [String] = []
    public var saveDirectory = FileManager.default.currentDirectoryPath
    /// `--offset MS`: the input offset for this session instead of the calibrated one.
    public var offsetMs: Double?
    /// Where the calibrated offsets are (nil: none are looked up).
    public var library: Library?
    /// `--guide on|off`; nil: as last chosen for the lesson (off at first).
    public var guide: Bool?
    /// `--follow`: Etude's part keeps the learner's tempo (play and memory mode).
    public var follow = false
    /// `--recording FILE`: practised with a recording of the lesson (`RecordingPractice`).
    public var recording: String?

    public init() {}
}

/// The learner's instrument (`--input`), opened once: its notes sound at once and go to
/// whichever session is current (`session`), so a routine keeps one MIDI port or FIFO for all
/// its entries. The computer keyboard is an instrument too (its keys arrive as commands).
public final class Instrument: @unchecked Sendable {
    public let hookup: InputHookup
    /// How late a microphone's keys arrive after they sound (its listener's decision, from
    /// `etude calibrate --input audio` or the default): what `--follow` makes up. 0 for keys.
    public let hearingDelay: Double
    private let lock = NSLock()
    private var current: PracticeSession?
    /// The input's last status line ("/dev/zero is not MIDI …"), kept so a line that comes
    /// before the screen's session exists is still shown when it attaches.
    private var lastStatus: String?

    /// The session the learner is playing to now (nil between lessons).
    public var session: PracticeSession? {
        get { lock.withLock { current } }
        set {
            let pending = lock.withLock { () -> String? in
                current = newValue
                defer { lastStatus = nil }
                return lastStatus
            }
            if let session = newValue {
                hookup.expect { [weak session] t in session?.coach.expectedPitches(near: t) ?? [] }
                hookup.expectDue { [weak session] t in session?.coach.expectedDue(near: t) ?? [:] }
            }
            if let pending { newValue?.show(message: pending) }
        }
    }

    /// A status line from the input: shown now, or on the next session attached.
    package func status(_ text: String) {
        let shown = lock.withLock { () -> PracticeSession? in
            if current == nil { lastStatus = text }
            return current
        }
        shown?.show(message: text)
    }

    /// Opens `input`; an unknown port or unreadable device is one line. Notes sound on `output`.
    /// A microphone listens with the set-up `etude calibrate` stored for it in `library`.
    public init(input: InputSpec, output: any SoundOutput, library: Library? = nil) throws {
        let box = InstrumentBox()
        let setUp = AudioSetup.profile(input: input, library: library)
        do {
            hookup = try InputHookup(spec: input, output: output, clock: MonotonicClock(), listening: setUp ?? ListeningProfile(),
                                     onNote: { e in
                                         // Posted, never waited on: the input's thread goes back to its port at once.
                                         box.instrument?.session?.post(.played(LearnerNote(pitch: e.pitch, velocity: e.velocity, isOn: e.isOn, time: e.time)))
                                     },
                                     onStatus: { text in box.status(safe(text)) })
        } catch {
            throw EtudeFailure(error.message)
        }
        hearingDelay = hookup.isListening ? (setUp ?? ListeningProfile()).latency : 0
        box.instrument = self
        hookup.onPedal = { down, time in box.instrument?.session?.post(.pedal(down: down, at: time)) }
        if let early = box.takeEarlyStatus() { status(early) }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        if hookup.isListening, let line = AudioSetup.notice(input: input, profile: setUp) { status(line) }
    }

    /// Ends the computer keyboard's notes whose fixed length ran out. Call it on each frame of
    /// the screen whose keys reach `press` (the front end's thread owns the computer keyboard).
    public func releaseDue(now: Double) { hookup.releaseDue(now: now) }

    /// Wires the controller's piano keys to the computer keyboard (pressed on the screen's
    /// thread; the screen's frames call `releaseDue(now:)`).
    public func attach(_ controller: PracticeController) {
        let hookup = self.hookup
        controller.onPianoKey = { key, time in hookup.press(key, at: time) }
        if hookup.usesComputerKeyboard {
            controller.session.computerKeys = { pitch in hookup.computerKeys(for: pitch) }
        }
        session = controller.session
    }

    public func stop() { hookup.stop() }
}

/// Lets the input's handler reach the instrument once it is built (the source may start
/// delivering before `init` returns).
private final class InstrumentBox: @unchecked Sendable {
    private let lock = NSLock()
    private weak var value: Instrument?
    private var early: String?
    var instrument: Instrument? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }

    /// A status line to the instrument, or kept until it exists.
    func status(_ text: String) {
        let target = lock.withLock { () -> Instrument? in
            if value == nil { early = text }
            return value
        }
        target?.status(text)
    }

    func takeEarlyStatus() -> String? {
        lock.withLock {
            defer { early = nil }
            return early
        }
    }
}
