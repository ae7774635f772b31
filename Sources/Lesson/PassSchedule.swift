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
    /// A note of the learner's own part they asked to hear (`PracticePlan.LearnerPart.guide`):
    /// for Etude's synth only, never the instrument or the key lights' port.
    case guide(MIDIEvent.Kind)
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

/// Every event of one pass over a tick range at one tempo: a pure function of lesson, plan and
/// tempo, so the exact content of a loop is testable without any clock.
///
/// Nothing is computed for every note up front: the notes are worked out as they are asked
/// for (`notes`), and the events come in order from merged streams (`next()`), so a pass of a
/// 1,000,000-note lesson is ready at once and holds only what sounds. `events` gives them all
/// (tests, small passes).
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
    /// Clicks in the count-in (0 without one).
    public let countInBeats: Int
    /// Seconds from the pass start to its end (count-in included).
    public let duration: Double
    /// Every note of the pass (muted ones included), sorted by start.
    public let notes: PassNotes
    /// The bar lines inside the pass (the start of each bar), in order.
    public let barStarts: [TimedBar]
    let tempoMap: TempoMap
    let startSeconds: Double

    /// Events in the order of a stable sort by (time, priority) over the order they were
    /// listed in: at equal times pass/tempo, state, releases, controllers, beats, notes. Each
    /// stream's rank is its place in that listing.
    struct Key: Comparable, Sendable {
        var time: Double
        var priority: Int
        var rank: Int
        var offset: Int
        static func < (a: Key, b: Key) -> Bool {
            if a.time != b.time { return a.time < b.time }
            if a.priority != b.priority { return a.priority < b.priority }
            if a.rank != b.rank { return a.rank < b.rank }
            return a.offset < b.offset
        }
    }

    struct Item: Sendable {
        var key: Key
        var event: TransportEvent
    }

    /// One counted beat of the pass with its time.
    struct BeatItem: Sendable {
        var time: Double
        var cue: BeatCue
        /// The click's note-on/off, none when the metronome is off or too quiet to sound.
        var click: [(time: Double, priority: Int, event: TransportEvent)]
    }

    enum Rank {
        static let countIn = 0, announce = 1, restore = 2, controllers = 3, held = 4, notes = 5, beats = 6, sustain = 7, finish = 8
    }

    /// Where the pass's event streams stand.
    struct Cursor: Sendable {
        var small = 0
        var controller = 0
        var onset = 0
        var onsetSub = 0
        var onsetNote: TimedNote?
        var releases = ReleaseHeap()
        var beat = 0
        var beatSub = 0
        var clickOff = 0
        var extra = 0
    }

    /// Short streams, merged and sorted once (count-in, tempo, state, held releases, pedal, end).
    private let small: [Item]
    /// Indices into `lesson.channelEvents` inside the range.
    private let controllers: Range<Int>
    private let channelEvents: [ChannelEvent]
    private let skipRestoredAtStart: Bool
    private let beats: [BeatItem]
    private var extras: [TimedEvent] = []
    private var cursor = Cursor()
    /// The pass announces its start and end (`Options.announce`).
    private let announces: Bool

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

        var items: [Item] = []
        func add(_ time: Double, _ priority: Int, _ rank: Int, _ event: TransportEvent) {
            items.append(Item(key: Key(time: time, priority: priority, rank: rank, offset: items.count), event: event))
        }
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
                add(t, 4, Rank.countIn, .beat(cue))
                // The count-in always clicks, even with the metronome off.
                let volume = plan.metronome.enabled ? plan.metronome.volume : max(plan.metronome.volume, 0.6)
                for e in Metronome.click(downbeat: k == 0, volume: volume, at: t, length: options.clickSeconds) {
                    add(e.time, e.priority, Rank.countIn, e.event)
                }
            }
        }
        self.countInSeconds = countIn
        self.countInBeats = options.countIn ? BarMap.beatsPerBar(startBar.signature) : 0
        let timing = PassTiming(map: map, startSeconds: s0, countIn: countIn, factor: factor)
        let duration = timing.time(endTick)
        self.duration = duration

        announces = options.announce
        if options.announce {
            add(0, 0, Rank.announce, .passStarted(pass: options.pass, tempoPercent: percent))
        }
        add(0, 0, Rank.announce, .tempo(bpm: map.bpm(atTick: startTick) * factor))
        for seg in map.segments where seg.tick > startTick && seg.tick < endTick {
            add(timing.time(seg.tick), 0, Rank.announce, .tempo(bpm: 60_000_000 / Double(seg.microsecondsPerQuarter) * factor))
        }

        if options.restoreState {
            for kind in ChannelState.restore(lesson: lesson, atTick: startTick, until: endTick) {
                add(0, 1, Rank.restore, .synth(kind))
            }
        }
        // Controllers inside the range (played lazily); the channels with a sustain pedal.
        var sustainChannels = Set<UInt8>()
        for e in lesson.channelEvents {
            if case .controlChange(let c, 64, _) = e.kind { sustainChannels.insert(c) }
        }
        let firstController = PassSchedule.firstEvent(in: lesson.channelEvents, atOrAfter: startTick)
        let lastController = PassSchedule.firstEvent(in: lesson.channelEvents, atOrAfter: endTick)
        controllers = firstController..<max(firstController, lastController)
        channelEvents = lesson.channelEvents
        skipRestoredAtStart = options.restoreState

        // Notes still held from before the start (a pass continued after a tempo change).
        var held: [TimedNote] = []
        if let since = options.releaseHeldSince, since < startTick {
            let from = Self.firstNote(in: lesson.notes, atOrAfter: since)
            let to = Self.firstNote(in: lesson.notes, atOrAfter: startTick)
            let candidates = lesson.noteEnds.count == lesson.notes.count
                ? lesson.noteEnds.indices(in: from..<to, endingAtOrAfter: startTick &+ 1)
                : Array(from..<to)
            for h in candidates {
                let n = lesson.notes[h]
                guard n.endTick > startTick else { continue }
                let end = min(n.endTick, endTick)
                let practised = plan.expects(n)
                let cue = NoteCue(index: h, pitch: n.pitch, channel: n.channel, part: n.part, practised: practised,
                                  velocity: n.velocity, startTick: n.startTick, endTick: end)
                let off = MIDIEvent.Kind.noteOff(channel: n.channel, key: n.pitch, velocity: 0)
                switch practised ? plan.learnerPart : .heard {
                case .heard: add(timing.time(end), 2, Rank.held, .synth(off))
                case .guide: add(timing.time(end), 2, Rank.held, .guide(off))
                case .silent: break  // never struck: nothing to end
                }
                add(timing.time(end), 2, Rank.held, .noteEnded(cue))
                held.append(TimedNote(cue: cue, start: timing.time(n.startTick), end: timing.time(end)))
            }
        }
        let first = Self.firstNote(in: lesson.notes, atOrAfter: startTick)
        let last = max(first, Self.firstNote(in: lesson.notes, atOrAfter: endTick))
        notes = PassNotes(held: held, lessonNotes: lesson.notes, first: first, regularCount: last - first, timing: timing,
                          endTick: endTick, plan: plan)

        var bars: [TimedBar] = []
        var bi = lesson.bars.index(atTick: startTick)
        while bi < lesson.bars.bars.count, lesson.bars.bars[bi].startTick < endTick {
            let bar = lesson.bars.bars[bi]
            if bar.startTick >= startTick { bars.append(TimedBar(time: timing.time(bar.startTick), bar: bar.number)) }
            bi += 1
        }
        barStarts = bars
        // Beats and metronome clicks (played lazily).
        var beatItems: [BeatItem] = []
        for b in lesson.bars.beats(from: startTick, to: endTick) {
            let bar = lesson.bars.bar(atTick: b.tick)
            let t = timing.time(b.tick)
            var click: [(time: Double, priority: Int, event: TransportEvent)] = []
            if plan.metronome.enabled {
                let length = min(options.clickSeconds, max(0, duration - t))
                click = Metronome.click(downbeat: b.beat == 1, volume: plan.metronome.volume, at: t, length: length)
            }
            beatItems.append(BeatItem(time: t, cue: BeatCue(bar: b.bar, beat: b.beat, beatsPerBar: bar.beatsPerBar, tick: b.tick, isCountIn: false),
                                      click: click))
        }
        beats = beatItems

        // The pedal is lifted at the end so nothing rings into the next bar.
        for c in sustainChannels.sorted() {
            add(duration, 2, Rank.sustain, .synth(.controlChange(channel: c, controller: 64, value: 0)))
        }
        if options.announce {
            add(duration, 9, Rank.finish, .passFinished(pass: options.pass, tempoPercent: percent))
        }
        small = items.sorted { $0.key < $1.key }
        rewind()
    }

    /// Every event of the pass, in order (worked out in full: for tests and small passes; the
    /// transport takes them one by one with `next()`).
    public var events: [TimedEvent] {
        var copy = self
        copy.rewind()
        var out: [TimedEvent] = []
        while let e = copy.next() { out.append(e) }
        return out
    }

    /// Back to the first event.
    mutating func rewind() {
        cursor = Cursor()
        cursor.controller = controllers.lowerBound
        skipFilteredControllers()
        loadOnset()
        advanceClickOff()
    }

    /// True while an announced pass's `passStarted` (its first event) is still to be taken:
    /// nothing of the pass has been played yet.
    var startPending: Bool { announces && cursor.small == 0 }

    /// True once every event was taken.
    var isExhausted: Bool { nextKey() == nil && cursor.extra >= extras.count }

    /// The time of the next event, nil when all were taken.
    var nextTime: Double? {
        if let k = nextKey() { return k.key.time }
        return cursor.extra < extras.count ? extras[cursor.extra].time : nil
    }

    /// A note's message as the plan sounds it: the learner's guide to the synth only.
    private func sound(_ cue: NoteCue, _ kind: MIDIEvent.Kind) -> TransportEvent {
        cue.practised && notes.plan.learnerPart == .guide ? .guide(kind) : .synth(kind)
    }

    /// Takes the next event in order.
    mutating func next() -> TimedEvent? {
        guard let (key, stream) = nextKey() else {
            guard cursor.extra < extras.count else { return nil }
            cursor.extra += 1
            return extras[cursor.extra - 1]
        }
        switch stream {
        case .small:
            let item = small[cursor.small]
            cursor.small += 1
            return TimedEvent(time: item.key.time, event: item.event)
        case .controller:
            let e = channelEvents[cursor.controller]
            cursor.controller += 1
            skipFilteredControllers()
            return TimedEvent(time: key.time, event: .synth(e.kind))
        case .onset:
            guard let n = cursor.onsetNote else { return nil }
            let k = cursor.onset
            if cursor.onsetSub == 0 {
                // The note's releases join the heap as it starts: none can come before its start.
                let priority = n.cue.endTick <= n.cue.startTick ? 6 : 2
                if n.cue.velocity > 0 {
                    cursor.releases.push(.init(key: Key(time: n.end, priority: priority, rank: Rank.notes, offset: 4 * k + 2),
                                               event: sound(n.cue, .noteOff(channel: n.cue.channel, key: n.cue.pitch, velocity: 0))))
                }
                cursor.releases.push(.init(key: Key(time: n.end, priority: priority, rank: Rank.notes, offset: 4 * k + 3),
                                           event: .noteEnded(n.cue)))
                if n.cue.velocity > 0 {
                    cursor.onsetSub = 1
                } else {
                    cursor.onset += 1
                    loadOnset()
                }
                return TimedEvent(time: n.start, event: .noteStarted(n.cue))
            }
            cursor.onset += 1
            loadOnset()
            return TimedEvent(time: n.start, event: sound(n.cue, .noteOn(channel: n.cue.channel, key: n.cue.pitch, velocity: n.cue.velocity)))
        case .release:
            guard let r = cursor.releases.pop() else { return nil }
            return TimedEvent(time: r.key.time, event: r.event)
        case .beat:
            let b = beats[cursor.beat]
            if cursor.beatSub == 0 {
                if b.click.isEmpty { cursor.beat += 1 } else { cursor.beatSub = 1 }
                return TimedEvent(time: b.time, event: .beat(b.cue))
            }
            cursor.beatSub = 0
            cursor.beat += 1
            return TimedEvent(time: b.click[0].time, event: b.click[0].event)
        case .clickOff:
            let b = beats[cursor.clickOff]
            cursor.clickOff += 1
            advanceClickOff()
            return TimedEvent(time: b.click[1].time, event: b.click[1].event)
        }
    }

    private enum Stream { case small, controller, onset, release, beat, clickOff }

    /// The smallest head among the streams (extras come after all of them).
    private func nextKey() -> (key: Key, stream: Stream)? {
        var best: (key: Key, stream: Stream)?
        func offer(_ key: Key, _ stream: Stream) {
            if let b = best, !(key < b.key) { return }
            best = (key, stream)
        }
        if cursor.small < small.count { offer(small[cursor.small].key, .small) }
        if cursor.controller < controllers.upperBound {
            let e = channelEvents[cursor.controller]
            offer(Key(time: notes.timing.time(e.tick), priority: 3, rank: Rank.controllers, offset: cursor.controller), .controller)
        }
        if let n = cursor.onsetNote {
            offer(Key(time: n.start, priority: 5, rank: Rank.notes, offset: 4 * cursor.onset + cursor.onsetSub), .onset)
        }
        if let r = cursor.releases.top { offer(r.key, .release) }
        if cursor.beat < beats.count {
            let b = beats[cursor.beat]
            let priority = cursor.beatSub == 0 ? 4 : b.click[0].priority
            offer(Key(time: cursor.beatSub == 0 ? b.time : b.click[0].time, priority: priority, rank: Rank.beats,
                      offset: 3 * cursor.beat + cursor.beatSub), .beat)
        }
        // A click's release always comes after its start (later, or at once with a later priority).
        if cursor.clickOff < beats.count, beats[cursor.clickOff].click.count == 2 {
            let c = beats[cursor.clickOff].click[1]
            offer(Key(time: c.time, priority: c.priority, rank: Rank.beats, offset: 3 * cursor.clickOff + 2), .clickOff)
        }
        return best
    }

    private mutating func loadOnset() {
        cursor.onsetSub = 0
        let i = notes.held.count + cursor.onset
        cursor.onsetNote = cursor.onset < notes.regularCount ? notes[i] : nil
    }

    private mutating func skipFilteredControllers() {
        while cursor.controller < controllers.upperBound {
            let e = channelEvents[cursor.controller]
            if e.tick == startTick, skipRestoredAtStart, ChannelState.isRestored(e.kind) {
                cursor.controller += 1
            } else {
                break
            }
        }
    }

    private mutating func advanceClickOff() {
        while cursor.clickOff < beats.count, beats[cursor.clickOff].click.count < 2 { cursor.clickOff += 1 }
    }

    /// The lesson tick sounding at a time offset from the pass start (the start tick during
    /// a count-in), for smooth displays.
    public func tick(atOffset offset: Double) -> Double {
        if offset <= countInSeconds { return Double(startTick) }
        let seconds = startSeconds + (min(offset, duration) - countInSeconds) * factor
        return min(Double(endTick), tempoMap.tick(atSeconds: seconds))
    }

    /// The notes sounding at clock time `now` or starting by `horizon` when the pass began at
    /// clock time `offset`, in order, as clock times; true in `passedHorizon` once a note
    /// starting after `horizon` was seen. Bisection and `Lesson.noteEnds` keep it to the
    /// notes shown, not the notes before them.
    func notesShown(now: Double, horizon: Double, offset: Double, lesson: Lesson) -> (notes: [TimedNote], passedHorizon: Bool) {
        var out: [TimedNote] = []
        func shown(_ n: TimedNote) { out.append(TimedNote(cue: n.cue, start: offset + n.start, end: offset + n.end)) }
        for n in notes.held {
            if offset + n.start > horizon { return (out, true) }
            if offset + n.end >= now { shown(n) }
        }
        let h0 = notes.held.count
        // First positions starting at or after `now`, and after `horizon` (the same comparisons
        // a scan would make, so the result is exactly the scan's).
        func firstPosition(where isPast: (Double) -> Bool) -> Int {
            var lo = h0, hi = notes.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                let start = offset + notes.timing.time(notes.lessonNotes[notes.first + mid - h0].startTick)
                if isPast(start) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
        let upTo = firstPosition { $0 > horizon }
        let fromNow = min(upTo, firstPosition { $0 >= now })
        // Started before now: only those still sounding, found by their end ticks.
        if fromNow > h0 {
            let lessonRange = notes.first..<(notes.first + fromNow - h0)
            let candidates: [Int]
            if lesson.noteEnds.count == lesson.notes.count, lesson.notes.count == notes.lessonNotes.count {
                let tick = tick(atOffset: now - offset)
                let threshold = tick.isFinite ? Int(saturating: tick.rounded(.down)) &- 1 : startTick
                candidates = lesson.noteEnds.indices(in: lessonRange, endingAtOrAfter: threshold)
            } else {
                candidates = Array(lessonRange)
            }
            for i in candidates {
                let n = notes[h0 + i - notes.first]
                if offset + n.end >= now { shown(n) }
            }
        }
        for p in fromNow..<upTo { shown(notes[p]) }
        return (out, upTo < notes.endIndex)
    }

    mutating func extraEvents(_ event: TimedEvent) {
        extras.append(event)
    }

    static func firstNote(in notes: [LessonNote], atOrAfter tick: Int) -> Int {
        var lo = 0, hi = notes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if notes[mid].startTick < tick { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    static func firstEvent(in events: [ChannelEvent], atOrAfter tick: Int) -> Int {
        var lo = 0, hi = events.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if events[mid].tick < tick { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

/// Seconds from a pass's start for a lesson tick.
struct PassTiming: Sendable {
    let map: TempoMap
    let startSeconds: Double
    let countIn: Double
    let factor: Double

    func time(_ tick: Int) -> Double { countIn + (map.seconds(atTick: tick) - startSeconds) / factor }
}

/// The notes of a pass, worked out as they are read (a 1,000,000-note pass keeps none of its
/// own): notes still held from before the start (a pass continued), then every note starting
/// in the range, sorted by start, with the velocity the plan gives it and its release clipped
/// to the range's end.
public struct PassNotes: RandomAccessCollection, Sendable {
    let held: [TimedNote]
    let lessonNotes: [LessonNote]
    /// `Lesson.notes` index of the first note starting in the range.
    let first: Int
    let regularCount: Int
    let timing: PassTiming
    let endTick: Int
    let hands: PracticePlan.Hands
    let otherHand: PracticePlan.OtherHand
    let playAccompaniment: Bool
    /// Whose notes the learner plays (`PracticePlan.expects`: hands and keyboard).
    let plan: PracticePlan

    init(held: [TimedNote], lessonNotes: [LessonNote], first: Int, regularCount: Int, timing: PassTiming, endTick: Int, plan: PracticePlan) {
        self.held = held
        self.lessonNotes = lessonNotes
        self.first = first
        self.regularCount = regularCount
        self.timing = timing
        self.endTick = endTick
        hands = plan.hands
        otherHand = plan.otherHand
        playAccompaniment = plan.playAccompaniment
        self.plan = plan
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { held.count + regularCount }

    public subscript(position: Int) -> TimedNote {
        if position < held.count { return held[position] }
        let i = first + position - held.count
        let n = lessonNotes[i]
        let practised = plan.expects(n)
        var velocity = n.velocity
        if practised {
            switch plan.learnerPart {
            case .heard: break
            case .silent: velocity = 0
            case .guide: velocity = UInt8(clamping: Swift.max(1, Int(saturating: (Double(n.velocity) * PracticePlan.LearnerPart.guideFactor).rounded())))
            }
        }
        switch n.part {
        case .accompaniment:
            if !playAccompaniment { velocity = 0 }
        case .hand:
            // A practised hand's note off the learner's keys is played as written.
            if !hands.practises(n.part) {
                switch otherHand {
                case .play: break
                case .quiet(let f): velocity = UInt8(clamping: Swift.max(1, Int(saturating: (Double(n.velocity) * f).rounded())))
                case .mute: velocity = 0
                }
            }
        }
        let end = Swift.min(n.endTick, endTick)
        let cue = NoteCue(index: i, pitch: n.pitch, channel: n.channel, part: n.part, practised: practised,
                          velocity: velocity, startTick: n.startTick, endTick: end)
        return TimedNote(cue: cue, start: timing.time(n.startTick), end: timing.time(end))
    }

    /// The position of the first note (after the held ones) starting at or after `tick`.
    func firstRegular(atOrAfterTick tick: Int) -> Int {
        var lo = first, hi = first + regularCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if lessonNotes[mid].startTick < tick { lo = mid + 1 } else { hi = mid }
        }
        return held.count + lo - first
    }

    /// The position of the first note (after the held ones) starting later than `seconds`.
    func firstRegular(startingAfter seconds: Double) -> Int {
        var lo = held.count, hi = endIndex
        while lo < hi {
            let mid = (lo + hi) / 2
            if timing.time(lessonNotes[first + mid - held.count].startTick) <= seconds { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The lesson's note index of a position, nil for a held note.
    func lessonIndex(_ position: Int) -> Int? {
        position >= held.count && position < endIndex ? first + position - held.count : nil
    }

    /// The position of the note with this `Lesson.notes` index among those starting in the
    /// range (nil when it is not one): a lookup, not a search.
    public func position(ofLessonNote index: Int) -> Int? {
        index >= first && index < first + regularCount ? held.count + index - first : nil
    }
}

/// Releases waiting to be played, smallest key first: only the notes that sound are in it.
struct ReleaseHeap: Sendable {
    struct Entry: Sendable {
        var key: PassSchedule.Key
        var event: TransportEvent
    }
    private var items: [Entry] = []

    var top: Entry? { items.first }

    mutating func push(_ e: Entry) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].key < items[parent].key else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        let out = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, items[l].key < items[m].key { m = l }
                if r < items.count, items[r].key < items[m].key { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return out
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
