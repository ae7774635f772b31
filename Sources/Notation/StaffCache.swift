import Foundation
import Lesson

/// A lesson's staff drawings, kept between frames: laid out once per width and drawn once per
/// density, so a frame only copies cells (see `StaffRaster`). Safe to share between threads.
public final class StaffCache: @unchecked Sendable {
    public let lesson: Lesson
    /// Everything but the width, which each request gives.
    public let options: NotationOptions
    private let lock = NSLock()
    private var scores: [Int: Score] = [:]
    private var rasters: [RasterKey: StaffRaster] = [:]

    private struct RasterKey: Hashable {
        var width: Int
        var density: StaffDensity
    }

    public init(lesson: Lesson, options: NotationOptions = NotationOptions()) {
        self.lesson = lesson
        self.options = options
    }

    /// The layout for a width.
    public func score(width: Int) -> Score {
        lock.lock()
        defer { lock.unlock() }
        return scoreLocked(width: width)
    }

    private func scoreLocked(width: Int) -> Score {
        if let s = scores[width] { return s }
        var o = options
        o.width = width
        let s = ScoreLayout.layout(lesson, options: o)
        if scores.count > 8 { scores.removeAll() }
        scores[width] = s
        return s
    }

    /// The density for a staff area of `height` rows and a score of `systems` systems: full,
    /// the easier to read, unless it does not fit or it leaves more than a third of the area
    /// empty while compact shows more systems (a 50-row terminal: the piece's systems in
    /// compact, not one full system over half the screen).
    public static func density(fullHeight: Int, compactHeight: Int, height: Int, systems: Int = .max) -> StaffDensity {
        guard fullHeight <= height else { return .compact }
        let full = min(height / max(1, fullHeight), systems), compact = min(height / max(1, compactHeight), systems)
        let empty = height - full * fullHeight
        return compact > full && empty * 3 > height ? .compact : .full
    }

    /// The drawing for a staff area: the density `density(fullHeight:compactHeight:height:)`
    /// picks (or the one asked for).
    public func raster(width: Int, height: Int, density: StaffDensity? = nil) -> StaffRaster {
        lock.lock()
        defer { lock.unlock() }
        let score = scoreLocked(width: width)
        let chosen = density ?? Self.density(fullHeight: StaffRaster.systemHeight(score: score, density: .full),
                                             compactHeight: StaffRaster.systemHeight(score: score, density: .compact), height: height,
                                             systems: score.systems.count)
        let key = RasterKey(width: width, density: chosen)
        if let r = rasters[key] { return r }
        let r = StaffRaster(score: score, lesson: lesson, density: chosen)
        if rasters.count > 8 { rasters.removeAll() }
        rasters[key] = r
        return r
    }
}

/// Which notes sound at a tick, found by binary search over the lesson's notes (sorted by
/// start): the practice screen's "lit" notes per frame without scanning the lesson.
public struct SoundingNotes: Sendable {
    private let starts: [Int]
    private let ends: [Int]
    private let hands: [Hand?]
    private let longest: Int

    public init(lesson: Lesson) {
        starts = lesson.notes.map(\.startTick)
        ends = lesson.notes.map(\.endTick)
        hands = lesson.notes.map(\.part.hand)
        longest = zip(starts, ends).map { $1 - $0 }.max() ?? 0
    }

    /// Indices into `Lesson.notes` sounding at `tick` (start ≤ tick < end), of the given hands
    /// (nil: both hands and the accompaniment).
    public func at(tick: Int, hands wanted: Set<Hand>? = nil) -> Set<Int> {
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= tick { lo = mid + 1 } else { hi = mid }
        }
        var out = Set<Int>()
        var i = lo - 1
        while i >= 0, starts[i] >= tick - longest {
            if ends[i] > tick {
                if let wanted {
                    if let h = hands[i], wanted.contains(h) { out.insert(i) }
                } else {
                    out.insert(i)
                }
            }
            i -= 1
        }
        return out
    }
}
