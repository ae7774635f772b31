import MIDIFile

/// One bar of the score with its place in ticks.
public struct Bar: Equatable, Sendable {
    /// The bar's place in the performance: from 1, or 0 for a pickup (anacrusis). Plans, loops
    /// and the transport count bars by it; for lessons without printed numbers it is also the
    /// number the learner uses.
    public var number: Int
    public var startTick: Int
    /// First tick after the bar.
    public var endTick: Int
    public var signature: TimeSignature
    /// Ticks per counted beat (a dotted quarter in 6/8, 9/8, 12/8).
    public var beatTicks: Int
    /// Tick where beat 1 would be; earlier than `startTick` in a pickup, whose beats are
    /// numbered as the end of a full bar (a one-beat pickup in 4/4 is beat 4).
    public var downbeatTick: Int
    public var isPickup: Bool
    /// The number printed on the bar (a MusicXML score's `etude:bar` numbers, which repeats
    /// give again); equal to `number` for lessons that do not print numbers.
    public var printed: Int = 0
    /// Which time the printed bar is played: 1 the first time, 2 the second time through a
    /// repeat, and so on (always 1 without printed numbers).
    public var pass: Int = 1

    public var lengthTicks: Int { endTick - startTick }

    /// Ticks of every counted beat inside the bar, with its number (1-based).
    public var beats: [(tick: Int, number: Int)] {
        guard beatTicks > 0 else { return [] }
        var out: [(Int, Int)] = []
        var n = 0
        var t = downbeatTick
        while t < endTick {
            if t >= startTick { out.append((t, n + 1)) }
            n += 1
            t += beatTicks
        }
        return out
    }

    /// Beats in a full bar of this signature.
    public var beatsPerBar: Int { BarMap.beatsPerBar(signature) }
}

/// A position in the score: bar and beat, both as the learner counts them.
public struct Position: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var bar: Int
    public var beat: Int

    public init(bar: Int, beat: Int = 1) {
        self.bar = bar
        self.beat = beat
    }

    /// Parses `12` (bar 12, beat 1) or `12.3` (bar 12, beat 3).
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let bar = Int(parts[0]), bar >= 0 else { return nil }
        var beat = 1
        if parts.count == 2 {
            guard let b = Int(parts[1]), b >= 1 else { return nil }
            beat = b
        }
        self.init(bar: bar, beat: beat)
    }

    public var description: String { "\(bar).\(beat)" }
}

/// Bars and beats over the lesson's ticks, from its time signatures (4/4 when it has none).
///
/// A time signature change that falls inside a bar ends that bar early. A first bar that is
/// shorter than the signature that follows it (cut short by a signature event, or written
/// as a short signature like 1/4 before 4/4) is a pickup, numbered 0.
public struct BarMap: Equatable, Sendable {
    public let ticksPerQuarter: Int
    public private(set) var bars: [Bar]
    /// True when the bars come from the file's printed bar numbers (`etude:bar` annotations,
    /// as MusicXML scores have): the learner then names bars by `Bar.printed` and `Bar.pass`.
    public private(set) var isPrinted = false
    /// For printed bars: the indices into `bars` of each printed number, rising (see
    /// `firstIndex(printed:from:)`).
    private(set) var printedPlaces: [Int: [Int]] = [:]

    /// `onsets` (note start ticks, drums excluded) let a pickup be found in files that give
    /// no sign of it: see `pickupFromOnsets`.
    public init(ticksPerQuarter: Int, timeSignatures: [TimedValue<TimeSignature>], endTick: Int, onsets: [Int] = []) {
        self.ticksPerQuarter = max(1, ticksPerQuarter)
        let tpq = self.ticksPerQuarter
        // Same-tick signatures: the last wins.
        var sigs: [TimedValue<TimeSignature>] = []
        for s in timeSignatures where s.tick >= 0 {
            if let last = sigs.last, last.tick == s.tick { sigs[sigs.count - 1] = s } else { sigs.append(s) }
        }
        let fourFour = TimeSignature(numerator: 4, denominatorPower: 2)
        var current = fourFour
        var next = 0
        if let first = sigs.first, first.tick == 0 {
            current = first.value
            next = 1
        }
        var bars: [Bar] = []
        var tick = 0
        let end = max(endTick, 1)
        while tick < end || bars.isEmpty {
            let full = BarMap.barTicks(current, tpq: tpq)
            var barEnd = tick + full
            if next < sigs.count, sigs[next].tick < barEnd, sigs[next].tick > tick {
                barEnd = sigs[next].tick
            }
            bars.append(Bar(number: bars.count + 1, startTick: tick, endTick: barEnd, signature: current,
                            beatTicks: BarMap.beatTicks(current, tpq: tpq), downbeatTick: tick, isPickup: false))
            tick = barEnd
            while next < sigs.count, sigs[next].tick <= tick {
                current = sigs[next].value
                next += 1
            }
            if bars.count > 1_000_000 { break }
        }
        // Pickup: the first bar is shorter than the bar that follows it.
        if bars.count >= 2 {
            let first = bars[0], second = bars[1]
            let nominal = BarMap.barTicks(second.signature, tpq: tpq)
            if first.lengthTicks < nominal && second.lengthTicks == nominal {
                bars[0].isPickup = true
                bars[0].number = 0
                bars[0].signature = second.signature
                bars[0].beatTicks = second.beatTicks
                bars[0].downbeatTick = first.endTick - nominal
                for i in 1..<bars.count { bars[i].number = i }
            }
        }
        // A pickup no signature event shows: the notes' downbeats sit a fixed offset into
        // every bar (a notation program wrote the pickup at its real length under 4/4).
        if !bars[0].isPickup, sigs.count <= 1, sigs.first.map({ $0.tick == 0 }) ?? true,
           let offset = BarMap.pickupFromOnsets(onsets, signature: bars[0].signature, tpq: tpq) {
            let sig = bars[0].signature
            let full = BarMap.barTicks(sig, tpq: tpq)
            let beat = BarMap.beatTicks(sig, tpq: tpq)
            var shifted = [Bar(number: 0, startTick: 0, endTick: offset, signature: sig, beatTicks: beat,
                               downbeatTick: offset - full, isPickup: true)]
            var t = offset
            while t < end, shifted.count <= 1_000_000 {
                shifted.append(Bar(number: shifted.count, startTick: t, endTick: t + full, signature: sig, beatTicks: beat,
                                   downbeatTick: t, isPickup: false))
                t += full
            }
            if shifted.count >= 2 { bars = shifted }
        }
        for i in bars.indices { bars[i].printed = bars[i].number }
        self.bars = bars
    }

    /// Bars exactly where the file's printed bar lines are (`Annotations.bars`: start tick and
    /// printed number, in playing order), beats from the time signature in force at each. A
    /// first bar numbered 0 is the pickup (beats counted as the end of a full bar); `number`
    /// counts the bars played (0 for the pickup, then 1, 2 …) and `pass` how many times each
    /// printed number has come round. The last bar ends at `endTick`.
    public init(ticksPerQuarter: Int, timeSignatures: [TimedValue<TimeSignature>], printedBars: [(tick: Int, printed: Int)], endTick: Int) {
        self.ticksPerQuarter = max(1, ticksPerQuarter)
        let tpq = self.ticksPerQuarter
        var starts: [(tick: Int, printed: Int)] = []
        for b in printedBars where b.tick >= 0 {
            if let last = starts.last {
                if b.tick == last.tick { starts[starts.count - 1] = b; continue }
                if b.tick < last.tick { continue }
            }
            starts.append(b)
        }
        if let first = starts.first, first.tick > 0 {
            starts.insert((0, max(0, first.printed - 1)), at: 0)
        }
        if starts.isEmpty { starts = [(0, 1)] }
        let fourFour = TimeSignature(numerator: 4, denominatorPower: 2)
        let pickup = starts[0].printed == 0
        var seen: [Int: Int] = [:]
        var bars: [Bar] = []
        bars.reserveCapacity(starts.count)
        var s = 0
        for (k, b) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].tick : max(endTick, b.tick + 1)
            while s + 1 < timeSignatures.count, timeSignatures[s + 1].tick <= b.tick { s += 1 }
            let sig = timeSignatures.first.map { $0.tick <= b.tick ? timeSignatures[s].value : fourFour } ?? fourFour
            let full = BarMap.barTicks(sig, tpq: tpq)
            let pass = (seen[b.printed] ?? 0) + 1
            seen[b.printed] = pass
            let short = k == 0 && end - b.tick < full
            bars.append(Bar(number: pickup ? k : k + 1, startTick: b.tick, endTick: end, signature: sig,
                            beatTicks: BarMap.beatTicks(sig, tpq: tpq), downbeatTick: short ? end - full : b.tick,
                            isPickup: k == 0 && pickup, printed: b.printed, pass: pass))
        }
        var places: [Int: [Int]] = [:]
        for (i, b) in bars.enumerated() { places[b.printed, default: []].append(i) }
        self.bars = bars
        self.isPrinted = true
        self.printedPlaces = places
    }

    /// The length of an unmarked pickup, or nil. Note starts are counted by their place in
    /// the bar (on an eighth-note grid); if some place other than the bar line has clearly
    /// the most (at least 8, and half again as many as the bar line), the music's downbeats
    /// are there and what comes before the first of them is a pickup.
    static func pickupFromOnsets(_ onsets: [Int], signature: TimeSignature, tpq: Int) -> Int? {
        let full = barTicks(signature, tpq: tpq)
        let grid = max(1, min(tpq / 2, tpq * 4 / max(1, signature.denominator)))
        guard full > grid else { return nil }
        var histogram: [Int: Int] = [:]
        for t in onsets where t >= 0 { histogram[t % full, default: 0] += 1 }
        let atBarLine = histogram[0] ?? 0
        var best = 0, bestCount = atBarLine
        var o = grid
        while o < full {
            if let c = histogram[o], c > bestCount {
                best = o
                bestCount = c
            }
            o += grid
        }
        guard best != 0, bestCount >= 8, Double(bestCount) >= 1.5 * Double(max(1, atBarLine)) else { return nil }
        return best
    }

    /// Ticks in a full bar of a signature.
    public static func barTicks(_ sig: TimeSignature, tpq: Int) -> Int {
        max(1, sig.numerator * tpq * 4 / max(1, sig.denominator))
    }

    /// Compound meters (6/8, 9/8, 12/8, 6/16 …) count dotted beats.
    public static func isCompound(_ sig: TimeSignature) -> Bool {
        sig.denominator >= 8 && sig.numerator > 3 && sig.numerator % 3 == 0
    }

    public static func beatTicks(_ sig: TimeSignature, tpq: Int) -> Int {
        let unit = max(1, tpq * 4 / max(1, sig.denominator))
        return isCompound(sig) ? unit * 3 : unit
    }

    public static func beatsPerBar(_ sig: TimeSignature) -> Int {
        isCompound(sig) ? sig.numerator / 3 : sig.numerator
    }

    public var hasPickup: Bool { bars.first?.isPickup ?? false }
    public var firstNumber: Int { bars.first?.number ?? 1 }
    public var lastNumber: Int { bars.last?.number ?? 1 }
    /// Numbered bars (the pickup not counted), as a score would say "32 bars".
    public var count: Int { bars.count - (hasPickup ? 1 : 0) }

    /// Why bars starting at `first` (or ending past the last) are not in this lesson, the one
    /// wording for every command: bar 0 exists only as a pickup, bars start at 1.
    public func outOfRange(_ first: Int) -> String {
        let plural = count == 1 ? "" : "s"
        if first == 0 && !hasPickup { return "bars start at 1 (this lesson has no pickup bar 0); it has \(count) bar\(plural)" }
        if first < 0 { return "bars start at \(hasPickup ? 0 : 1)" }
        return "the lesson has \(count) bar\(plural)" + (hasPickup ? " (0–\(lastNumber) counting the pickup bar 0)" : "")
    }

    /// The bar with a score number (0 = pickup), nil when the lesson has none such.
    public func bar(number: Int) -> Bar? {
        let i = number - firstNumber
        return bars.indices.contains(i) ? bars[i] : nil
    }

    /// Index into `bars` of the bar holding a tick (clamped to the first/last bar).
    public func index(atTick tick: Int) -> Int {
        guard let first = bars.first, tick >= first.startTick else { return 0 }
        var lo = 0, hi = bars.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if bars[mid].startTick <= tick { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The bar holding a tick (ticks past the end belong to the last bar).
    public func bar(atTick tick: Int) -> Bar {
        bars[index(atTick: tick)]
    }

    /// Bar and beat at a tick (the beat counting from the bar's downbeat).
    public func position(atTick tick: Int) -> Position {
        let b = bar(atTick: tick)
        let beat = b.beatTicks > 0 ? max(0, tick - b.downbeatTick) / b.beatTicks + 1 : 1
        return Position(bar: b.number, beat: beat)
    }

    /// Tick of a bar.beat position, nil when the bar or beat does not exist.
    public func tick(at position: Position) -> Int? {
        guard let b = bar(number: position.bar) else { return nil }
        let t = b.downbeatTick + (position.beat - 1) * b.beatTicks
        guard t >= b.startTick, t < b.endTick else { return nil }
        return t
    }

    /// Every counted beat with `startTick <= tick < endTick`.
    public func beats(from startTick: Int, to endTick: Int) -> [(tick: Int, bar: Int, beat: Int)] {
        var out: [(Int, Int, Int)] = []
        var i = index(atTick: startTick)
        while i < bars.count, bars[i].startTick < endTick {
            for b in bars[i].beats where b.tick >= startTick && b.tick < endTick {
                out.append((b.tick, bars[i].number, b.number))
            }
            i += 1
        }
        return out
    }
}

/// A named stretch of bars to practise: from marker events, else every four bars.
public struct Section: Equatable, Sendable {
    public var name: String
    public var firstBar: Int
    public var lastBar: Int

    public init(name: String, firstBar: Int, lastBar: Int) {
        self.name = name
        self.firstBar = firstBar
        self.lastBar = lastBar
    }

    static func sections(bars: BarMap, markers: [TimedValue<String>]) -> [Section] {
        let first = bars.firstNumber, last = bars.lastNumber
        var starts: [(bar: Int, name: String)] = []
        for m in markers {
            var number = bars.bar(atTick: m.tick).number
            // A marker on the pickup belongs to the first full bar's section.
            if number == 0, bars.hasPickup { number = first }
            if let l = starts.last, l.bar == number { continue }
            let name = m.value.isEmpty ? "Section \(starts.count + 1)" : m.value
            starts.append((number, name))
        }
        var out: [Section] = []
        if starts.isEmpty {
            var b = first
            while b <= last {
                let start = b
                var end = b == 0 ? 4 : b + 3
                end = min(end, last)
                out.append(Section(name: "Bars \(bars.label(ofRange: start...end))", firstBar: start, lastBar: end))
                b = end + 1
            }
            return out
        }
        if starts[0].bar > first {
            starts.insert((first, "Start"), at: 0)
        }
        for (k, s) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].bar - 1 : last
            out.append(Section(name: s.name, firstBar: s.bar, lastBar: max(s.bar, end)))
        }
        return out
    }
}
