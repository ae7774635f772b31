/// A colour as widgets ask for it; the frame writer maps it to what the terminal can show.
///
/// Packed into one `UInt32` (tag in the top byte) so cell comparison in the frame diff is cheap.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    /// The terminal's own foreground/background (what NO_COLOR leaves everything as).
    public static let `default` = Color(raw: 0)

    /// One of the 16 standard colours (0–7 normal, 8–15 bright).
    public static func ansi(_ index: UInt8) -> Color { Color(raw: 0x0100_0000 | UInt32(index & 15)) }

    /// One of the 256 xterm palette colours.
    public static func indexed(_ index: UInt8) -> Color { Color(raw: 0x0200_0000 | UInt32(index)) }

    /// A 24-bit colour; downgraded to the nearest palette colour on 256/16-colour terminals.
    public static func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Color {
        Color(raw: 0x0300_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
    }

    public enum Kind: Equatable, Sendable {
        case `default`
        case ansi(UInt8)
        case indexed(UInt8)
        case rgb(UInt8, UInt8, UInt8)
    }

    public var kind: Kind {
        let low = raw & 0xFF_FFFF
        switch raw >> 24 {
        case 1: return .ansi(UInt8(low & 15))
        case 2: return .indexed(UInt8(low & 0xFF))
        case 3: return .rgb(UInt8(low >> 16), UInt8((low >> 8) & 0xFF), UInt8(low & 0xFF))
        default: return .default
        }
    }

    public var isDefault: Bool { raw == 0 }

    public var description: String {
        switch kind {
        case .default: return "default"
        case .ansi(let i): return "ansi\(i)"
        case .indexed(let i): return "idx\(i)"
        case .rgb(let r, let g, let b):
            let hex = Array("0123456789abcdef")
            var s = "#"
            for v in [r, g, b] { s.append(hex[Int(v >> 4)]); s.append(hex[Int(v & 15)]) }
            return s
        }
    }
}

/// Text attributes of a cell. Attributes (not colour) carry meaning in monochrome.
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = Attributes(rawValue: 1)
    public static let dim = Attributes(rawValue: 2)
    public static let italic = Attributes(rawValue: 4)
    public static let underline = Attributes(rawValue: 8)
    public static let reverse = Attributes(rawValue: 16)

    /// Short stable spelling for snapshots ("b", "d", "i", "u", "r").
    public var letters: String {
        var s = ""
        if contains(.bold) { s += "b" }
        if contains(.dim) { s += "d" }
        if contains(.italic) { s += "i" }
        if contains(.underline) { s += "u" }
        if contains(.reverse) { s += "r" }
        return s
    }
}

/// Foreground, background and attributes: everything about a cell except its character.
public struct Style: Hashable, Sendable {
    public var fg: Color
    public var bg: Color
    public var attributes: Attributes

    public init(fg: Color = .default, bg: Color = .default, attributes: Attributes = []) {
        self.fg = fg
        self.bg = bg
        self.attributes = attributes
    }

    public static let plain = Style()
}

/// How many colours the terminal shows. Detected from the environment, never from terminfo.
public enum ColorDepth: String, Sendable, CaseIterable {
    /// NO_COLOR set, or TERM=dumb: attributes and characters only.
    case none
    case ansi16
    case palette256
    case truecolor

    /// NO_COLOR (non-empty, per no-color.org) or TERM=dumb → none; COLORTERM truecolor/24bit →
    /// truecolor; TERM ending in 256color → 256; anything else → 16.
    public static func detect(environment: [String: String]) -> ColorDepth {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let term = environment["TERM"] ?? ""
        if term == "dumb" { return .none }
        let colorterm = (environment["COLORTERM"] ?? "").lowercased()
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        if term.hasSuffix("256color") || term.contains("-256color") { return .palette256 }
        return .ansi16
    }

    /// The colour as this terminal will show it (none → default; downgrades to the palette).
    public func map(_ color: Color) -> Color {
        if color.raw == 0 { return color }
        switch self {
        case .none: return .default
        case .truecolor: return color
        case .palette256:
            if case .rgb(let r, let g, let b) = color.kind { return .indexed(ColorDepth.nearest256(r, g, b)) }
            return color
        case .ansi16:
            switch color.kind {
            case .rgb(let r, let g, let b): return .ansi(ColorDepth.nearest16(r, g, b))
            case .indexed(let i): return .ansi(ColorDepth.nearest16(fromIndexed: i))
            default: return color
            }
        }
    }

    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// Nearest xterm-256 colour (6×6×6 cube or grey ramp) by squared RGB distance.
    public static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func level(_ v: UInt8) -> Int {
            let v = Int(v)
            if v < 48 { return 0 }
            if v < 115 { return 1 }
            return (v - 35) / 40
        }
        let (ri, gi, bi) = (level(r), level(g), level(b))
        let cr = cubeLevels[ri], cg = cubeLevels[gi], cb = cubeLevels[bi]
        func dist(_ a: Int, _ b2: Int, _ c: Int) -> Int {
            let dr = a - Int(r), dg = b2 - Int(g), db = c - Int(b)
            return dr * dr + dg * dg + db * db
        }
        let cubeIndex = 16 + 36 * ri + 6 * gi + bi
        let avg = (Int(r) + Int(g) + Int(b)) / 3
        let greyIndex = avg > 238 ? 23 : max(0, (avg - 3) / 10)
        let greyLevel = 8 + 10 * greyIndex
        if dist(greyLevel, greyLevel, greyLevel) < dist(cr, cg, cb) { return UInt8(232 + greyIndex) }
        return UInt8(cubeIndex)
    }

    /// The 16 standard colours as xterm draws them.
    static let ansiRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    public static func nearest16(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        var best = 0
        var bestDistance = Int.max
        for (i, c) in ansiRGB.enumerated() {
            let dr = c.0 - Int(r), dg = c.1 - Int(g), db = c.2 - Int(b)
            let d = dr * dr + dg * dg + db * db
            if d < bestDistance { bestDistance = d; best = i }
        }
        return UInt8(best)
    }

    static func nearest16(fromIndexed i: UInt8) -> UInt8 {
        if i < 16 { return i }
        if i >= 232 {
            let v = UInt8(8 + 10 * (Int(i) - 232))
            return nearest16(v, v, v)
        }
        let n = Int(i) - 16
        return nearest16(UInt8(cubeLevels[n / 36]), UInt8(cubeLevels[(n / 6) % 6]), UInt8(cubeLevels[n % 6]))
    }
}
