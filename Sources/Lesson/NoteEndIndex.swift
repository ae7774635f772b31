/// The notes still sounding at a tick, found without a pass over every note: a max-tree over
/// the notes' end ticks (in `Lesson.notes` order, which is by start), so "which notes in
/// `0..<upTo` end at or after tick T" costs a logarithm per note found. The falling-notes
/// view asks this every frame; a 1,000,000-note lesson must not make a frame O(all notes).
public struct NoteEndIndex: Sendable {
    /// Leaves at `size + i`; each inner node holds the larger end of its two children.
    private let tree: [Int]
    private let size: Int
    public let count: Int

    public init(endTicks: [Int]) {
        count = endTicks.count
        var size = 1
        while size < max(1, count) { size *= 2 }
        self.size = size
        var tree = [Int](repeating: Int.min, count: 2 * size)
        for (i, e) in endTicks.enumerated() { tree[size + i] = e }
        var node = size - 1
        while node >= 1 {
            tree[node] = max(tree[2 * node], tree[2 * node + 1])
            node -= 1
        }
        self.tree = tree
    }

    /// Indices in `range` whose end tick is at least `tick`, ascending.
    public func indices(in range: Range<Int>, endingAtOrAfter tick: Int) -> [Int] {
        let lo = max(0, range.lowerBound), hi = min(count, range.upperBound)
        guard lo < hi, tree[1] >= tick else { return [] }
        var out: [Int] = []
        collect(node: 1, nodeLo: 0, nodeHi: size, lo: lo, hi: hi, tick: tick, into: &out)
        return out
    }

    private func collect(node: Int, nodeLo: Int, nodeHi: Int, lo: Int, hi: Int, tick: Int, into out: inout [Int]) {
        guard nodeLo < hi, lo < nodeHi, tree[node] >= tick else { return }
        if nodeHi - nodeLo == 1 {
            out.append(nodeLo)
            return
        }
        let mid = (nodeLo + nodeHi) / 2
        collect(node: 2 * node, nodeLo: nodeLo, nodeHi: mid, lo: lo, hi: hi, tick: tick, into: &out)
        collect(node: 2 * node + 1, nodeLo: mid, nodeHi: nodeHi, lo: lo, hi: hi, tick: tick, into: &out)
    }
}
