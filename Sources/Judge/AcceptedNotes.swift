/// Notes a lesson plays that a learner may play too but need not: grace notes (and an
/// ornament's extra notes). Struck near where they sound they are neither judged nor flashed
/// wrong; left out, nothing is missed. The main note they lead to is judged as usual.
public struct AcceptedNotes: Sendable, Equatable {
    /// Sorted by time.
    public private(set) var notes: [ExpectedNote]

    public init(_ notes: [ExpectedNote] = []) {
        self.notes = notes.sorted { $0.time < $1.time }
    }

    public var isEmpty: Bool { notes.isEmpty }

    /// Whether a key struck is one of them: one of this pitch sounds between `from` and `to`
    /// (pass seconds, inclusive).
    public func accepts(pitch: Int, from: Double, to: Double) -> Bool {
        var lo = 0, hi = notes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if notes[mid].time < from - 1e-9 { lo = mid + 1 } else { hi = mid }
        }
        while lo < notes.count, notes[lo].time <= to + 1e-9 {
            if notes[lo].pitch == pitch { return true }
            lo += 1
        }
        return false
    }

    /// The tempo changed at `time`: as `PlayMatcher.retime`.
    public mutating func retime(after time: Double, scale: Double) {
        guard scale.isFinite, scale > 0 else { return }
        for i in notes.indices where notes[i].time > time {
            notes[i].time = time + (notes[i].time - time) * scale
        }
    }
}
