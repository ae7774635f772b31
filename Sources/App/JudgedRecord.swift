import Judge
import MIDIFile

/// `etude judge --json`: the pass report's fields as always (flat), and the alignment behind
/// them — per expected note the key that played it (or the wrong key that replaced it), where it
/// was due, the extra keys, and the passages played again — so a reader can see why each
/// verdict was given.
struct JudgedRecord: Encodable {
    let judged: PerformanceJudge.Judged

    init(_ judged: PerformanceJudge.Judged) { self.judged = judged }

    /// One expected note and the key aligned to it.
    struct AlignedNote: Encodable {
        var id: Int
        var bar: String
        var beat: Double
        var pitch: Int
        var onset: OnsetVerdict?
        /// The key press that played it (its index among the performance's presses) and when.
        var key: Int?
        var playedAt: Double?
        /// Where it was due in the performance (seconds), by the learner's tempo around it.
        var dueAt: Double
        /// The wrong key that replaced it: which key, when.
        var wrongPitch: Int?
        var wrongAt: Double?
    }

    struct Key: Encodable {
        var key: Int
        var pitch: Int
        var at: Double
    }

    struct Restart: Encodable {
        var bars: String
        var times: Int
    }

    private enum Keys: String, CodingKey { case alignment, extraKeys, setAside, restarts }

    func encode(to encoder: any Encoder) throws {
        try judged.report.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        let verdicts = Dictionary(judged.report.notes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let presses = judged.presses
        func seconds(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
        let notes = judged.aligned.notes.map { n -> AlignedNote in
            let v = verdicts[n.id]
            return AlignedNote(id: n.id, bar: v?.bar ?? "", beat: v?.beat ?? 1, pitch: v?.pitch ?? 0, onset: v?.onset,
                               key: n.key, playedAt: n.playedAt.map(seconds), dueAt: seconds(n.dueAt),
                               wrongPitch: n.wrongKey.map { presses[$0].pitch }, wrongAt: n.wrongKey.map { seconds(presses[$0].time) })
        }
        try c.encode(notes, forKey: .alignment)
        try c.encode(judged.aligned.extras.map { Key(key: $0, pitch: presses[$0].pitch, at: seconds(presses[$0].time)) }, forKey: .extraKeys)
        try c.encode(judged.aligned.setAside.count, forKey: .setAside)
        try c.encode(PerformanceJudge.restarts(judged).map { Restart(bars: $0.bars, times: $0.times) }, forKey: .restarts)
    }
}

extension PerformanceJudge {
    /// The passages played again, by their printed bars ("5–6", "9"), with how often.
    static func restarts(_ judged: Judged) -> [(bars: String, times: Int)] {
        let bars = Dictionary(judged.report.notes.map { ($0.id, $0.bar) }, uniquingKeysWith: { a, _ in a })
        return judged.aligned.restarts.map { r in
            let from = bars[r.firstID] ?? "", to = bars[r.lastID] ?? ""
            return (from == to ? from : "\(from)–\(to)", r.times)
        }
    }

    /// "Bars 5–6 played twice: the last time is judged." — one line per passage played again.
    static func restartLines(_ judged: Judged) -> [String] {
        restarts(judged).map { r in
            let times = r.times == 2 ? "twice" : r.times == 3 ? "three times" : "\(r.times) times"
            let what = r.bars.contains("–") ? "Bars \(r.bars)" : "Bar \(r.bars)"
            return "\(what) played \(times): the last time is judged"
        }
    }
}
