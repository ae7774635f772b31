import Clocks
import Foundation
import Judge
import Listening
import MIDIFile
import MIDIInput
import Synth
import Synchronization

/// The learner's instrument wired up for a command: opens `--input`, sends every played note to
/// the synth at once (so the learner hears what they play, on its own channel and program), and
/// hands each note to the caller (the Coach, a recorder, a quiz) as a `PlayedEvent`.
///
/// When MIDI input is impossible here (no ALSA sequencer, no keyboard) it falls back to the
/// computer keyboard with a one-line `notice`; the terminal feeds keys through `press(_:at:)`
/// and calls `releaseDue(now:)` so the fixed-length notes end. A FIFO closed by its writer
/// ends the input with a message (`onStatus`), and the lesson carries on.
///
/// No lock. Which thread owns what:
/// - The input's thread runs the handler: `HookupInput`, built whole before the source starts
///   (so nothing played as the port connects is lost or waits in a buffer). What it shares with
///   other threads is atomic: the echo switch, the keys Etude sounds for the learner, the ended
///   flag and the failure (set once), and the gesture keys and pedal hook (an immutable
///   `HookupRoutes` swapped atomically by `gestures(_:_:)` and `onPedal`).
/// - The front end's thread (the one reading the terminal's keys: the practice screen, a
///   routine's screen, `record`, `quiz`) owns the computer-keyboard piano: it alone calls
///   `press(_:at:)` and `releaseDue(now:)`. `computerKeys(for:)` and `keyboardHelp` read an
///   atomic copy of the layout's octave, from any thread.
/// - The source, its name, its device id and the notice are set before `init` returns; `stop()`
///   stops the source once (an atomic flag), after which the input thread is gone.
public final class InputHookup: @unchecked Sendable {
    /// Channel the learner's notes sound on: apart from the lesson's channels (and not the drums').
    public static let defaultChannel: UInt8 = 15

    /// Shown once when Etude fell back to the computer keyboard.
    public let notice: String?
    /// The MIDI source's name, nil when the computer keyboard is the instrument.
    public let sourceName: String?
    public let channel: UInt8
    private let output: (any SoundOutput)?
    /// What the input's thread runs (and `press`/`releaseDue` on the front end's thread).
    private let input: HookupInput
    private let source: (any InputSource)?
    private let stopped = Atomic<Bool>(false)
    /// An acoustic piano sounds by itself: Etude never echoes what a microphone hears (it
    /// would hear its own echo again).
    private let soundsPlayedNotes: Bool
    /// The front end's thread's alone (see the type's comment): no lock.
    private var piano: ComputerKeyboardPiano
    /// The piano layout's octave as last changed by `press`, for readers on any thread.
    private let octave: Atomic<Int>

    /// The sustain pedal (controller 64) went down (true) or up at a clock time: the ear judges
    /// a key lifted under it as still sounding.
    public var onPedal: (@Sendable (Bool, Double) -> Void)? {
        get { input.routes.onPedal }
        set { input.reroute { HookupRoutes.Values(gestureKeys: $0.gestureKeys, onGesture: $0.onGesture, onPedal: newValue) } }
    }

    /// Keys that give commands instead of notes (`--gestures`): their notes are never judged,
    /// recorded or sounded by Etude; a key going down calls `handler` with its pitch.
    public func gestures(_ keys: Set<Int>, _ handler: @escaping @Sendable (Int) -> Void) {
        input.reroute { HookupRoutes.Values(gestureKeys: keys, onGesture: handler, onPedal: $0.onPedal) }
        source?.mute(keys: keys)  // a source that sounds itself (JACK's callback) must skip them too
    }

    /// Whether Etude sounds what the learner plays (`--echo`): off when the instrument sounds
    /// itself, so nothing is heard twice. The lesson and the metronome sound either way.
    public var echo: Bool {
        get { input.echoOn.load(ordering: .acquiring) }
        set {
            input.echoOn.store(newValue, ordering: .releasing)
            source?.echo(channel: newValue ? Int(channel) : nil)
        }
    }

    /// True when notes come from the terminal's keys (onset-only, fixed length).
    public var usesComputerKeyboard: Bool { sourceName == nil }

    /// The stable name of the device in use, remembered per device (`InputDeviceID`): the
    /// source's own, or `keys` for the computer keyboard.
    public let deviceID: String

    /// What the input in use can do (the computer keyboard: onsets only).
    public var capabilities: InputCapabilities { source?.capabilities ?? .onsetsOnly }

    /// The source while it runs (nil once stopped, as for the computer keyboard).
    private var running: (any InputSource)? { stopped.load(ordering: .acquiring) ? nil : source }

    /// True when only key presses mean something (the computer keyboard, a microphone): the
    /// practice judges onsets and not how long a key was held.
    public var isOnsetOnly: Bool { usesComputerKeyboard || running?.capabilities.contains(.onsetsOnly) == true }

    /// True when the input is a microphone (the learner's piano sounds in the room).
    public var isListening: Bool { running?.capabilities.contains(.listens) == true }

    /// Tells a listening input (a microphone) which keys the lesson wants at a clock time, so it
    /// listens for those first; other inputs need no telling.
    public func expect(_ body: @escaping @Sendable (Double) -> Set<Int>) {
        running?.expect(body)
    }

    /// The same keys with the seconds to each one's due time (`InputSource.expectDue`).
    public func expectDue(_ body: @escaping @Sendable (Double) -> [Int: Double]) {
        running?.expectDue(body)
    }

    /// Lets a microphone ignore the keys Etude itself just began (see `OwnSoundTap`).
    public func ignore(_ own: OwnSoundTap) {
        running?.ignoreOwnSound { [weak own] t in own?.began(near: t) ?? [:] }
    }

    /// The instrument's JACK ports or ALSA keyboard that disappeared (unplugged, switched off), awaited by name
    /// and reconnected when they return; empty while all are there. For the header and wait
    /// mode's pause.
    public var missingPorts: [String] { running?.missingPorts ?? [] }

    /// The microphone's signal as last judged (nil for other inputs), for the header.
    public var listeningSignal: SignalState? { running?.listeningSignal }

    /// True once the MIDI source has ended (FIFO closed, device gone, not MIDI after all).
    public var ended: Bool { input.ended.load(ordering: .acquiring) }

    /// Why the source stopped when it turned out to be no instrument (a stream that is not
    /// MIDI); nil otherwise. A command that only listens to the input ends with it as its error.
    public var failure: String? { input.failure.load()?.text }

    /// Opens the input. Throws the input's one-line error for problems the user must fix
    /// (unknown port name, unreadable device). `program` is the GM program the learner hears.
    public init(spec: InputSpec, output: (any SoundOutput)?, channel: UInt8 = InputHookup.defaultChannel, program: UInt8 = 0,
                clock: any TimeSource = MonotonicClock(), noteLength: Double = 0.4, listening: ListeningProfile = ListeningProfile(),
                onNote: @escaping @Sendable (PlayedEvent) -> Void, onStatus: @escaping @Sendable (String) -> Void = { _ in },
                onControl: @escaping @Sendable (MIDIEvent.Kind) -> Void = { _ in })
        throws(InputError) {
        self.output = output
        self.channel = channel & 0x0F
        piano = ComputerKeyboardPiano(noteLength: noteLength, channel: 0)
        octave = Atomic(piano.layout.baseOctave)
        output?.send(.programChange(channel: self.channel, program: program & 0x7F))
        // Everything the handler reaches is built before the source starts delivering.
        let input = HookupInput(output: output, channel: self.channel, onNote: onNote, onStatus: onStatus, onControl: onControl)
        self.input = input
        let made = spec.makeSource(clock: clock, listening: listening)
        let opened = try spec.start(made) { source in
            let sounds = !source.capabilities.contains(.listens)
            return { [weak source] event in input.receive(event, source: source, soundsPlayedNotes: sounds) }
        }
        source = opened.source
        sourceName = opened.source?.name
        deviceID = opened.source?.deviceID ?? InputDeviceID.computerKeyboard
        soundsPlayedNotes = !(opened.source?.capabilities.contains(.listens) ?? false)
        notice = opened.notice
        source?.echo(channel: Int(self.channel))
    }

    /// A computer-keyboard key (the caller decides which keys are piano keys). Returns true
    /// when the key belonged to the piano layout (a note or an octave change). Front end's
    /// thread only.
    @discardableResult
    public func press(_ key: Character, at time: Double) -> Bool {
        let events = piano.press(key, at: time)
        octave.store(piano.layout.baseOctave, ordering: .relaxed)
        for e in events { input.receive(e, source: source, soundsPlayedNotes: soundsPlayedNotes) }
        return !events.isEmpty
    }

    /// Ends computer-keyboard notes whose fixed length ran out; call on each frame/tick of the
    /// front end's thread (the one that calls `press`).
    public func releaseDue(now: Double) {
        for n in piano.releases(dueBy: now) { input.receive(.note(n), source: source, soundsPlayedNotes: soundsPlayedNotes) }
    }

    /// The layout at the octave `press` left it in.
    private var layout: ComputerKeyboardLayout { ComputerKeyboardLayout(baseOctave: octave.load(ordering: .relaxed)) }

    /// What to type on the computer keyboard for `pitch` now ("d", "z g"): wait mode names it.
    public func computerKeys(for pitch: Int) -> String { layout.keys(for: pitch) }

    /// The computer-keyboard layout's help lines (for the help overlay / status).
    public var keyboardHelp: [String] { layout.helpLines }

    /// Stops the source and silences the learner's channel: no hanging notes.
    public func stop() {
        // `stop()` returns once the source's thread is gone: no key is sounded after it.
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { source?.stop() }
        for k in input.takeSounding() { output?.send(.noteOff(channel: channel, key: k, velocity: 0)) }
        output?.send(.controlChange(channel: channel, controller: 64, value: 0))
    }
}

/// Where the gesture keys and the pedal go: immutable, replaced whole (`HookupInput.reroute`).
/// Each keeps the one it replaced alive (`replaced`), so the input thread's reference, taken
/// without a retain, is never freed under it; the chain (one link per `gestures`/`onPedal` call,
/// a few per routine entry) goes with the hookup.
final class HookupRoutes: Sendable {
    struct Values {
        var gestureKeys: Set<Int> = []
        var onGesture: (@Sendable (Int) -> Void)?
        var onPedal: (@Sendable (Bool, Double) -> Void)?
    }

    let gestureKeys: Set<Int>
    let onGesture: (@Sendable (Int) -> Void)?
    let onPedal: (@Sendable (Bool, Double) -> Void)?
    private let replaced: HookupRoutes?

    init(_ values: Values, replacing replaced: HookupRoutes?) {
        gestureKeys = values.gestureKeys
        onGesture = values.onGesture
        onPedal = values.onPedal
        self.replaced = replaced
    }
}

/// The part of the hookup the input's thread runs, built whole before the source starts: lets
/// and atomics only.
final class HookupInput: Sendable {
    private let output: (any SoundOutput)?
    private let channel: UInt8
    private let onNote: @Sendable (PlayedEvent) -> Void
    private let onStatus: @Sendable (String) -> Void
    private let onControl: @Sendable (MIDIEvent.Kind) -> Void
    let echoOn = Atomic<Bool>(true)
    let ended = Atomic<Bool>(false)
    /// The first failure (a source reports one and stops).
    let failure = AtomicLazyReference<FailureText>()
    /// The current routes, +1 retained here (released when replaced: its successor holds it).
    private let current = Atomic<Unmanaged<HookupRoutes>>(.passRetained(HookupRoutes(.init(), replacing: nil)))
    /// The keys Etude sounds for the learner now, a bit each (0–63, 64–127): set on the input's
    /// thread (or the front end's, for the computer keyboard), emptied by `stop()`.
    private let soundingLow = Atomic<UInt64>(0)
    private let soundingHigh = Atomic<UInt64>(0)

    final class FailureText: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    init(output: (any SoundOutput)?, channel: UInt8, onNote: @escaping @Sendable (PlayedEvent) -> Void,
         onStatus: @escaping @Sendable (String) -> Void, onControl: @escaping @Sendable (MIDIEvent.Kind) -> Void) {
        self.output = output
        self.channel = channel
        self.onNote = onNote
        self.onStatus = onStatus
        self.onControl = onControl
    }

    deinit { current.load(ordering: .acquiring).release() }

    /// The routes now (never freed while this object lives, see `HookupRoutes`).
    var routes: HookupRoutes { current.load(ordering: .acquiring).takeUnretainedValue() }

    /// Replaces the routes with `change` of the current ones (safe from any thread).
    func reroute(_ change: (HookupRoutes) -> HookupRoutes.Values) {
        var old = current.load(ordering: .acquiring)
        while true {
            let new = Unmanaged.passRetained(HookupRoutes(change(old.takeUnretainedValue()), replacing: old.takeUnretainedValue()))
            let (done, seen) = current.compareExchange(expected: old, desired: new, ordering: .acquiringAndReleasing)
            if done {
                old.release()  // `new` holds it now
                return
            }
            new.release()
            old = seen
        }
    }

    private func sounding(_ pitch: UInt8, _ on: Bool) {
        guard pitch < 128 else { return }
        let bit = UInt64(1) << UInt64(pitch & 63)
        switch (pitch < 64, on) {
        case (true, true): soundingLow.bitwiseOr(bit, ordering: .relaxed)
        case (true, false): soundingLow.bitwiseAnd(~bit, ordering: .relaxed)
        case (false, true): soundingHigh.bitwiseOr(bit, ordering: .relaxed)
        case (false, false): soundingHigh.bitwiseAnd(~bit, ordering: .relaxed)
        }
    }

    /// The keys sounding now, ascending; the set is empty after.
    func takeSounding() -> [UInt8] {
        let low = soundingLow.exchange(0, ordering: .relaxed)
        let high = soundingHigh.exchange(0, ordering: .relaxed)
        return (0..<128).filter { k in ((k < 64 ? low : high) >> UInt64(k & 63)) & 1 == 1 }.map(UInt8.init)
    }

    func receive(_ event: InputEvent, source: (any InputSource)?, soundsPlayedNotes: Bool) {
        if case .note(let n) = event {
            let routes = self.routes
            if routes.gestureKeys.contains(Int(n.pitch)), let gesture = routes.onGesture {
                if n.isOn && n.velocity > 0 { gesture(Int(n.pitch)) }
                return
            }
        }
        let soundedAlready = (source?.capabilities.contains(.soundsItself) ?? false) || !echoOn.load(ordering: .acquiring)
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
                sounding(n.pitch, true)
            } else {
                output?.send(.noteOff(channel: channel, key: n.pitch, velocity: 0))
                sounding(n.pitch, false)
            }
            onNote(PlayedEvent(pitch: Int(n.pitch), velocity: Int(n.velocity), time: n.time, isOn: n.isOn, channel: Int(n.channel)))
        case .control(let kind, let time):
            if case .controlChange(_, 64, let v) = kind { routes.onPedal?(v >= 64, time) }
            switch kind {
            case .controlChange(_, let c, let v): output?.send(.controlChange(channel: channel, controller: c, value: v))
            case .pitchBend(_, let v): output?.send(.pitchBend(channel: channel, value: v))
            default: break
            }
            onControl(kind)
        case .status(let text):
            onStatus(text)
        case .ended(let text):
            ended.store(true, ordering: .releasing)
            onStatus(text)
        case .failed(let text):
            _ = failure.storeIfNil(FailureText(text))  // before `ended`: whoever sees it ended sees why
            ended.store(true, ordering: .releasing)
            onStatus(text)
        }
    }
}

/// What Etude itself sounds, remembered key by key, so a microphone in the same room can tell
/// Etude's own notes (the other hand, the accompaniment) from the learner's: a note Etude began
/// a moment before the microphone heard that key is not taken for the learner's (the gate; the
/// help still recommends headphones, which keep Etude's sound out of the microphone entirely).
///
/// No lock: whoever sends to the synth (the runner thread, the input's thread echoing) stores a
/// key's start as the bit pattern of its Double in that key's atomic; the microphone's thread
/// reads them. A read may mix keys stored a moment apart (no snapshot across keys): harmless,
/// each key is judged on its own time.
public final class OwnSoundTap: SoundOutput, Sendable {
    private let inner: any SoundOutput
    private let clock: any TimeSource
    private let started: InlineArray<128, Atomic<UInt64>> = InlineArray { _ in Atomic((-Double.infinity).bitPattern) }

    public init(_ inner: any SoundOutput, clock: any TimeSource = MonotonicClock()) {
        self.inner = inner
        self.clock = clock
    }

    public func send(_ message: MIDIEvent.Kind) {
        note(message, at: clock.now)
        inner.send(message)
    }

    public func sendGuide(_ message: MIDIEvent.Kind) {
        note(message, at: clock.now)
        inner.sendGuide(message)
    }

    public func send(_ message: MIDIEvent.Kind, at seconds: Double) {
        note(message, at: seconds)
        inner.send(message, at: seconds)
    }

    private func note(_ message: MIDIEvent.Kind, at time: Double) {
        if case .noteOn(_, let key, let velocity) = message, velocity > 0, key < 128 {
            started[Int(key)].store(time.bitPattern, ordering: .relaxed)
        }
    }

    public func allNotesOff() { inner.allNotesOff() }

    /// The keys Etude began within the moment before clock time `time` in which a microphone
    /// would hear them as new notes (300 ms: the listener's window and the room), each with the
    /// seconds from its start to `time`.
    public func began(near time: Double) -> [Int: Double] {
        var out: [Int: Double] = [:]
        for k in 0..<128 {
            let at = Double(bitPattern: started[k].load(ordering: .relaxed))
            if at >= time - 0.3 && at <= time + 0.05 { out[k] = time - at }
        }
        return out
    }
}
