/// Converts between ticks and seconds for a whole file, following every tempo change.
///
/// In formats 0 and 1 tempo events on any track apply to all tracks (at equal ticks, the
/// later track wins, as in a merged playback). Format 2 tracks are independent sequences,
/// so each has its own map (`TempoMap(file:track:)`). SMPTE-timed files ignore tempo events.
public struct TempoMap: Equatable, Sendable {
    /// A tempo in force from `tick` on; `seconds` is the time at that tick.
    public struct Segment: Equatable, Sendable {
        public var tick: Int
        public var seconds: Double
        public var microsecondsPerQuarter: Int
    }

    public private(set) var segments: [Segment]
    /// Ticks per quarter note (1 for SMPTE maps, where `ticksPerSecond` rules).
    public let ticksPerQuarter: Int
    /// Set for SMPTE files: fixed ticks per second.
    public let ticksPerSecond: Double?

    public static let defaultMicrosecondsPerQuarter = 500_000

    /// The map for a file; for format 2 pass the track whose own tempo events apply.
    public init(file: MIDIFile, track: Int? = nil) {
        var changes: [(tick: Int, us: Int)] = []
        let tracks: [Track]
        if file.format == 2, let track, file.tracks.indices.contains(track) {
            tracks = [file.tracks[track]]
        } else {
            tracks = file.tracks
        }
        for t in tracks {
            t.events.withUnsafeBufferPointer { events in
                for i in events.indices {
                    guard case .meta(MetaType.tempo, let d) = events[i].kind, d.count >= 3 else { continue }
                    let us = Int(d[0]) << 16 | Int(d[1]) << 8 | Int(d[2])
                    if us > 0 { changes.append((events[i].tick, us)) }
                }
            }
        }
        // Stable by tick: same-tick changes keep track order, the last one wins.
        let ordered = changes.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)
        self.init(division: file.division, changes: ordered)
    }

    /// A map from explicit tempo changes (tick, µs per quarter), already in tick order.
    public init(division: Division, changes: [(tick: Int, us: Int)]) {
        switch division {
        case .ticksPerQuarter(let t):
            ticksPerQuarter = max(1, t)
            ticksPerSecond = nil
        case .smpte(_, let tpf):
            ticksPerQuarter = 1
            ticksPerSecond = (division.framesPerSecond ?? 25) * Double(max(1, tpf))
        }
        var segs = [Segment(tick: 0, seconds: 0, microsecondsPerQuarter: Self.defaultMicrosecondsPerQuarter)]
        if ticksPerSecond == nil {
            for change in changes {
                let last = segs[segs.count - 1]
                if change.tick == last.tick {
                    segs[segs.count - 1].microsecondsPerQuarter = change.us
                } else {
                    let seconds = last.seconds + Double(change.tick - last.tick) * Double(last.microsecondsPerQuarter) / (1_000_000 * Double(ticksPerQuarter))
                    segs.append(Segment(tick: change.tick, seconds: seconds, microsecondsPerQuarter: change.us))
                }
            }
        }
        segments = segs
    }

    /// Tempo changes in effect order, for display (`etude info`).
    public var changes: [(tick: Int, microsecondsPerQuarter: Int)] {
        segments.map { ($0.tick, $0.microsecondsPerQuarter) }
    }

    func segmentIndex(atTick tick: Int) -> Int {
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].tick <= tick { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    public func seconds(atTick tick: Int) -> Double {
        seconds(atTick: Double(tick))
    }

    public func seconds(atTick tick: Double) -> Double {
        if let tps = ticksPerSecond { return tick / tps }
        // Beyond any file's ticks (or not a number): no segment to look up, and Int(_:) would trap.
        guard tick.isFinite, abs(tick) < 9e15 else { return tick.isNaN ? 0 : (tick > 0 ? .infinity : -.infinity) }
        let whole = tick >= 0 ? Int(tick) : Int(tick) - 1  // floor without libm
        let s = segments[segmentIndex(atTick: whole)]
        return s.seconds + (tick - Double(s.tick)) * Double(s.microsecondsPerQuarter) / (1_000_000 * Double(ticksPerQuarter))
    }

    /// Fractional tick at a time in seconds (inverse of `seconds(atTick:)`).
    public func tick(atSeconds seconds: Double) -> Double {
        if let tps = ticksPerSecond { return seconds * tps }
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].seconds <= seconds { lo = mid } else { hi = mid - 1 }
        }
        let s = segments[lo]
        return Double(s.tick) + (seconds - s.seconds) * 1_000_000 * Double(ticksPerQuarter) / Double(s.microsecondsPerQuarter)
    }

    /// Converts ticks that mostly move forward (a track's events) without a search per event:
    /// it keeps the current segment's bounds, so the common case is one compare and one
    /// multiply-divide (the same arithmetic as `seconds(atTick:)`, so the results are identical).
    public struct Cursor {
        let map: TempoMap
        var index = 0
        @usableFromInline var lower = Int.max
        @usableFromInline var upper = Int.min
        @usableFromInline var start = 0.0
        @usableFromInline var us = 0.0
        @usableFromInline let perQuarter: Double
        let ticksPerSecond: Double

        init(map: TempoMap) {
            self.map = map
            perQuarter = 1_000_000 * Double(map.ticksPerQuarter)
            ticksPerSecond = map.ticksPerSecond ?? 0
        }

        /// Inlined into callers in other modules: the fast path is the whole cost of timing a track.
        @inlinable
        public mutating func seconds(atTick tick: Int) -> Double {
            if tick >= lower && tick < upper {
                return start + Double(tick - lower) * us / perQuarter
            }
            return move(toTick: tick)
        }

        @usableFromInline
        mutating func move(toTick tick: Int) -> Double {
            if ticksPerSecond > 0 { return Double(tick) / ticksPerSecond }
            let segs = map.segments
            if tick < segs[index].tick { index = map.segmentIndex(atTick: tick) }
            while index + 1 < segs.count && segs[index + 1].tick <= tick { index += 1 }
            let s = segs[index]
            lower = s.tick
            upper = index + 1 < segs.count ? segs[index + 1].tick : Int.max
            start = s.seconds
            us = Double(s.microsecondsPerQuarter)
            return start + Double(tick - lower) * us / perQuarter
        }
    }

    public func cursor() -> Cursor { Cursor(map: self) }

    public func microsecondsPerQuarter(atTick tick: Int) -> Int {
        segments[segmentIndex(atTick: tick)].microsecondsPerQuarter
    }

    /// Quarter-note beats per minute at a tick.
    public func bpm(atTick tick: Int) -> Double {
        60_000_000 / Double(microsecondsPerQuarter(atTick: tick))
    }
}

extension MIDIFile {
    /// Time of the last event of any track, in seconds (format 2: the longest sequence).
    public var durationSeconds: Double {
        if format == 2 {
            var longest = 0.0
            for (i, t) in tracks.enumerated() {
                longest = max(longest, TempoMap(file: self, track: i).seconds(atTick: t.endTick))
            }
            return longest
        }
        let map = TempoMap(file: self)
        return map.seconds(atTick: tracks.map(\.endTick).max() ?? 0)
    }
}
