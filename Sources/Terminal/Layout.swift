/// A rectangle of cells on the screen: where a widget draws. Widths and heights are never
/// negative, so arithmetic on a small terminal cannot hand a widget a nonsense area.
public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The whole screen of `size`.
    public init(size: TerminalSize) {
        self.init(x: 0, y: 0, width: size.columns, height: size.rows)
    }

    public var size: TerminalSize { TerminalSize(columns: width, rows: height) }
    /// One past the last column.
    public var right: Int { x + width }
    /// One past the last row.
    public var bottom: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var description: String { "\(width)×\(height) at \(x),\(y)" }

    /// True when `size` is at least `minimum` both ways.
    public func fits(_ minimum: TerminalSize) -> Bool { width >= minimum.columns && height >= minimum.rows }

    /// Smaller by `horizontal` cells each side and `vertical` rows above and below.
    public func inset(horizontal: Int = 0, vertical: Int = 0) -> Rect {
        Rect(x: x + horizontal, y: y + vertical, width: width - 2 * horizontal, height: height - 2 * vertical)
    }

    /// Row `index` of this area (counting from its top), one row high.
    public func row(_ index: Int) -> Rect { Rect(x: x, y: y + index, width: width, height: 1) }

    /// The rows from `index` (from the top) to the bottom.
    public func rows(from index: Int) -> Rect { Rect(x: x, y: y + index, width: width, height: height - index) }

    /// A `width`×`height` box in the middle (cut to this area).
    public func centred(width w: Int, height h: Int) -> Rect {
        let cw = min(w, width), ch = min(h, height)
        return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
    }
}

/// How much of the split one part asks for (ratatui's `Constraint`).
public enum Constraint: Equatable, Sendable {
    /// Exactly this many cells (fewer when the area runs out).
    case length(Int)
    /// This percentage of the whole area.
    case percentage(Int)
    /// At least this many cells, and a share of what is left like `fill(1)`.
    case min(Int)
    /// A share of what the others leave, by weight.
    case fill(Int)
}

/// Splits a rectangle into rows or columns by constraints, so screens say "status 2 rows,
/// the notes the rest, keyboard 4" instead of doing the arithmetic each (ratatui's `Layout`).
///
/// Fixed parts (`length`, `percentage`, `min`'s minimum) are served first, in order; when they
/// do not fit the later ones get less (down to nothing). What is left is shared by `fill` and
/// `min` parts by weight, a remainder going to the first. The parts tile the area exactly.
public struct Layout: Equatable, Sendable {
    public enum Direction: Equatable, Sendable { case vertical, horizontal }

    public var direction: Direction
    public var constraints: [Constraint]

    public init(_ direction: Direction, _ constraints: [Constraint]) {
        self.direction = direction
        self.constraints = constraints
    }

    /// Rows, top to bottom.
    public static func vertical(_ constraints: [Constraint]) -> Layout { Layout(.vertical, constraints) }
    /// Columns, left to right.
    public static func horizontal(_ constraints: [Constraint]) -> Layout { Layout(.horizontal, constraints) }

    /// The sizes along the direction for a total of `total` cells.
    public func sizes(_ total: Int) -> [Int] {
        let total = max(0, total)
        var sizes = [Int](repeating: 0, count: constraints.count)
        var left = total
        for (i, c) in constraints.enumerated() {
            let asked: Int
            switch c {
            case .length(let n): asked = n
            case .percentage(let p): asked = total * Swift.max(0, Swift.min(100, p)) / 100
            case .min(let n): asked = n
            case .fill: asked = 0
            }
            sizes[i] = Swift.max(0, Swift.min(asked, left))
            left -= sizes[i]
        }
        let weights = constraints.map { c -> Int in
            switch c {
            case .fill(let w): return Swift.max(0, w)
            case .min: return 1
            case .length, .percentage: return 0
            }
        }
        let weight = weights.reduce(0, +)
        guard weight > 0, left > 0 else { return sizes }
        var given = 0
        for i in sizes.indices where weights[i] > 0 {
            let share = left * weights[i] / weight
            sizes[i] += share
            given += share
        }
        // The remainder, a cell each from the first share on.
        var rest = left - given
        for i in sizes.indices where weights[i] > 0 && rest > 0 {
            sizes[i] += 1
            rest -= 1
        }
        return sizes
    }

    /// The parts of `area`, one per constraint.
    public func split(_ area: Rect) -> [Rect] {
        var at = direction == .vertical ? area.y : area.x
        return sizes(direction == .vertical ? area.height : area.width).map { n in
            defer { at += n }
            return direction == .vertical
                ? Rect(x: area.x, y: at, width: area.width, height: n)
                : Rect(x: at, y: area.y, width: n, height: area.height)
        }
    }
}

/// What every widget is: a value that draws itself into an area of the cell buffer and stays
/// inside it (ratatui's `Widget::render(area, buf)`). The screens compose widgets with `Layout`.
public protocol Widget {
    func render(into area: Rect, buffer: inout CellBuffer)
}
