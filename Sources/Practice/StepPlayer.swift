import Clocks
import Foundation
import Lesson
import MIDIFile
import Synth

/// A `SoundOutput` in front of another that scales channel volume (CC 7) by a gain: the
/// lesson's own CC 7 values pass through scaled, and `setGain` re-sends every channel's volume,
/// so a routine step cut by its time limit fades out instead of stopping dead.
///
/// It belongs to the thread that plays through it, a runner's owner: `setGain` and `reset` go
/// on that runner while it plays (`TransportRunner.run`; a session's gain is posted,
/// `SessionCommand.gain`), or are called once it stopped. So it holds no lock.
public final class GainOutput: SoundOutput, @unchecked Sendable {
    /// GM default channel volume, used until the file sets its own.
    public static let defaultVolume: UInt8 = 100
    private let inner: any SoundOutput
    private var volumes = [UInt8](repeating: GainOutput.defaultVolume, count: 16)
    private var gain = 1.0
    private var sent = [UInt8](repeating: GainOutput.defaultVolume, count: 16)

    public init(_ inner: any SoundOutput) { self.inner = inner }

    public var currentGain: Double { gain }

    public func send(_ message: MIDIEvent.Kind) { send(message, due: nil) }

    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { send(message, due: seconds) }

    private func send(_ message: MIDIEvent.Kind, due seconds: Double?) {
        var message = message
        if case .controlChange(let channel, 7, let value) = message, channel < 16 {
            volumes[Int(channel)] = value
            sent[Int(channel)] = Self.scale(value, gain)
            message = .controlChange(channel: channel, controller: 7, value: sent[Int(channel)])
        }
        if let seconds { inner.send(message, at: seconds) } else { inner.send(message) }
    }

    public func sendGuide(_ message: MIDIEvent.Kind) { inner.sendGuide(message) }

    public func allNotesOff() { inner.allNotesOff() }

    /// Sets the gain (0…1) and sends the scaled volume on every channel when it changed.
    public func setGain(_ newGain: Double) {
        gain = newGain.isFinite ? max(0, min(1, newGain)) : 1
        for ch in 0..<16 {
            let v = Self.scale(volumes[ch], gain)
            if v != sent[ch] {
                sent[ch] = v
                inner.send(.controlChange(channel: UInt8(ch), controller: 7, value: v))
            }
        }
    }

    /// Back to full volume on every channel (the GM default), for the next step.
    public func reset() {
        volumes = [UInt8](repeating: GainOutput.defaultVolume, count: 16)
        sent = volumes
        gain = 1
        for ch in 0..<16 { inner.send(.controlChange(channel: UInt8(ch), controller: 7, value: GainOutput.defaultVolume)) }
    }

    static func scale(_ v: UInt8, _ g: Double) -> UInt8 { UInt8(max(0, min(127, (Double(v) * g).rounded()))) }
}

/// Plays one step of a routine in real time: a `TransportRunner` on a `GainOutput`, asked every
/// tick what to do (`decide`: keep playing at a gain, or stop), so the policy (time limit,
/// repetitions, fade) stays a pure function the caller supplies (`RoutinePlan.decide`).
/// It belongs to the thread that calls `run`; what the runner's events change it reads through
/// the runner's inbox.
public final class StepPlayer: @unchecked Sendable {
    public enum Decision: Equatable, Sendable {
        case play(gain: Double)
        case stop
    }

    /// How a step ended.
    public struct Result: Equatable, Sendable {
        public var completedPasses: Int
        public var seconds: Double
        /// The volume went below full before the end (a time limit cut it).
        public var faded: Bool
        /// `control` asked to skip or quit.
        public var interrupted: Bool
    }

    /// What the caller's key/signal check wants, asked every tick.
    public enum Control: Sendable { case keepGoing, skip }

    private let initial: Transport
    private let clock: MonotonicClock
    /// The clock the transport plays on: `clock`, or a `FollowedClock` over it that a
    /// recording's pace warps (`recording=`).
    public let musicClock: any TimeSource
    private let followed: FollowedClock?
    private let output: GainOutput
    /// The runner's own (changed in its events and ticks, read through its inbox).
    private var completed = 0
    /// When the pass under way began, on `clock` (real seconds).
    private var passStartWall: Double?
    private var pace: RecordingPace?
    /// The caller's (the thread in `run`).
    private var runner: TransportRunner?

    /// `transport` must have been made with `clock`.
    public init(transport: Transport, clock: MonotonicClock, output: GainOutput) {
        initial = transport
        self.clock = clock
        musicClock = clock
        followed = nil
        self.output = output
    }

    /// A step played with a recording (a routine entry's `recording=`, issue 42): the lesson's
    /// transport on a `FollowedClock` over `clock`, paced each tick by `pace` as `practice
    /// --recording` paces its session, so the lesson moves where the recording is heard.
    public init(lesson: Lesson, plan: PracticePlan, clock: MonotonicClock, output: GainOutput, recording pace: RecordingPace) throws(PlanError) {
        let followed = FollowedClock(base: clock)
        initial = try Transport(lesson: lesson, plan: plan, clock: followed)
        self.clock = clock
        musicClock = followed
        self.followed = followed
        self.pace = pace
        self.output = output
    }

    /// The transport as it plays (a copy of the runner's), or as given before `run`.
    public var transport: Transport { runner?.transport ?? initial }

    /// Plays until `decide` says stop, the transport finishes or `control` says skip.
    /// Always ends with all notes off and full volume restored.
    public func run(tick: Double = 0.05,
                    decide: (_ elapsed: Double, _ completedPasses: Int, _ currentPassEnd: Double?) -> Decision,
                    control: () -> Control = { .keepGoing },
                    status: (_ elapsed: Double, _ completedPasses: Int, _ gain: Double) -> Void = { _, _, _ in }) -> Result {
        var onTick: (@Sendable (Double) -> Void)?
        if pace != nil { onTick = { [self] _ in self.paceRecording() } }
        let runner = TransportRunner(transport: initial, clock: musicClock, tickClock: clock, output: output, onEvents: { [self] events in
            for e in events {
                switch e.event {
                case .passStarted: passStartWall = clock.now  // delivered as it happens (a tick at most later)
                case .passFinished: completed += 1
                default: break
                }
            }
        }, onTick: onTick)
        self.runner = runner
        let start = clock.now
        var faded = false
        var interrupted = false
        runner.start()
        while true {
            let now = clock.now
            let elapsed = now - start
            let (passes, passStart) = runner.run { (completed, passStartWall) }
            let passEnd = passStart.map { $0 - start + passSeconds(runner.transport) }
            if control() == .skip {
                interrupted = true
                break
            }
            if runner.isFinished { break }
            switch decide(elapsed, passes, passEnd) {
            case .stop:
                runner.stop()
                return finish(start: start, faded: faded, interrupted: false)
            case .play(let gain):
                if gain < 1 { faded = true }
                runner.run { output.setGain(gain) }
                status(elapsed, passes, gain)
            }
            clock.sleep(until: now + tick)
        }
        runner.stop()
        return finish(start: start, faded: faded, interrupted: interrupted)
    }

    /// A pass's length in real seconds: the transport's, or with a recording the recording's.
    private func passSeconds(_ transport: Transport) -> Double {
        pace?.passSeconds(transport) ?? transport.passDuration
    }

    /// `recording=`: the music's clock moved on to where the recording is (on the runner's owner).
    private func paceRecording() {
        guard let followed, let runner, var p = pace else { return }
        let wall = clock.now
        let move = p.step(wall: wall, clockNow: followed.now, transport: runner.transport)
        pace = p
        followed.retime(atWall: wall, score: move.score, rate: move.rate, cap: nil)
    }

    private func finish(start: Double, faded: Bool, interrupted: Bool) -> Result {
        output.allNotesOff()
        output.reset()
        let passes = completed  // the runner stopped: the caller's now
        return Result(completedPasses: passes, seconds: clock.now - start, faded: faded, interrupted: interrupted)
    }
}
