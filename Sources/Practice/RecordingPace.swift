import Foundation
import Lesson
import MIDIFile

/// Where a recording is at each point of a lesson: the lesson's bar and beat ticks paired with
/// the seconds `etude align` found them at in the recording, joined by straight lines (a rubato
/// performance is followed beat by beat). Pure; both ways; beyond the ends at the nearest
/// segment's pace.
public struct RecordingTimeline: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var tick: Double
        public var seconds: Double
        public init(tick: Double, seconds: Double) {
            self.tick = tick
            self.seconds = seconds
        }
    }

    /// Strictly increasing in both tick and seconds.
    public let points: [Point]

    /// The points in lesson order; one that does not move on in both (a beat the alignment
    /// could not tell from the one before) is left out. Nil with fewer than two left.
    public init?(points given: [Point]) {
        var kept: [Point] = []
        for p in given.sorted(by: { $0.tick < $1.tick }) where p.tick.isFinite && p.seconds.isFinite {
            if let last = kept.last, p.tick <= last.tick || p.seconds <= last.seconds { continue }
            kept.append(p)
        }
        guard kept.count >= 2 else { return nil }
        points = kept
    }

    /// The segment (index of its first point) holding `x` by `key`, clamped to the ends.
    private func segment(_ x: Double, by key: (Point) -> Double) -> Int {
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if key(points[mid]) <= x { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Seconds into the recording at a lesson tick.
    public func seconds(atTick tick: Double) -> Double {
        let i = segment(tick, by: \.tick)
        let a = points[i], b = points[i + 1]
        return a.seconds + (tick - a.tick) * (b.seconds - a.seconds) / (b.tick - a.tick)
    }

    /// The lesson tick at a second of the recording.
    public func tick(atSeconds seconds: Double) -> Double {
        let i = segment(seconds, by: \.seconds)
        let a = points[i], b = points[i + 1]
        return a.tick + (seconds - a.seconds) * (b.tick - a.tick) / (b.seconds - a.seconds)
    }

    /// Recording seconds per tick around `tick`.
    public func secondsPerTick(atTick tick: Double) -> Double {
        let i = segment(tick, by: \.tick)
        let a = points[i], b = points[i + 1]
        return (b.seconds - a.seconds) / (b.tick - a.tick)
    }
}

/// How the music's clock runs so the lesson moves with a recording (`--recording`): the
/// transport plays the lesson at the practice tempo P % of its own tempo map, the recording is
/// heard at P % of its own speed, and between the two the session's clock is warped, segment by
/// segment of the `RecordingTimeline`, so the transport's tick is always where the recording
/// is. Its rate is (lesson seconds ÷ recording seconds) of the segment: P cancels out.
///
/// Anchored where the music last started or jumped (wall time, clock time, tick), the target
/// is computed from the anchor every step, never summed, so 20 ms steps add no drift. Pure: the
/// session applies what `step` returns to its `FollowedClock` (`retime`).
public struct RecordingPace: Sendable {
    public let timeline: RecordingTimeline
    public let tempoMap: TempoMap
    private var anchor: Anchor?

    struct Anchor: Sendable {
        var wall: Double
        var clock: Double
        var tick: Double
        var recording: Double
        var percent: Double
        var pass: Int
    }

    /// Further apart than this, the music jumped (a seek, `g`, a loop's next pass): anchored anew.
    public static let jumpSeconds = 0.25

    public init(timeline: RecordingTimeline, tempoMap: TempoMap) {
        self.timeline = timeline
        self.tempoMap = tempoMap
    }

    /// What the clock should do from `wall`: be at `score` (nil: where it is) and run at `rate`.
    public struct Move: Sendable, Equatable {
        public var score: Double?
        public var rate: Double
    }

    /// One step, on the session's owner: `clockNow` is the music's clock at base time `wall`.
    public mutating func step(wall: Double, clockNow: Double, transport: Transport) -> Move {
        guard transport.state == .playing, transport.countIn(at: clockNow) == nil else {
            anchor = nil
            return Move(score: nil, rate: 1)
        }
        let tick = transport.tick(at: clockNow)
        let percent = transport.tempoPercent
        if let a = anchor, a.percent != percent || a.pass != transport.pass { anchor = nil }
        if anchor == nil {
            anchor = Anchor(wall: wall, clock: clockNow, tick: tick, recording: timeline.seconds(atTick: tick),
                            percent: percent, pass: transport.pass)
        }
        guard var a = anchor else { return Move(score: nil, rate: 1) }
        var target = self.target(a, wall: wall)
        if abs(target.clock - clockNow) > Self.jumpSeconds {
            a = Anchor(wall: wall, clock: clockNow, tick: tick, recording: timeline.seconds(atTick: tick), percent: percent, pass: transport.pass)
            anchor = a
            target = self.target(a, wall: wall)
        }
        return Move(score: target.clock, rate: rate(atTick: target.tick))
    }

    /// Where the anchored music is at `wall`: the recording on at P % from the anchor.
    private func target(_ a: Anchor, wall: Double) -> (clock: Double, tick: Double) {
        let p = a.percent / 100
        let recording = a.recording + p * (wall - a.wall)
        let tick = timeline.tick(atSeconds: recording)
        return (a.clock + (tempoMap.seconds(atTick: tick) - tempoMap.seconds(atTick: a.tick)) / p, tick)
    }

    /// How long a pass of `transport` lasts in real seconds with the recording: its bars as long
    /// as the recording plays them at the practice tempo, in place of the lesson's (a count-in
    /// kept: the pace leaves it on real time).
    public func passSeconds(_ transport: Transport) -> Double {
        let ticks = transport.plan.tickRange(in: transport.lesson)
        let (lo, hi) = (Double(ticks.lowerBound), Double(ticks.upperBound))
        let speed = max(0.01, transport.tempoPercent / 100)
        let lesson = (tempoMap.seconds(atTick: hi) - tempoMap.seconds(atTick: lo)) / speed
        let recorded = (timeline.seconds(atTick: hi) - timeline.seconds(atTick: lo)) / speed
        return transport.passDuration - lesson + max(0, recorded)
    }

    /// The clock's rate at `tick`: lesson seconds per recording second there.
    public func rate(atTick tick: Double) -> Double {
        let lesson = tempoMap.seconds(atTick: tick + 1) - tempoMap.seconds(atTick: tick)
        let recording = timeline.secondsPerTick(atTick: tick)
        guard lesson > 0, recording > 0 else { return 1 }
        return min(10, max(0.1, lesson / recording))
    }
}
