import MIDIFile

/// A note as the transport plays it, for the screen and the judge.
public struct NoteCue: Equatable, Hashable, Sendable {
    /// Index into `Lesson.notes`.
    public var index: Int
    public var pitch: UInt8
    public var channel: UInt8
    public var part: Part
    /// True when the note belongs to the hand(s) being practised.
    public var practised: Bool
    /// Velocity sent to the synth; 0 when the note is muted (shown, not sounded).
    public var velocity: UInt8
    public var startTick: Int
    /// The release tick as played: clipped to the loop's end.
    public var endTick: Int
}

/// A counted beat, for the screen's bar/beat display and the metronome.
public struct BeatCue: Equatable, Hashable, Sendable {
    public var bar: Int
    public var beat: Int
    public var beatsPerBar: Int
    public var tick: Int
    /// A beat of the count-in bar before the first pass (bar is then the loop's first bar).
    public var isCountIn: Bool

    public var isDownbeat: Bool { beat == 1 }
}

/// A note with when it starts and ends: pass-relative seconds in a `PassSchedule`, clock
/// seconds from `Transport.notes(at:ahead:)` (for falling notes drawn before they sound).
public struct TimedNote: Equatable, Sendable {
    public var cue: NoteCue
    public var start: Double
    public var end: Double

    public init(cue: NoteCue, start: Double, end: Double) {
        self.cue = cue
        self.start = start
        self.end = end
    }
}

/// Where a bar begins in time (pass-relative in a `PassSchedule`, clock seconds from
/// `Transport.barLines(at:ahead:)`), for bar lines drawn across falling notes.
public struct TimedBar: Equatable, Sendable {
    public var time: Double
    public var bar: Int

    public init(time: Double, bar: Int) {
        self.time = time
        self.bar = bar
    }
}

/// What the transport asks its listeners to do at a given moment.
public enum TransportEvent: Equatable, Sendable {
    /// A channel message for the synth (notes, program, controllers, metronome clicks on
    /// channel 10).
    case synth(MIDIEvent.Kind)
    case noteStarted(NoteCue)
    case noteEnded(NoteCue)
    case beat(BeatCue)
    /// `tempoPercent` is the pass's tempo as a percent of the file's own.
    case passStarted(pass: Int, tempoPercent: Double)
    case passFinished(pass: Int, tempoPercent: Double)
    /// The effective quarter-note BPM from now on (file tempo × pass tempo).
    case tempo(bpm: Double)
    /// Practice is over (all passes played).
    case finished
    /// A pass ended and the transport waits before the next (`Transport.holdBetweenPasses`):
    /// the learner reads the results; playing on starts the next pass with its count-in.
    case heldAfterPass(pass: Int)
    /// The learner changed the tempo in the middle of a pass: from now on the rest of the pass
    /// plays at this percent. A judge re-times what it still expects.
    case tempoChanged(tempoPercent: Double)
    /// The learner jumped to the start of this bar, not the first of the pass: pass `pass`
    /// goes on from there at `tempoPercent` (a stopped transport waits there, paused). A judge
    /// starts scoring afresh from that bar.
    case moved(bar: Int, pass: Int, tempoPercent: Double)
}

/// An event with the time it is due: seconds from the pass start inside a `PassSchedule`,
/// clock seconds when returned by the `Transport`.
public struct TimedEvent: Equatable, Sendable {
    public var time: Double
    public var event: TransportEvent

    public init(time: Double, event: TransportEvent) {
        self.time = time
        self.event = event
    }
}

/// Every event of one pass over a tick range at one tempo, computed ahead: a pure function of
/// lesson, plan and tempo, so the exact content of a loop is testable without any clock.
///
/// Loop rules: only notes starting inside the range sound; a note still held at the range's
/// end is released exactly there (and the sustain pedal lifted), so nothing of the next bar
/// is heard; a note that began before the range is not sounded. The program, controller and
/// pitch-bend state in force at the start is sent first, so every pass sounds the same.
public struct PassSchedule: Sendable {
    public let startTick: Int
    public let endTick: Int
    /// Tempo as a factor of the file's (0.5 = half speed).
    public let factor: Double
    public let countInSeconds: Double
    /// Seconds from the pass start to its end (count-in included).
    public let duration: Double
    /// Sorted by time; at equal times: pass/tempo, state, releases, controllers, beats, notes.
    public private(set) var events: [TimedEvent]
    /// Every note of the pass (muted ones included), sorted by start.
    public let notes: [TimedNote]
    /// The bar lines inside the pass (the start of each bar), in order.
    public let barStarts: [TimedBar]
    let tempoMap: TempoMap
    let startSeconds: Double

    public struct Options: Sendable {
        public var pass: Int
        public var countIn: Bool
        /// Emit `passStarted`/`passFinished` (false for the rest of a pass after a seek).
        public var announce: Bool
        /// Seconds a metronome click lasts before its note-off.
        public var clickSeconds: Double
        /// Send the channel state in force at the start (false when continuing mid-pass).
        public var restoreState: Bool
        /// When continuing mid-pass (a tempo change): notes that began at or after this tick,
        /// before the start, and are still held get their release scheduled here.
        public var releaseHeldSince: Int?

        public init(pass: Int = 1, countIn: Bool = false, announce: Bool = true, clickSeconds: Double = 0.05,
                    restoreState: Bool = true, releaseHeldSince: Int? = nil) {
            self.pass = pass
            self.countIn = countIn
            self.announce = announce
            self.clickSeconds = clickSeconds
            self.restoreState = restoreState
            self.releaseHeldSince = releaseHeldSince
        }
    }

    /// The pass over ticks `startTick..<endTick` at `percent` of the file's tempo; times are
    /// seconds from the pass start.
    public init(lesson: Lesson, plan: PracticePlan, from startTick: Int, to endTick: Int, percent: Double, options: Options = Options()) {
        let map = lesson.tempoMap
        let factor = max(0.01, percent / 100)
        self.startTick = startTick
        self.endTick = endTick
        self.factor = factor
        self.tempoMap = map
        let s0 = map.seconds(atTick: startTick)
        self.startSeconds = s0

        var items: [(time: Double, priority: Int, event: TransportEvent)] = []
        var countIn = 0.0
        let startBar = lesson.bars.bar(atTick: startTick)
        if options.countIn {
            let sig = startBar.signature
            let barTicks = BarMap.barTicks(sig, tpq: lesson.ticksPerQuarter)
            let secondsPerTick = Double(map.microsecondsPerQuarter(atTick: startTick)) / 1_000_000 / Double(lesson.ticksPerQuarter) / factor
            countIn = Double(barTicks) * secondsPerTick
            let beats = BarMap.beatsPerBar(sig)
            for k in 0..<beats {
                let t = Double(k * startBar.beatTicks) * secondsPerTick
                let cue = BeatCue(bar: startBar.number, beat: k + 1, beatsPerBar: beats, tick: startTick, isCountIn: true)
                items.append((t, 4, .beat(cue)))
                // The count-in always clicks, even with the metronome off.
                let volume = plan.metronome.enabled ? plan.metronome.volume : max(plan.metronome.volume, 0.6)
                for e in Metronome.click(downbeat: k == 0, volume: volume, at: t, length: options.clickSeconds) {
                    items.append((e.time, e.priority, e.event))
                }
            }
        }
        self.countInSeconds = countIn
        func time(_ tick: Int) -> Double { countIn + (map.seconds(atTick: tick) - s0) / factor }
        let duration = time(endTick)
        self.duration = duration

        if options.announce {
            items.append((0, 0, .passStarted(pass: options.pass, tempoPercent: percent)))
        }
        items.append((0, 0, .tempo(bpm: map.bpm(atTick: startTick) * factor)))
        for seg in map.segments where seg.tick > startTick && seg.tick < endTick {
            items.append((time(seg.tick), 0, .tempo(bpm: 60_000_000 / Double(seg.microsecondsPerQuarter) * factor)))
        }

        if options.restoreState {
            for kind in ChannelState.restore(lesson: lesson, atTick: startTick, until: endTick) {
                items.append((0, 1, .synth(kind)))
            }
        }
        // Controllers inside the range.
        var sustainChannels = Set<UInt8>()
        for e in lesson.channelEvents {
            if case .controlChange(let c, 64, _) = e.kind { sustainChannels.insert(c) }
            guard e.tick >= startTick, e.tick < endTick else { continue }
            if e.tick == startTick, options.restoreState, ChannelState.isRestored(e.kind) { continue }
            items.append((time(e.tick), 3, .synth(e.kind)))
        }

        // Notes starting inside the range; releases clipped to its end.
        var timedNotes: [TimedNote] = []
        if let since = options.releaseHeldSince, since < startTick {
            var h = Self.firstNote(in: lesson.notes, atOrAfter: since)
            while h < lesson.notes.count, lesson.notes[h].startTick < startTick {
                let n = lesson.notes[h]
                if n.endTick > startTick {
                    let end = min(n.endTick, endTick)
                    let cue = NoteCue(index: h, pitch: n.pitch, channel: n.channel, part: n.part, practised: plan.hands.practises(n.part),
                                      velocity: n.velocity, startTick: n.startTick, endTick: end)
                    items.append((time(end), 2, .synth(.noteOff(channel: n.channel, key: n.pitch, velocity: 0))))
                    items.append((time(end), 2, .noteEnded(cue)))
                    timedNotes.append(TimedNote(cue: cue, start: time(n.startTick), end: time(end)))
                }
                h += 1
            }
        }
        var i = Self.firstNote(in: lesson.notes, atOrAfter: startTick)
        while i < lesson.notes.count, lesson.notes[i].startTick < endTick {
            let n = lesson.notes[i]
            let practised = plan.hands.practises(n.part)
            var velocity = n.velocity
            switch n.part {
            case .accompaniment:
                if !plan.playAccompaniment { velocity = 0 }
            case .hand:
                if !practised {
                    switch plan.otherHand {
                    case .play: break
                    case .quiet(let f): velocity = UInt8(clamping: max(1, Int((Double(n.velocity) * f).rounded())))
                    case .mute: velocity = 0
                    }
                }
            }
            let end = min(n.endTick, endTick)
            let cue = NoteCue(index: i, pitch: n.pitch, channel: n.channel, part: n.part, practised: practised,
                              velocity: velocity, startTick: n.startTick, endTick: end)
            let t0 = time(n.startTick), t1 = time(end)
            // A zero-length note releases after it starts, never before.
            let releasePriority = end <= n.startTick ? 6 : 2
            items.append((t0, 5, .noteStarted(cue)))
            if velocity > 0 {
                items.append((t0, 5, .synth(.noteOn(channel: n.channel, key: n.pitch, velocity: velocity))))
                items.append((t1, releasePriority, .synth(.noteOff(channel: n.channel, key: n.pitch, velocity: 0))))
            }
            items.append((t1, releasePriority, .noteEnded(cue)))
            timedNotes.append(TimedNote(cue: cue, start: t0, end: t1))
            i += 1
        }
        notes = timedNotes

        var bars: [TimedBar] = []
        var bi = lesson.bars.index(atTick: startTick)
        while bi < lesson.bars.bars.count, lesson.bars.bars[bi].startTick < endTick {
            let bar = lesson.bars.bars[bi]
            if bar.startTick >= startTick { bars.append(TimedBar(time: time(bar.startTick), bar: bar.number)) }
            bi += 1
        }
        barStarts = bars
        // Beats and metronome clicks.
        for b in lesson.bars.beats(from: startTick, to: endTick) {
            let bar = lesson.bars.bar(atTick: b.tick)
            let t = time(b.tick)
            items.append((t, 4, .beat(BeatCue(bar: b.bar, beat: b.beat, beatsPerBar: bar.beatsPerBar, tick: b.tick, isCountIn: false))))
            if plan.metronome.enabled {
                let length = min(options.clickSeconds, max(0, duration - t))
                for e in Metronome.click(downbeat: b.beat == 1, volume: plan.metronome.volume, at: t, length: length) {
                    items.append((e.time, e.priority, e.event))
                }
            }
        }

        // The pedal is lifted at the end so nothing rings into the next bar.
        for c in sustainChannels.sorted() {
            items.append((duration, 2, .synth(.controlChange(channel: c, controller: 64, value: 0))))
        }
        if options.announce {
            items.append((duration, 9, .passFinished(pass: options.pass, tempoPercent: percent)))
        }

        events = items.enumerated().sorted { a, b in
            if a.element.time != b.element.time { return a.element.time < b.element.time }
            if a.element.priority != b.element.priority { return a.element.priority < b.element.priority }
            return a.offset < b.offset
        }.map { TimedEvent(time: $0.element.time, event: $0.element.event) }
    }

    /// The lesson tick sounding at a time offset from the pass start (the start tick during
    /// a count-in), for smooth displays.
    public func tick(atOffset offset: Double) -> Double {
        if offset <= countInSeconds { return Double(startTick) }
        let seconds = startSeconds + (min(offset, duration) - countInSeconds) * factor
        return min(Double(endTick), tempoMap.tick(atSeconds: seconds))
    }

    mutating func extraEvents(_ event: TimedEvent) {
        events.append(event)
    }

    static func firstNote(in notes: [LessonNote], atOrAfter tick: Int) -> Int {
        var lo = 0, hi = notes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if notes[mid].startTick < tick { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

/// The program, controller and pitch-bend state of each channel at a tick, as messages.
public enum ChannelState {
    /// GM reset values for controllers a loop may change and must put back.
    static let defaults: [UInt8: UInt8] = [0: 0, 32: 0, 1: 0, 7: 100, 10: 64, 11: 127, 64: 0, 65: 0, 66: 0, 67: 0, 91: 40, 93: 0]
    /// Controllers that are parts of multi-message sequences (RPN/NRPN) and are never replayed.
    static let skipped: Set<UInt8> = [6, 38, 96, 97, 98, 99, 100, 101, 120, 121, 123, 124, 125, 126, 127]

    /// True for messages `restore` replays (program, bend, most controllers); others at the
    /// range start (RPN/NRPN parts, pressure) must still be sent as they are.
    public static func isRestored(_ kind: MIDIEvent.Kind) -> Bool {
        switch kind {
        case .programChange, .pitchBend: return true
        case .controlChange(_, let n, _): return !skipped.contains(n)
        default: return false
        }
    }

    /// Messages that put every channel in the state in force at `tick` (events at `tick`
    /// included); a value first set after `tick` and before `until` is reset to its General
    /// MIDI default, so repeated passes start alike.
    ///
    /// Callers send these at the range start instead of the range's own events at that tick
    /// (see `isRestored`), so each value is sent once, bank select before program.
    public static func restore(lesson: Lesson, atTick tick: Int, until: Int) -> [MIDIEvent.Kind] {
        var program: [UInt8: UInt8] = [:]
        var controllers: [UInt8: [UInt8: UInt8]] = [:]
        var bend: [UInt8: UInt16] = [:]
        var laterProgram = Set<UInt8>()
        var laterControllers: [UInt8: Set<UInt8>] = [:]
        var laterBend = Set<UInt8>()
        for e in lesson.channelEvents {
            if e.tick >= until { break }
            // Events exactly at the start are part of the state in force there.
            let before = e.tick <= tick
            switch e.kind {
            case .programChange(let c, let p):
                if before { program[c] = p } else { laterProgram.insert(c) }
            case .controlChange(let c, let n, let v):
                guard !skipped.contains(n) else { continue }
                if before { controllers[c, default: [:]][n] = v } else { laterControllers[c, default: []].insert(n) }
            case .pitchBend(let c, let v):
                if before { bend[c] = v } else { laterBend.insert(c) }
            default:
                break
            }
        }
        var channels = Set(program.keys).union(controllers.keys).union(bend.keys)
        channels.formUnion(laterProgram)
        channels.formUnion(laterControllers.keys)
        channels.formUnion(laterBend)
        var out: [MIDIEvent.Kind] = []
        for c in channels.sorted() {
            var cc = controllers[c] ?? [:]
            for n in laterControllers[c] ?? [] where cc[n] == nil {
                if let d = defaults[n] { cc[n] = d }
            }
            // Bank select goes before the program change it qualifies.
            for n: UInt8 in [0, 32] { if let v = cc[n] { out.append(.controlChange(channel: c, controller: n, value: v)) } }
            if let p = program[c] {
                out.append(.programChange(channel: c, program: p))
            } else if laterProgram.contains(c) {
                out.append(.programChange(channel: c, program: 0))
            }
            for n in cc.keys.sorted() where n != 0 && n != 32 {
                if let v = cc[n] { out.append(.controlChange(channel: c, controller: n, value: v)) }
            }
            if let b = bend[c] {
                out.append(.pitchBend(channel: c, value: b))
            } else if laterBend.contains(c) {
                out.append(.pitchBend(channel: c, value: 8192))
            }
        }
        return out
    }
}

/// Metronome clicks on the General MIDI percussion channel (channel 10, index 9).
public enum Metronome {
    public static let channel: UInt8 = 9
    /// Hi Wood Block for the downbeat, Low Wood Block for other beats.
    public static let accentKey: UInt8 = 76
    public static let beatKey: UInt8 = 77
    public static let accentVelocity = 127.0
    public static let beatVelocity = 90.0

    /// The note-on/off pair of one click (nothing when the volume rounds to silence).
    static func click(downbeat: Bool, volume: Double, at time: Double, length: Double) -> [(time: Double, priority: Int, event: TransportEvent)] {
        let v = Int(((downbeat ? accentVelocity : beatVelocity) * volume).rounded())
        guard v >= 1 else { return [] }
        let key = downbeat ? accentKey : beatKey
        return [
            (time, 4, .synth(.noteOn(channel: channel, key: key, velocity: UInt8(clamping: v)))),
            (time + length, length > 0 ? 2 : 6, .synth(.noteOff(channel: channel, key: key, velocity: 0))),
        ]
    }
}
