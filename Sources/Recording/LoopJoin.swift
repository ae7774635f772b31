import Foundation

/// A passage looped as practice plays it: each pass joined to the next by a short equal-power
/// crossfade, and the very start and end faded in and out, so a cut through a sounding note at
/// a bar line is never a click.
public enum LoopJoin {
    /// The passage `passes` times over; `fade` samples of crossfade at each boundary.
    public static func loop(_ channels: [[Float]], passes: Int, fade: Int) -> [[Float]] {
        let n = channels.first?.count ?? 0
        guard n > 0, passes > 0 else { return channels }
        let f = max(0, min(fade, n / 2))
        return channels.map { pass in
            var out = [Float]()
            out.reserveCapacity(passes * n)
            for p in 0..<passes {
                if p == 0 || f == 0 {
                    out.append(contentsOf: pass)
                    continue
                }
                // The last `f` samples of what is there fade out as the pass's first `f` fade in.
                let at = out.count - f
                for i in 0..<f {
                    let x = (Double(i) + 0.5) / Double(f)
                    out[at + i] = out[at + i] * Float(cos(x * .pi / 2)) + pass[i] * Float(sin(x * .pi / 2))
                }
                out.append(contentsOf: pass[f...])
            }
            for i in 0..<f {
                let g = Float((Double(i) + 0.5) / Double(f))
                out[i] *= g
                out[out.count - 1 - i] *= g
            }
            return out
        }
    }
}
