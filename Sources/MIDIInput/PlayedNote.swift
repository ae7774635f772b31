#if canImport(Glibc)
import Clocks
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Listening
import MIDIFile

/// One key going down or up, from any input source, stamped on the monotonic clock.
///
/// Every source (ALSA keyboard, raw byte stream, computer keyboard) produces this same value,
/// so the judge, the synth and the screen never care where a note came from.
public struct PlayedNote: Equatable, Hashable, Sendable {
    public enum Kind: String, Equatable, Hashable, Sendable {
        case on, off
    }

    public var kind: Kind
    public var pitch: UInt8
    /// 1–127 for a note-on; the release velocity (often 0 or 64) for a note-off.
    public var velocity: UInt8
    /// 0–15.
    public var channel: UInt8
    /// Seconds on the monotonic clock (`MonotonicClock`), comparable across sources.
    public var time: Double

    public init(kind: Kind, pitch: UInt8, velocity: UInt8, channel: UInt8 = 0, time: Double) {
        self.kind = kind
        self.pitch = pitch
        self.velocity = velocity
        self.channel = channel
        self.time = time
    }

    public var isOn: Bool { kind == .on }

    /// The played note for a channel message, nil when it is not a note.
    /// A note-on with velocity 0 is a note-off, as the MIDI specification says.
    public init?(_ message: MIDIEvent.Kind, time: Double) {
        switch message {
        case .noteOn(let c, let k, let v):
            self.init(kind: v == 0 ? .off : .on, pitch: k, velocity: v, channel: c, time: time)
        case .noteOff(let c, let k, let v):
            self.init(kind: .off, pitch: k, velocity: v, channel: c, time: time)
        default:
            return nil
        }
    }
}

/// What an input source reports to its handler.
public enum InputEvent: Equatable, Sendable {
    /// A key pressed or released.
    case note(PlayedNote)
    /// Any other channel message (sustain pedal, pitch bend…), so the synth can follow it.
    case control(MIDIEvent.Kind, time: Double)
    /// Something the learner should see on the status line (connected, unplugged, replugged).
    case status(String)
    /// The source has stopped for good (FIFO closed by the writer, device gone, end of file).
    /// The message is one line for the status bar; the lesson carries on without input.
    case ended(String)
    /// The stream is no instrument (no MIDI status byte in its first bytes, or more data than
    /// any keyboard sends): the source stopped reading. The message is one line naming the
    /// input; a command that only records or answers from it ends with it as its error.
    case failed(String)
}

/// A running input. Handlers are called on the source's own reader thread: keep them short
/// (hand the event to the synth and a queue) so input→sound latency stays under a millisecond.
public protocol InputSource: AnyObject, Sendable {
    /// A short human name for the status line, e.g. "Digital Piano (24:0)" or "/dev/midi1".
    var name: String { get }
    /// The stable name the device is remembered under (`InputDeviceID`): offsets, keyboards,
    /// echo and a microphone's set-up are stored per device, across runs and replugs.
    var deviceID: String { get }
    /// What this source can do now (sounds itself, onsets only, listens): callers ask this,
    /// never the source's type.
    var capabilities: InputCapabilities { get }
    /// Starts delivering events to `handler` until `stop()` or the source ends.
    func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError)
    /// Stops the reader and waits for its thread to finish; no handler call after it returns.
    func stop()
    /// A source that sounds its notes itself (`.soundsItself`) does so on `channel` (nil: it
    /// stays silent, as with `--echo off`); others ignore it.
    func echo(channel: Int?)
    /// Keys a source that sounds itself never sounds (`--gestures`); others ignore it.
    func mute(keys: Set<Int>)
    /// A listening source (`.listens`) hears these keys first: the ones the lesson wants at a
    /// clock time. Others ignore it.
    func expect(_ body: @escaping @Sendable (Double) -> Set<Int>)
    /// The same keys with the seconds from a clock time to each one's due time, so a listening
    /// source counts a key due now more than one due later. Others ignore it.
    func expectDue(_ body: @escaping @Sendable (Double) -> [Int: Double])
    /// A listening source ignores the keys Etude itself began near a clock time (with the
    /// seconds since). Others ignore it.
    func ignoreOwnSound(_ body: @escaping @Sendable (Double) -> [Int: Double])
    /// A listening source's signal as last judged (too quiet, clipped, noisy); nil for others.
    var listeningSignal: SignalState? { get }
    /// The source's ports that disappeared (unplugged, switched off), awaited by name; empty
    /// while all are there, and for sources that have none.
    var missingPorts: [String] { get }
}

extension InputSource {
    public var capabilities: InputCapabilities { [] }
    public func echo(channel: Int?) {}
    public func mute(keys: Set<Int>) {}
    public func expect(_ body: @escaping @Sendable (Double) -> Set<Int>) {}
    public func expectDue(_ body: @escaping @Sendable (Double) -> [Int: Double]) {}
    public func ignoreOwnSound(_ body: @escaping @Sendable (Double) -> [Int: Double]) {}
    public var listeningSignal: SignalState? { nil }
    public var missingPorts: [String] { [] }
}

/// An input that could not be opened: the message is one line naming the problem and the fix.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// True when the caller should fall back to the computer keyboard instead of giving up
    /// (no ALSA sequencer on this machine, no keyboard plugged in).
    public var fallBackToComputerKeyboard: Bool

    public init(_ message: String, fallBackToComputerKeyboard: Bool = false) {
        self.message = message
        self.fallBackToComputerKeyboard = fallBackToComputerKeyboard
    }

    public var description: String { message }
}
