import Clocks
import Foundation
import MIDIFile

/// Where the lesson engine sends sound: live FluidSynth, an offline renderer, or a test fake.
///
/// Calls may come from the dispatcher thread, so implementations are `Sendable` and must be
/// safe to call from any thread.
public protocol SoundOutput: AnyObject, Sendable {
    /// A channel message or sysex; meta events and `F7` escapes are ignored.
    func send(_ message: MIDIEvent.Kind)
    /// The same message, due at the monotonic second `seconds` (a lesson event's clock time):
    /// an output that can place it (Etude's JACK client) plays it at that time's frame plus a
    /// constant lead, so the lesson's gaps survive the sender's wake-up jitter; others send it
    /// now. Wrappers forward the time.
    func send(_ message: MIDIEvent.Kind, at seconds: Double)
    /// A note of the learner's own part they asked to hear (`--guide on`): Etude's synth only,
    /// never their instrument; outputs that wrap another pass it on as such.
    func sendGuide(_ message: MIDIEvent.Kind)
    /// Silences everything without cutting releases: sustain off and CC 123 on every channel.
    func allNotesOff()
}

extension SoundOutput {
    /// Outputs that cannot place a message in time send it now.
    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { send(message) }
    /// An output that is only a synth plays the guide as any other note.
    public func sendGuide(_ message: MIDIEvent.Kind) { send(message) }
}

/// A message at a time in seconds from the start of playback.
public struct TimedMessage: Equatable, Sendable {
    public var seconds: Double
    public var message: MIDIEvent.Kind

    public init(seconds: Double, message: MIDIEvent.Kind) {
        self.seconds = seconds
        self.message = message
    }
}

/// A `SoundOutput` that only records what it was told, with a timestamp from an injectable
/// clock — the fake tests use to check dispatch order and all-notes-off on every exit path.
public final class RecordingOutput: SoundOutput, @unchecked Sendable {
    public enum Entry: Equatable, Sendable {
        case message(MIDIEvent.Kind)
        /// A guide note (`sendGuide`): for the synth only.
        case guide(MIDIEvent.Kind)
        case allNotesOff
    }

    private let lock = NSLock()
    private var entries: [(seconds: Double, entry: Entry)] = []
    private let clock: @Sendable () -> Double

    /// `clock` gives the time recorded with each entry (default: monotonic seconds).
    public init(clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds() }) {
        self.clock = clock
    }

    public func send(_ message: MIDIEvent.Kind) {
        let now = clock()
        lock.withLock { entries.append((now, .message(message))) }
    }

    public func sendGuide(_ message: MIDIEvent.Kind) {
        let now = clock()
        lock.withLock { entries.append((now, .guide(message))) }
    }

    public func allNotesOff() {
        let now = clock()
        lock.withLock { entries.append((now, .allNotesOff)) }
    }

    /// Everything recorded so far, in call order.
    public var recorded: [(seconds: Double, entry: Entry)] {
        lock.withLock { entries }
    }

    /// Only the messages, in call order.
    public var messages: [MIDIEvent.Kind] {
        recorded.compactMap { if case .message(let m) = $0.entry { return m } else { return nil } }
    }

    /// Only the guide notes, in call order.
    public var guides: [MIDIEvent.Kind] {
        recorded.compactMap { if case .guide(let m) = $0.entry { return m } else { return nil } }
    }
}

