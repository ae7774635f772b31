import Foundation
import Store

/// How lessons, durations and dates read in lists.
public enum Listing {
    /// `1:05`, `1h02`.
    public static func duration(_ s: Double) -> String {
        let t = s.isFinite ? Int(max(0, min(s, 1e9)).rounded()) : 0
        if t >= 3600 { return "\(t / 3600)h\(String(format: "%02d", t / 60 % 60))" }
        return "\(t / 60):\(String(format: "%02d", t % 60))"
    }

    public static func date(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: d)
    }

    public static func isoDate(_ d: Date) -> String {
        ISO8601DateFormatter().string(from: d)
    }

    /// One listing as a line: star, level, duration, title — composer, id prefix, best score.
    public static func line(_ l: LessonListing) -> String {
        let s = l.lesson
        var out = (l.isFavourite ? "★ " : "  ")
        out += s.level.map { "L\($0)" } ?? "L-"
        out += "  " + duration(s.durationSeconds).leftPad(6) + "  "
        out += safe(s.title)
        if let c = s.composer { out += " — " + safe(c) }
        out += "  [\(s.id.prefix(8))]"
        if let b = l.bestScore { out += "  best \(Int(saturating: b.rounded()))" }
        if l.path == nil { out += "  (file missing)" }
        return out
    }
}

extension String {
    /// Right-aligned in `n` columns.
    public func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
