/// An exact fraction of a whole note. ABC lengths (`3/2`, tuplets, broken rhythm) are
/// fractions; keeping them exact until the final tick conversion means a long tune never
/// drifts by rounding.
struct Rational: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    private(set) var num: Int
    private(set) var den: Int

    init(_ num: Int, _ den: Int = 1) {
        precondition(den != 0, "Rational with zero denominator")
        let g = Rational.gcd(abs(num), abs(den))
        let sign = den < 0 ? -1 : 1
        self.num = sign * num / max(g, 1)
        self.den = sign * den / max(g, 1)
    }

    static let zero = Rational(0)

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func + (a: Rational, b: Rational) -> Rational { Rational(a.num * b.den + b.num * a.den, a.den * b.den) }
    static func - (a: Rational, b: Rational) -> Rational { Rational(a.num * b.den - b.num * a.den, a.den * b.den) }
    static func * (a: Rational, b: Rational) -> Rational { Rational(a.num * b.num, a.den * b.den) }
    static func += (a: inout Rational, b: Rational) { a = a + b }
    static func < (a: Rational, b: Rational) -> Bool { a.num * b.den < b.num * a.den }

    /// Ticks for this many whole notes at `ticksPerWhole`, rounded to the nearest tick.
    func ticks(perWhole: Int) -> Int {
        let scaled = num * perWhole
        // Round half away from zero, exactly.
        return scaled >= 0 ? (2 * scaled + den) / (2 * den) : -((-2 * scaled + den) / (2 * den))
    }

    var double: Double { Double(num) / Double(den) }
    var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }
}
