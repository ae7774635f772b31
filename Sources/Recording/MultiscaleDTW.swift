import Foundation

/// Dynamic time warping of two feature sequences in bounded memory (Müller, Mattha and Ewert
/// 2016, as in the Sync Toolbox): a full DTW on sequences pooled until their grid is small,
/// then at each finer level a DTW only in a band around the coarser path, so a 10-minute
/// recording costs a few million cells, not a billion.
public enum MultiscaleDTW {
    /// A warping path: pairs (frame of the first sequence, frame of the second), both
    /// non-decreasing, from (0, 0) to the last frames.
    public struct Path: Sendable, Equatable {
        public var first: [Int32]
        public var second: [Int32]
        /// Accumulated cost divided by the path's length.
        public var meanCost: Float
        public var count: Int { first.count }
    }

    /// The largest grid a level is aligned in full (cells).
    public static let fullGridLimit = 2_000_000
    /// Frames each side of the projected path searched at a finer level.
    public static let radius = 12

    /// Aligns `a` with `b`; nil when either is empty.
    public static func align(_ a: AlignmentFeatures, _ b: AlignmentFeatures) -> Path? {
        guard a.count > 0, b.count > 0 else { return nil }
        var factors = [1]
        while (a.count / factors.last!) * (b.count / factors.last!) > fullGridLimit, factors.last! < 1 << 12 {
            factors.append(factors.last! * 5)
        }
        let levels = factors.map { (a.pooled(by: $0), b.pooled(by: $0)) }
        // Coarsest level: every cell.
        let top = levels[levels.count - 1]
        var band = Band(rows: top.0.count, full: top.1.count)
        var path = dtw(top.0, top.1, band: band)
        for level in stride(from: levels.count - 2, through: 0, by: -1) {
            let (fa, fb) = levels[level]
            let ratio = factors[level + 1] / factors[level]
            band = Band(projecting: path, ratio: ratio, rows: fa.count, columns: fb.count, radius: radius)
            path = dtw(fa, fb, band: band)
        }
        return path
    }

    /// For each row, the inclusive range of columns searched; both bounds non-decreasing.
    struct Band {
        var lo: [Int]
        var hi: [Int]

        init(rows: Int, full columns: Int) {
            lo = [Int](repeating: 0, count: rows)
            hi = [Int](repeating: columns - 1, count: rows)
        }

        init(projecting path: Path, ratio: Int, rows: Int, columns: Int, radius: Int) {
            lo = [Int](repeating: Int.max, count: rows)
            hi = [Int](repeating: -1, count: rows)
            for k in 0..<path.count {
                let i0 = Int(path.first[k]) * ratio, j0 = Int(path.second[k]) * ratio
                for i in i0..<min(rows, i0 + ratio) {
                    lo[i] = min(lo[i], j0)
                    hi[i] = max(hi[i], min(columns - 1, j0 + ratio - 1))
                }
            }
            // Rows the projection missed (a sequence not a multiple of the ratio) take their neighbour's.
            for i in 0..<rows where hi[i] < 0 {
                lo[i] = i > 0 ? lo[i - 1] : 0
                hi[i] = i > 0 ? hi[i - 1] : 0
            }
            for i in 0..<rows {
                lo[i] = max(0, lo[i] - radius)
                hi[i] = min(columns - 1, hi[i] + radius)
            }
            lo[0] = 0
            hi[rows - 1] = columns - 1
            for i in 1..<max(1, rows) { hi[i] = max(hi[i], hi[i - 1]) }
            for i in stride(from: rows - 2, through: 0, by: -1) { lo[i] = min(lo[i], lo[i + 1]) }
            // Each row must touch the previous row's columns, so a path always exists.
            for i in 1..<max(1, rows) where lo[i] > hi[i - 1] { lo[i] = hi[i - 1] }
        }
    }

    /// Step weights: a diagonal step 2, a horizontal or vertical one 1.5 (the Sync Toolbox's),
    /// so a tempo change is followed rather than slid along a diagonal.
    static let diagonal: Float = 2, straight: Float = 1.5

    /// DTW inside `band` with steps (1,1), (1,0), (0,1) weighted as above; the best path.
    static func dtw(_ a: AlignmentFeatures, _ b: AlignmentFeatures, band: Band) -> Path {
        let rows = a.count
        var offsets = [Int](repeating: 0, count: rows + 1)
        for i in 0..<rows { offsets[i + 1] = offsets[i] + band.hi[i] - band.lo[i] + 1 }
        // 0 diagonal, 1 from the row above, 2 from the left.
        var steps = [UInt8](repeating: 0, count: offsets[rows])
        var previous = [Float](), current = [Float]()
        let inf = Float.infinity
        for i in 0..<rows {
            let lo = band.lo[i], hi = band.hi[i]
            current = [Float](repeating: inf, count: hi - lo + 1)
            let plo = i > 0 ? band.lo[i - 1] : 0, phi = i > 0 ? band.hi[i - 1] : -1
            for j in lo...hi {
                let c = a.cost(i, b, j)
                var best = inf, step: UInt8 = 0
                if i == 0 && j == 0 {
                    best = 0
                } else {
                    if i > 0, j - 1 >= plo, j - 1 <= phi, previous[j - 1 - plo] + diagonal * c < best { best = previous[j - 1 - plo] + diagonal * c; step = 0 }
                    if i > 0, j >= plo, j <= phi, previous[j - plo] + straight * c < best { best = previous[j - plo] + straight * c; step = 1 }
                    if j > lo, current[j - 1 - lo] + straight * c < best { best = current[j - 1 - lo] + straight * c; step = 2 }
                }
                current[j - lo] = i == 0 && j == 0 ? c : best
                steps[offsets[i] + j - lo] = step
            }
            swap(&previous, &current)
        }
        let total = previous[previous.count - 1]
        var first: [Int32] = [], second: [Int32] = []
        var i = rows - 1, j = b.count - 1
        while true {
            first.append(Int32(i))
            second.append(Int32(j))
            if i == 0 && j == 0 { break }
            let lo = band.lo[i]
            guard j >= lo, j <= band.hi[i] else { break }
            switch steps[offsets[i] + j - lo] {
            case 0: i -= 1; j -= 1
            case 1: i -= 1
            default: j -= 1
            }
            if i < 0 || j < 0 { break }
        }
        first.reverse()
        second.reverse()
        return Path(first: first, second: second, meanCost: total / Float(max(1, first.count)))
    }
}
