import Clocks
import Foundation
import Judge
import Listening
import MIDIFile
import MIDIInput
import Synth

/// The learner's instrument wired up for a command: opens `--input`, sends every played note to
/// the synth at once (so the learner hears what they play, on its own channel and program), and
/// hands each note to the caller (the Coach, a recorder, a quiz) as a `PlayedEvent`.
///
/// When MIDI input is impossible here (no ALSA sequencer, no keyboard) it falls back to the
/// computer keyboard with a one-line `notice`; the terminal feeds keys through `press(_:at:)`
/// and calls `releaseDue(now:)` so the fixed-length notes end. A FIFO closed by its writer
/// ends the input with a message (`onStatus`), and the lesson carries on.
public final class InputHookup: @unchecked Sendable {
    /// Channel the learner's notes sound on: apart from the lesson's channels (and not the drums').
    public static let defaultChannel: UInt8 = 15

    /// Shown once when Etude fell back to the computer keyboard.
    public let notice: String?
    /// The MIDI source's name, nil when the computer keyboard is the instrument.
    public let sourceName: String?
    public let channel: UInt8
    private let output: (any SoundOutput)?
    private let onNote: @Sendable (PlayedEvent) -> Void
    private let onStatus: @Sendable (String) -> Void
    private let onControl: @Sendable (MIDIEvent.Kind) -> Void
    private var source: (any InputSource)?
    private let lock = NSLock()
    private var piano: ComputerKeyboardPiano
    private var endedFlag = false
    private var failureText: String?
    private var sounding: Set<UInt8> = []
    private var soundsPlayedNotes = true
    private var pedalHook: (@Sendable (Bool, Double) -> Void)?

    /// The sustain pedal (controller 64) went down (true) or up at a clock time: the ear judges
    /// a key lifted under it as still sounding.
    public var onPedal: (@Sendable (Bool, Double) -> Void)? {
        get { lock.withLock { pedalHook } }
        set { lock.withLock { pedalHook = newValue } }
    }

    /// A JACK input whose callback sounds the notes itself (then they are not sent again).
    private var jack: JackInput?
    private var echoOn = true
    private var gestureKeys: Set<Int> = []
    private var onGesture: (@Sendable (Int) -> Void)?

    /// Keys that give commands instead of notes (`--gestures`): their notes are never judged,
    /// recorded or sounded by Etude; a key going down calls `handler` with its pitch.
    public func gestures(_ keys: Set<Int>, _ handler: @escaping @Sendable (Int) -> Void) {
        lock.withLock {
            gestureKeys = keys
            onGesture = handler
        }
        jack?.mute(keys: keys)  // the JACK callback echoes by itself: it must skip them too
    }

    /// Whether Etude sounds what the learner plays (`--echo`): off when the instrument sounds
    /// itself, so nothing is heard twice. The lesson and the metronome sound either way.
    public var echo: Bool {
        get { lock.withLock { echoOn } }
        set {
            lock.withLock { echoOn = newValue }
            jack?.echo(channel: newValue ? Int(channel) : nil)
        }
    }

    /// True when notes come from the terminal's keys (onset-only, fixed length).
    public var usesComputerKeyboard: Bool { sourceName == nil }

    /// True when only key presses mean something (the computer keyboard, a microphone): the
    /// practice judges onsets and not how long a key was held.
    public var isOnsetOnly: Bool { usesComputerKeyboard || lock.withLock { source is AudioInput } }

    /// True when the input is a microphone (the learner's piano sounds in the room).
    public var isListening: Bool { lock.withLock { source is AudioInput } }

    /// Tells a listening input (a microphone) which keys the lesson wants at a clock time, so it
    /// listens for those first; other inputs need no telling.
    public func expect(_ body: @escaping @Sendable (Double) -> Set<Int>) {
        if let audio = lock.withLock({ source as? AudioInput }) { audio.expectation = body }
    }

    /// Lets a microphone ignore the keys Etude itself just began (see `OwnSoundTap`).
    public func ignore(_ own: OwnSoundTap) {
        if let audio = lock.withLock({ source as? AudioInput }) { audio.ownSound = { [weak own] t in own?.began(near: t) ?? [:] } }
    }

    /// The microphone's signal as last judged (nil for other inputs), for the header.
    public var listeningSignal: SignalState? { lock.withLock { (source as? AudioInput)?.signal } }

    /// True once the MIDI source has ended (FIFO closed, device gone, not MIDI after all).
    public var ended: Bool { lock.withLock { endedFlag } }

    /// Why the source stopped when it turned out to be no instrument (a stream that is not
    /// MIDI); nil otherwise. A command that only listens to the input ends with it as its error.
    public var failure: String? { lock.withLock { failureText } }

    /// Opens the input. Throws the input's one-line error for problems the user must fix
    /// (unknown port name, unreadable device). `program` is the GM program the learner hears.
    public init(spec: InputSpec, output: (any SoundOutput)?, channel: UInt8 = InputHookup.defaultChannel, program: UInt8 = 0,
                clock: any TimeSource = MonotonicClock(), noteLength: Double = 0.4, listening: ListeningProfile = ListeningProfile(),
                onNote: @escaping @Sendable (PlayedEvent) -> Void, onStatus: @escaping @Sendable (String) -> Void = { _ in },
                onControl: @escaping @Sendable (MIDIEvent.Kind) -> Void = { _ in })
        throws(InputError) {
        self.output = output
        self.channel = channel & 0x0F
        self.onNote = onNote
        self.onStatus = onStatus
        self.onControl = onControl
        piano = ComputerKeyboardPiano(noteLength: noteLength, channel: 0)
        output?.send(.programChange(channel: self.channel, program: program & 0x7F))
        let box = HookupBox()
        let opened = try spec.open(clock: clock, listening: listening) { event in box.deliver(event) }
        source = opened.source
        sourceName = opened.source?.name
        // An acoustic piano sounds by itself: Etude never echoes what a microphone hears (it
        // would hear its own echo again).
        soundsPlayedNotes = !(opened.source is AudioInput)
        notice = opened.notice
        jack = opened.source as? JackInput
        jack?.echo(channel: Int(self.channel))
        box.attach(self)
    }

    /// A computer-keyboard key (the caller decides which keys are piano keys). Returns true
    /// when the key belonged to the piano layout (a note or an octave change).
    @discardableResult
    public func press(_ key: Character, at time: Double) -> Bool {
        let events = lock.withLock { piano.press(key, at: time) }
        for e in events { receive(e) }
        return !events.isEmpty
    }

    /// Ends computer-keyboard notes whose fixed length ran out; call on each frame/tick.
    public func releaseDue(now: Double) {
        let due = lock.withLock { piano.releases(dueBy: now) }
        for n in due { receive(.note(n)) }
    }

    /// What to type on the computer keyboard for `pitch` now ("d", "z g"): wait mode names it.
    public func computerKeys(for pitch: Int) -> String { lock.withLock { piano.layout.keys(for: pitch) } }

    /// The computer-keyboard layout's help lines (for the help overlay / status).
    public var keyboardHelp: [String] { lock.withLock { piano.layout.helpLines } }

    /// Stops the source and silences the learner's channel: no hanging notes.
    public func stop() {
        let s = lock.withLock { () -> (any InputSource)? in
            let s = source
            source = nil
            return s
        }
        s?.stop()
        let held = lock.withLock { () -> Set<UInt8> in
            let h = sounding
            sounding = []
            return h
        }
        for k in held.sorted() { output?.send(.noteOff(channel: channel, key: k, velocity: 0)) }
        output?.send(.controlChange(channel: channel, controller: 64, value: 0))
    }

    fileprivate func receive(_ event: InputEvent) {
        if case .note(let n) = event, let gesture = lock.withLock({ gestureKeys.contains(Int(n.pitch)) ? onGesture : nil }) {
            if n.isOn && n.velocity > 0 { gesture(Int(n.pitch)) }
            return
        }
        let soundedAlready = (jack?.soundsItself ?? false) || !echo
        switch event {
        case .note(let n) where soundedAlready:
            onNote(PlayedEvent(pitch: Int(n.pitch), velocity: Int(n.velocity), time: n.time, isOn: n.isOn, channel: Int(n.channel)))
        case .control where soundedAlready:
            break
        case .note(let n):
            // Sound first: the learner must hear the key at once.
            if !soundsPlayedNotes {
                // The instrument sounds by itself.
            } else if n.isOn {
                output?.send(.noteOn(channel: channel, key: n.pitch, velocity: max(1, n.velocity)))
                lock.withLock { _ = sounding.insert(n.pitch) }
            } else {
                output?.send(.noteOff(channel: channel, key: n.pitch, velocity: 0))
                lock.withLock { _ = sounding.remove(n.pitch) }
            }
            onNote(PlayedEvent(pitch: Int(n.pitch), velocity: Int(n.velocity), time: n.time, isOn: n.isOn, channel: Int(n.channel)))
        case .control(let kind, let time):
            if case .controlChange(_, 64, let v) = kind { lock.withLock { pedalHook }?(v >= 64, time) }
            switch kind {
            case .controlChange(_, let c, let v): output?.send(.controlChange(channel: channel, controller: c, value: v))
            case .pitchBend(_, let v): output?.send(.pitchBend(channel: channel, value: v))
            default: break
            }
            onControl(kind)
        case .status(let text):
            onStatus(text)
        case .ended(let text):
            lock.withLock { endedFlag = true }
            onStatus(text)
        case .failed(let text):
            lock.withLock {
                endedFlag = true
                failureText = text
            }
            onStatus(text)
        }
    }
}

/// Lets the input handler reach the hookup once it is fully built (the source may start
/// delivering before `init` returns).
/// Hands input events to the hookup. The input starts reading before the hookup finishes
/// initialising, so events that arrive in between wait here and are delivered, in order,
/// the moment it attaches: a note played as the port connects is never lost.
private final class HookupBox: @unchecked Sendable {
    private let lock = NSLock()
    private weak var value: InputHookup?
    private var attached = false
    private var early: [InputEvent] = []

    func deliver(_ event: InputEvent) {
        let target: InputHookup? = lock.withLock {
            guard attached else {
                early.append(event)
                return nil
            }
            return value
        }
        target?.receive(event)
    }

    func attach(_ hookup: InputHookup) {
        // Deliver under the lock so the input thread's next event waits for the early ones.
        lock.lock()
        defer { lock.unlock() }
        value = hookup
        attached = true
        for e in early { hookup.receive(e) }
        early = []
    }
}

/// What Etude itself sounds, remembered key by key, so a microphone in the same room can tell
/// Etude's own notes (the other hand, the accompaniment) from the learner's: a note Etude began
/// a moment before the microphone heard that key is not taken for the learner's (the gate; the
/// help still recommends headphones, which keep Etude's sound out of the microphone entirely).
public final class OwnSoundTap: SoundOutput, @unchecked Sendable {
    private let inner: any SoundOutput
    private let clock: any TimeSource
    private let lock = NSLock()
    private var started = [Double](repeating: -.infinity, count: 128)

    public init(_ inner: any SoundOutput, clock: any TimeSource = MonotonicClock()) {
        self.inner = inner
        self.clock = clock
    }

    public func send(_ message: MIDIEvent.Kind) {
        if case .noteOn(_, let key, let velocity) = message, velocity > 0, key < 128 {
            let now = clock.now
            lock.withLock { started[Int(key)] = now }
        }
        inner.send(message)
    }

    public func allNotesOff() { inner.allNotesOff() }

    /// The keys Etude began within the moment before clock time `time` in which a microphone
    /// would hear them as new notes (300 ms: the listener's window and the room), each with the
    /// seconds from its start to `time`.
    public func began(near time: Double) -> [Int: Double] {
        let copy = lock.withLock { started }
        var out: [Int: Double] = [:]
        for (k, at) in copy.enumerated() where at >= time - 0.3 && at <= time + 0.05 { out[k] = time - at }
        return out
    }
}
