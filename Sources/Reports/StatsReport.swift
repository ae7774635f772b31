import Foundation
import MIDIFile
import Store

/// Formatting of `etude stats`.
public enum StatsReport {
    public static func minutes(_ s: Double) -> String {
        let m = Int(saturating: (s / 60).rounded())
        return m >= 60 ? "\(m / 60) h \(m % 60) min" : "\(m) min"
    }

    public static func passes(_ n: Int) -> String { n == 1 ? "1 pass" : "\(n) passes" }

    public static func text(_ st: PracticeStats, title: String) -> String {
        var out = "\(safe(title))\n"
        out += "Passes:       \(st.passCount) (\(st.scoredPassCount) scored), \(minutes(st.totalSeconds)) in all\n"
        // Best per mode: "Best score:   90 (play) · 100 in wait mode" — a wait-mode 100 is not the best of playing.
        if !st.bests.isEmpty {
            let inTime = st.bests.filter { $0.mode.scoresInTime }
            var parts = inTime.map { "\(Int(saturating: $0.score.rounded())) (\($0.mode.label))" }
            if parts.isEmpty { parts = ["none in time"] }
            parts += st.bests.filter { !$0.mode.scoresInTime }.map { "\(Int(saturating: $0.score.rounded())) in \($0.mode.label) mode" }
            out += "Best score:   \(parts.joined(separator: " · "))\n"
        }
        if let l = st.latestScore { out += "Latest score: \(Int(saturating: l.rounded()))\n" }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "EEE dd MMM"
        out += "Last 7 days:\n"
        for d in st.days { out += "  \(day.string(from: d.start))  \(minutes(d.seconds).leftPad(10))  \(passes(d.passes))\n" }
        out += "Last 8 weeks:\n"
        for w in st.weeks { out += "  week of \(day.string(from: w.start))  \(minutes(w.seconds).leftPad(10))  \(passes(w.passes))\n" }
        if !st.scores.isEmpty {
            out += "Score:  \(Sparkline.render(st.scores, lower: 0, upper: 100))  (0-100, last \(min(40, st.scores.count)))\n"
        }
        if !st.tempos.isEmpty {
            out += "Tempo:  \(Sparkline.render(st.tempos, lower: 0, upper: max(100, st.tempos.max() ?? 100)))  (% of written tempo)\n"
        }
        return out
    }
}
