import MIDIFile

/// A tempo as a score marks it: in the beat's note value, so a 3/8 minuet at 60 quarter notes
/// a minute reads ♪=120 and a 6/8 jig ♩.=40, where MIDI only counts quarter notes. The beat is
/// the metronome's (`BarMap.beatTicks`); beats no terminal symbol shows well (halves,
/// sixteenths) keep the quarter-note count.
public struct TempoMark: Equatable, Sendable, CustomStringConvertible {
    /// ♩, ♪ or ♩. (a dotted quarter).
    public var symbol: String
    /// Beats of that value per minute.
    public var perMinute: Double

    public init(quarterBPM: Double, signature: TimeSignature) {
        let quarters = Double(BarMap.beatTicks(signature, tpq: 480)) / 480
        switch quarters {
        case 0.5: self.init(symbol: "♪", perMinute: quarterBPM * 2)
        case 1.5: self.init(symbol: "♩.", perMinute: quarterBPM / 1.5)
        default: self.init(symbol: "♩", perMinute: quarterBPM)
        }
    }

    public init(symbol: String, perMinute: Double) {
        self.symbol = symbol
        self.perMinute = perMinute
    }

    /// `♪=120`; a tempo no one could play (∞, NaN) is `♩=–`.
    public var description: String {
        guard perMinute.isFinite, abs(perMinute) < 1e9 else { return "\(symbol)=–" }
        return "\(symbol)=\(Int(perMinute.rounded()))"
    }
}

extension Lesson {
    /// The tempo as the score marks it at a bar (the bar's own time signature).
    public func tempoMark(quarterBPM: Double, atBar number: Int) -> TempoMark {
        let signature = bars.bar(number: number)?.signature ?? timeSignature(atTick: 0)
        return TempoMark(quarterBPM: quarterBPM, signature: signature)
    }

    /// The tempo as the score marks it at a time into the piece (for players that seek by seconds).
    public func tempoMark(quarterBPM: Double, atSeconds seconds: Double) -> TempoMark {
        let tick = tempoMap.tick(atSeconds: seconds)
        let whole = tick.isFinite && abs(tick) < 9e15 ? Int(tick) : 0
        return TempoMark(quarterBPM: quarterBPM, signature: timeSignature(atTick: whole))
    }
}
