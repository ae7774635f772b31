/// Wait mode: the lesson stops at each chord of the practised hand until the learner holds
/// all of its notes, then resumes from that chord's time.
///
/// Only keys pressed while the chord is current count (a key still held from the previous
/// chord must be struck again), and releasing a key before the others are down takes it
/// back out. The transport asks `waitingAt` where to pause and feeds every played event in.
public struct WaitGate: Sendable {
    public let chords: [Chord]
    /// Index of the chord being waited for; `chords.count` when the passage is done.
    public private(set) var index: Int = 0
    /// Pitches pressed since the current chord became current and not released since.
    public private(set) var struck: Set<Int> = []

    /// What one played event did.
    public enum Outcome: Equatable, Sendable {
        /// Nothing changed the chord's state (a release, or a right note while others are missing).
        case waiting(missing: Set<Int>)
        /// A key that is not in the current chord: flash it red.
        case wrong(pitch: Int)
        /// The whole chord is held: resume the lesson from `resumeAt` (the chord's time).
        case advanced(chord: Int, resumeAt: Double)
        /// The last chord was completed, or there was nothing to wait for.
        case finished
    }

    /// For onset-only sources (the computer keyboard, whose note-offs are synthetic): a key
    /// counts from its press until the chord is complete, so a chord can be typed key by key.
    public var ignoresReleases: Bool

    public init(chords: [Chord], ignoresReleases: Bool = false) {
        self.chords = chords
        self.ignoresReleases = ignoresReleases
    }

    /// Convenience: groups the practised parts' notes into chords.
    public init(expected: [ExpectedNote], parts: Set<String>? = nil, tolerance: Double = 0.02, ignoresReleases: Bool = false) {
        self.init(chords: Chord.group(expected, parts: parts, tolerance: tolerance), ignoresReleases: ignoresReleases)
    }

    public var isFinished: Bool { index >= chords.count }

    /// The chord being waited for.
    public var current: Chord? { isFinished ? nil : chords[index] }

    /// Lesson time at which the transport must pause until the current chord is held.
    public var waitingAt: Double? { current?.time }

    /// Pitches of the current chord not yet held (for key hints).
    public var missing: Set<Int> { (current?.pitches ?? []).subtracting(struck) }

    /// The note of the current chord a wrong key `pitch` stands for: the nearest in pitch among
    /// those not yet held (the one it replaced), else among all the chord's notes.
    public func replaced(by pitch: Int) -> ExpectedNote? {
        guard let chord = current else { return nil }
        let open = chord.notes.filter { !struck.contains($0.pitch) }
        return (open.isEmpty ? chord.notes : open).min { abs($0.pitch - pitch) < abs($1.pitch - pitch) }
    }

    /// Feeds one played event.
    public mutating func handle(_ event: PlayedEvent) -> Outcome {
        guard let chord = current else { return .finished }
        if !event.isOn {
            if !ignoresReleases { struck.remove(event.pitch) }
            return .waiting(missing: missing)
        }
        guard chord.pitches.contains(event.pitch) else { return .wrong(pitch: event.pitch) }
        struck.insert(event.pitch)
        guard missing.isEmpty else { return .waiting(missing: missing) }
        let done = index
        index += 1
        struck = []
        return .advanced(chord: done, resumeAt: chord.time)
    }

    /// Restarts at the first chord at or after `time` (loop restart, seek).
    public mutating func reset(to time: Double = -Double.infinity) {
        index = chords.firstIndex(where: { $0.time >= time - 1e-9 }) ?? chords.count
        struck = []
    }
}
