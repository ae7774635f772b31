import Devices
import Foundation
import Lesson
import LessonLibrary
import MIDIInput
import Reports
import Store
import Synth

/// Everything a practice needs, built once from what was asked (issue 36 step 3): the lesson
/// read once and fitted once (its key, the learner's keyboard), the plan built from that lesson
/// and validated once (its rules are Lesson's: `PlanRequest`, `PracticePlan.validate(for:)`),
/// and the history it is written to. `etude practice`, `resume`, `loop`, a routine's entries
/// and the browser's Enter each make one, and differ only in the request.
public struct PracticeSetup: Sendable {
    /// The lesson as practised: transposed, a hand moved onto the keyboard when asked.
    public var opened: OpenedLesson
    /// The plan, validated against `opened.lesson`, with the learner's keyboard on it.
    public var plan: PracticePlan
    /// Where passes go (nil: not asked for, or the library could not be opened: said then).
    public var history: StoreHistory?
    /// Lines for the learner before the music starts: notes the keyboard leaves to Etude, a
    /// hand moved by octaves. The caller says them where it speaks (stderr, a routine's lines).
    public var notices: [String]

    /// Which transposition the lesson is opened in.
    public enum Key: Sendable {
        /// `--transpose` as given (nil: the one remembered for the lesson); with a library a
        /// given one is remembered for the lesson, `0` forgets it.
        case asked(Transposition.Request?)
        /// A routine entry's own: used, never remembered for the lesson.
        case fixed(Transposition.Request)
        /// A saved loop's own, as the library stored it: read once, used, never remembered.
        case stored(String)
    }

    /// The learner's keyboard: `--keys`/`--range`/`--fit` as given (else the one remembered for
    /// `input`'s device), remembered for the device once the plan fits.
    public struct Keyboard: Sendable {
        public var keys: KeyboardKeysArgument?
        public var range: KeyboardRangeArgument?
        public var fit: OctaveFit?
        public var input: InputSpec

        public init(keys: KeyboardKeysArgument? = nil, range: KeyboardRangeArgument? = nil, fit: OctaveFit? = nil, input: InputSpec) {
            self.keys = keys
            self.range = range
            self.fit = fit
            self.input = input
        }
    }

    /// What a front end asks for.
    public struct Request {
        public var path: String
        public var split: Int?
        public var key: Key = .asked(nil)
        /// The plan for the opened lesson (its bars read as that lesson numbers them).
        public var plan: (Lesson) throws(PlanError) -> PracticePlan
        /// Nil: no keyboard (every key; a loop or a watched entry).
        public var keyboard: Keyboard?
        /// Remembered settings and the history; nil: neither.
        public var library: Library?
        /// Whether passes go to the history.
        public var history = true
        /// A plan's problem in the front end's words (`--bars 40-44: …`, `bars=40-44: …`).
        public var words: (PlanError) -> String = { $0.worded { "--\($0.rawValue) \($1)" } }

        public init(path: String, split: Int? = nil, key: Key = .asked(nil), keyboard: Keyboard? = nil, library: Library?,
                    history: Bool = true, plan: @escaping (Lesson) throws(PlanError) -> PracticePlan) {
            self.path = path
            self.split = split
            self.key = key
            self.keyboard = keyboard
            self.library = library
            self.history = history
            self.plan = plan
        }
    }

    public init(opened: OpenedLesson, plan: PracticePlan, history: StoreHistory? = nil, notices: [String] = []) {
        self.opened = opened
        self.plan = plan
        self.history = history
        self.notices = notices
    }

    /// The setup `request` asks for: every failure a user can fix is one line (`EtudeFailure`).
    public static func make(_ request: Request) throws -> PracticeSetup {
        var opened: OpenedLesson
        switch request.key {
        case .asked(let given): opened = try LessonFit.open(request.path, split: request.split, transpose: given, library: request.library)
        case .fixed(let own): opened = try LessonFit.transposed(LessonOpener.open(request.path, split: request.split), own)
        case .stored(let text):
            opened = try LessonFit.transposed(LessonOpener.open(request.path, split: request.split), LessonFit.stored(text))
        }
        var plan: PracticePlan
        do { plan = try request.plan(opened.lesson) } catch { throw EtudeFailure(request.words(error)) }
        var notices: [String] = []
        var remember = {}
        if let k = request.keyboard {
            let fit = try LessonFit.keyboard(keys: k.keys, range: k.range, fit: k.fit, input: k.input, library: request.library)
            notices = LessonFit.apply(fit.keyboard, fitOctave: fit.fitOctave, to: &opened, plan: &plan)
            remember = fit.remember
        }
        // Once, on the lesson and keyboard as practised: bars, hands, a keyboard leaving nothing to play.
        do { try plan.validate(for: opened.lesson) } catch { throw EtudeFailure(request.words(error)) }
        remember()
        let history = request.history ? request.library.flatMap { StoreHistory.open($0, path: request.path) } : nil
        return PracticeSetup(opened: opened, plan: plan, history: history, notices: notices)
    }
}

extension PracticeSetup {
    /// The sound and the learner's instrument of a practice, opened once (issue 36 step 3): the
    /// live synth (its audio buffer remembered in the library), the learner's `--input` (an
    /// unknown port or unreadable device is one line, before any screen opens), its echo
    /// (`--echo`, remembered per device), the lesson's output (`--sound`, `--midi-out`) and the
    /// key lights. The practice screen (practice, resume, the browser's Enter) and a routine
    /// (one for all its entries) get them from here; `close()` undoes it all (notes off).
    public final class Devices: @unchecked Sendable {
        /// The live synth.
        public let live: FluidSynthLive
        /// Where the lesson sounds: the synth, `etude:midi_out`, or both.
        public let lesson: LessonOutput
        /// The learner's instrument (nil when nothing is played: a routine of watched entries).
        public let instrument: Instrument?
        /// The echo applied to the instrument (`--echo`, or remembered, or asked), for the header;
        /// nil for the computer keyboard and a microphone.
        public let echo: String?
        /// `--lights`: the keys to play next, lit on the keyboard.
        public let lights: KeyLights?
        private var closed = false

        init(live: FluidSynthLive, lesson: LessonOutput, instrument: Instrument?, echo: String?, lights: KeyLights?) {
            self.live = live
            self.lesson = lesson
            self.instrument = instrument
            self.echo = echo
            self.lights = lights
        }

        /// Lights off, the instrument stopped, the synth closed (all notes off). Safe twice.
        public func close() {
            guard !closed else { return }
            closed = true
            lights?.clear()
            lesson.allNotesOff()
            instrument?.stop()
            live.close()
        }
    }

    /// Opens the devices a practice plays through: `sound` (its buffer remembered in
    /// `playing.library`), then, when `instrument`, `playing.input` with its echo; the synth's
    /// notices (a grown buffer, JACK gone) go to the instrument's status line when
    /// `noticesOnScreen`. Every failure is one line and leaves nothing open.
    public static func open(sound: LiveSound, playing: Playing, instrument wanted: Bool = true,
                            noticesOnScreen: Bool = true) throws -> Devices {
        let live = try sound.remembering(in: playing.library).open()
        var instrument: Instrument?
        let echo: String?
        do {
            if wanted { instrument = try Instrument(input: playing.input, output: live, library: playing.library) }
            if noticesOnScreen, let instrument { live.onNotice = { instrument.status($0) } }
            echo = instrument.flatMap { EchoChoice.apply(to: $0.hookup, explicit: sound.echo, library: playing.library) }
        } catch {
            live.close()
            throw error
        }
        let lesson: LessonOutput
        do {
            lesson = try sound.lesson(live)  // closes the synth when it throws
        } catch {
            instrument?.stop()
            throw error
        }
        do {
            return Devices(live: live, lesson: lesson, instrument: instrument, echo: echo, lights: try sound.keyLights())
        } catch {
            lesson.allNotesOff()
            instrument?.stop()
            live.close()
            throw error
        }
    }
}
