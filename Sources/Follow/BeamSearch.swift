/// One hypothesis of where the performance is, after a key: the chord the key landed on, which
/// of its notes are played, what it cost to get here, and the tempo and onset it implies.
///
/// A hidden-Markov walk over the score's chords (as Nakamura's aligners walk a score's
/// events): each key either lands on the chord it is at (another of its notes, or an extra),
/// moves on to one of the next few chords (those skipped are missed), or jumps (a restart or a
/// skipped passage). Each hypothesis carries its own onset and tempo, so timing is judged
/// against the tempo the learner has been keeping, not the written one.
struct Hypothesis: Sendable {
    /// -1: before the score; `chordCount`: after it; else a chord.
    var chord: Int32
    /// The chord's notes played so far on this path (bit k: the chord's k-th note).
    var matched: UInt64
    /// Wrong keys that landed on the chord while notes of it were unplayed: each stands for one
    /// of them (a substitution, dearer than nothing but cheaper than an extra key and a miss).
    var substituted: UInt8 = 0
    var cost: Double
    /// Performance time the chord's onset is placed at (the first key that landed on it).
    var anchor: Double
    /// Performance seconds per score second.
    var tempo: Double
    /// The hypothesis it came from, in the previous key's beam (-1: none).
    var back: Int32
    /// The score note (index into `FollowScore.notes`) this key played, -1 when none.
    var note: Int32
    /// True when this key jumped here (a restart or a skip beyond `maxSkip`).
    var jumped: Bool

    /// What the offline aligner keeps of each hypothesis to trace the path back (32 bytes).
    struct Kept: Sendable {
        var anchor: Double
        var tempo: Double
        var chord: Int32
        var back: Int32
        var note: Int32
        var jumped: Bool

        init(_ h: Hypothesis) {
            anchor = h.anchor
            tempo = h.tempo
            chord = h.chord
            back = h.back
            note = h.note
            jumped = h.jumped
        }
    }
}

/// The walk itself, one key at a time, keeping the best `model.beam` hypotheses. The online
/// follower keeps only the current beam; the offline aligner keeps every beam to trace the best
/// path back. Work per key is bounded by the beam, `maxSkip` and `jumpCandidates`, whatever the
/// score's length.
struct BeamSearch: Sendable {
    let score: FollowScore
    let model: FollowModel
    private(set) var beam: [Hypothesis]
    private var candidates: [Hypothesis] = []
    private var ranked: [(cost: Double, index: Int32)] = []
    /// Per state (chord + 1): the generation it was last offered in, and where.
    private var stamp: [Int32]
    private var slot: [Int32]
    private var generation: Int32 = 0

    init(score: FollowScore, model: FollowModel) {
        self.score = score
        self.model = model
        beam = [Hypothesis(chord: -1, matched: 0, cost: 0, anchor: .nan, tempo: 1, back: -1, note: -1, jumped: false)]
        stamp = Array(repeating: -1, count: 2 * score.chordCount + 4)
        slot = Array(repeating: 0, count: 2 * score.chordCount + 4)
        candidates.reserveCapacity(model.beam * (model.maxSkip + 2) + model.jumpCandidates + 8)
    }

    var chordCount: Int { score.chordCount }

    /// Starts over just before chord `chord` (its notes and all before it taken as played, no
    /// onset yet to time the next key against), keeping `tempo`: the music was moved there.
    mutating func reset(before chord: Int, tempo: Double) {
        let c = min(max(chord, 0), chordCount) - 1
        var h = Hypothesis(chord: Int32(c), matched: 0, cost: 0, anchor: .nan, tempo: tempo, back: -1, note: -1, jumped: false)
        if c >= 0 {
            let n = score.range(ofChord: c).count
            h.matched = n >= 64 ? ~0 : (UInt64(1) << UInt64(n)) - 1
        }
        beam = [h]
    }

    /// Notes of the hypothesis' chord not played on its path.
    func unplayed(_ h: Hypothesis) -> Int {
        let c = Int(h.chord)
        guard c >= 0, c < chordCount else { return 0 }
        return max(0, score.range(ofChord: c).count - h.matched.nonzeroBitCount - Int(h.substituted))
    }

    /// The first unplayed note of chord `c` with `pitch` (its index within the chord).
    private func unplayedNote(chord c: Int, mask: UInt64, pitch: Int) -> Int? {
        let r = score.range(ofChord: c)
        var k = 0
        for i in r {
            if score.notes[i].pitch == pitch && mask & (1 << UInt64(k)) == 0 { return k }
            k += 1
        }
        return nil
    }

    /// True when a note of chord `c` lies a semitone or two from `pitch` (a slip onto a neighbour).
    private func neighbours(chord c: Int, pitch: Int) -> Bool {
        score.notes[score.range(ofChord: c)].contains { abs($0.pitch - pitch) <= 2 }
    }

    /// The cost of an onset at `t` on chord `c` after `h`, by the tempo `h` has kept.
    private func timingCost(_ h: Hypothesis, to c: Int, at t: Double) -> Double {
        let from = Int(h.chord)
        guard from >= 0, from < chordCount, !h.anchor.isNaN else { return 0 }
        let interval = (score.chordTime[c] - score.chordTime[from]) * h.tempo
        let deviation = t - (h.anchor + interval)
        let allowed = model.timingFloor + model.timingShare * max(0, interval)
        return deviation >= 0 ? min(deviation / allowed, model.lateCap) : min(-deviation / allowed, model.earlyCap)
    }

    /// The tempo after an onset at `t` on chord `c` following `h`: moved towards the interval
    /// just played, unless that interval is far off (a stop, a hesitation: the tempo holds).
    private func tempo(after h: Hypothesis, to c: Int, at t: Double) -> Double {
        let from = Int(h.chord)
        guard from >= 0, from < chordCount, !h.anchor.isNaN else { return h.tempo }
        let span = score.chordTime[c] - score.chordTime[from]
        guard span > 0.02 else { return h.tempo }
        let ratio = (t - h.anchor) / span / h.tempo
        guard ratio > 0.55, ratio < 1.8 else { return h.tempo }
        let next = h.tempo * pow(ratio, model.tempoGain)
        return min(max(next, 0.25), 4)
    }

    /// Keeps the cheapest hypothesis per chord and way in: one that stays on its chord and one
    /// that has just come to it are different states (the second has this key's onset and all
    /// the chord's notes still to play), so neither hides the other.
    private mutating func offer(_ h: Hypothesis, entering: Bool) {
        let key = (Int(h.chord) + 1) * 2 + (entering ? 1 : 0)
        if stamp[key] == generation {
            let at = Int(slot[key])
            if h.cost < candidates[at].cost { candidates[at] = h }
        } else {
            stamp[key] = generation
            slot[key] = Int32(candidates.count)
            candidates.append(h)
        }
    }

    /// Walks one key further. Returns the new beam, best first.
    mutating func step(_ key: PerformedNote) {
        generation &+= 1
        candidates.removeAll(keepingCapacity: true)
        let t = key.time
        let pitch = key.pitch
        let last = chordCount  // the state after the score
        // No new hypothesis dearer than this survives: the best one now costs at most a stray more.
        let ceiling = (beam.first?.cost ?? 0) + max(model.beforeCost, model.extraCost) + model.beamWidth
        for (i, h) in beam.enumerated() {
            let c = Int(h.chord)
            var stay = h
            stay.back = Int32(i)
            stay.note = -1
            stay.jumped = false
            // Staying: another note of the chord, or a key that is not one (outside the score: a stray).
            if c < 0 || c >= last {
                stay.cost += c < 0 ? model.beforeCost : model.afterCost
                offer(stay, entering: false)
            } else {
                stay.cost += model.extraCost
                if unplayed(h) > 0 { stay.substituted &+= 1 }
                if let k = unplayedNote(chord: c, mask: h.matched, pitch: pitch) {
                    let spread = max(0, t - h.anchor - model.chordSpread) / 0.1
                    if spread < model.extraCost {
                        stay.cost = h.cost + spread
                        stay.substituted = h.substituted
                        stay.matched |= 1 << UInt64(k)
                        stay.note = Int32(score.range(ofChord: c).lowerBound + k)
                    }
                }
                offer(stay, entering: false)
            }
            guard c < last else { continue }
            // Moving on to one of the next chords; the notes left behind are missed.
            let leaving = Double(unplayed(h)) * model.missCost
            let firstNext = c + 1
            let lastNext = min(last - 1, c + model.maxSkip)
            if firstNext <= lastNext {
                for c2 in firstNext...lastNext {
                    let skipped = leaving + Double(score.notesBefore[c2] - score.notesBefore[firstNext]) * model.missCost
                    if h.cost + skipped > ceiling { break }
                    var next = Hypothesis(chord: Int32(c2), matched: 0, cost: h.cost + skipped + timingCost(h, to: c2, at: t),
                                          anchor: t, tempo: h.tempo, back: Int32(i), note: -1, jumped: false)
                    if let k = unplayedNote(chord: c2, mask: 0, pitch: pitch) {
                        next.matched = 1 << UInt64(k)
                        next.note = Int32(score.range(ofChord: c2).lowerBound + k)
                        next.tempo = tempo(after: h, to: c2, at: t)
                    } else {
                        next.cost += neighbours(chord: c2, pitch: pitch) ? model.slipCost : model.extraCost
                        next.substituted = 1
                    }
                    offer(next, entering: true)
                }
            }
            // Past the end: every note after this one missed, the key a stray.
            if c >= 0, c + model.maxSkip >= last - 1 {
                let skipped = leaving + Double(score.notesBefore[last] - score.notesBefore[firstNext]) * model.missCost
                offer(Hypothesis(chord: Int32(last), matched: 0, cost: h.cost + skipped + model.afterCost, anchor: t, tempo: h.tempo,
                                 back: Int32(i), note: -1, jumped: false), entering: true)
            }
        }
        jump(t: t, pitch: pitch)
        prune()
    }

    /// Jumps from the best hypothesis to the chords nearest it where the key is written: a
    /// restart a few bars back, a passage skipped, the piece begun in its middle.
    private mutating func jump(t: Double, pitch: Int) {
        guard let best = beam.first, (0..<128).contains(pitch), Int(best.chord) < chordCount else { return }
        let list = score.chordsWithPitch[pitch]
        guard !list.isEmpty else { return }
        let here = Int(best.chord)
        let leaving = Double(unplayed(best)) * model.missCost
        // The nearest chords around `here`, both ways.
        var hi = 0, lo = list.count
        while hi < lo {
            let mid = (hi + lo) / 2
            if Int(list[mid]) <= here { hi = mid + 1 } else { lo = mid }
        }
        var down = hi - 1, up = hi
        var taken = 0
        func consider(_ c2: Int, _ search: inout BeamSearch) {
            let distance = abs(c2 - here)
            // Back: a restart, its price fixed. On: the notes jumped over are missed.
            let skipped = c2 > here ? Double(search.score.notesBefore[c2] - search.score.notesBefore[here + 1]) * search.model.missCost : 0
            let price = c2 > here ? search.model.skipCost : search.model.jumpCost
            let cost = best.cost + leaving + skipped + price + 0.3 * log(1 + Double(distance))
            guard let k = search.unplayedNote(chord: c2, mask: 0, pitch: pitch) else { return }
            search.offer(Hypothesis(chord: Int32(c2), matched: 1 << UInt64(k), cost: cost, anchor: t, tempo: best.tempo, back: 0,
                                    note: Int32(search.score.range(ofChord: c2).lowerBound + k), jumped: true), entering: true)
        }
        while taken < model.jumpCandidates && (down >= 0 || up < list.count) {
            let dDown = down >= 0 ? here - Int(list[down]) : Int.max
            let dUp = up < list.count ? Int(list[up]) - here : Int.max
            if dDown <= dUp {
                consider(Int(list[down]), &self)
                down -= 1
            } else {
                consider(Int(list[up]), &self)
                up += 1
            }
            taken += 1
        }
        // A restart from the top is always in reach.
        for c2 in list.prefix(2) where Int(c2) < here - model.maxSkip { consider(Int(c2), &self) }
    }

    private mutating func prune() {
        var best = Double.infinity
        for h in candidates where h.cost < best { best = h.cost }
        let limit = best + model.beamWidth
        ranked.removeAll(keepingCapacity: true)
        for (i, h) in candidates.enumerated() where h.cost <= limit { ranked.append((h.cost, Int32(i))) }
        // Sorting (cost, index) pairs, not the hypotheses themselves; ties keep the order offered.
        ranked.sort { $0.cost != $1.cost ? $0.cost < $1.cost : $0.index < $1.index }
        beam.removeAll(keepingCapacity: true)
        for r in ranked.prefix(model.beam) { beam.append(candidates[Int(r.index)]) }
    }

    /// What ending here costs: the notes still to play are missed.
    func endCost(_ h: Hypothesis) -> Double {
        let c = Int(h.chord)
        if c >= chordCount { return 0 }
        let after = c < 0 ? score.notes.count : score.notesBefore[chordCount] - score.notesBefore[c + 1] + unplayed(h)
        return Double(after) * model.missCost
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
