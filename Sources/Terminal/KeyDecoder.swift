/// A key press decoded from terminal input bytes.
public struct Key: Hashable, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        case character(Character)
        case up, down, left, right
        case home, end, pageUp, pageDown, insert, delete
        /// F1–F12 (and beyond when a terminal sends them).
        case function(Int)
        case enter, tab, backspace, escape
        /// Text pasted while bracketed paste was on: delivered whole so it is never taken as keys.
        case paste(String)
        /// A well-formed sequence this decoder does not know (ignored by callers).
        case unknown([UInt8])
    }

    public struct Modifiers: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let shift = Modifiers(rawValue: 1)
        public static let alt = Modifiers(rawValue: 2)
        public static let ctrl = Modifiers(rawValue: 4)
    }

    public var code: Code
    public var modifiers: Modifiers

    public init(_ code: Code, _ modifiers: Modifiers = []) {
        self.code = code
        self.modifiers = modifiers
    }

    /// A plain character key, e.g. `Key("q")`.
    public init(_ character: Character, _ modifiers: Modifiers = []) {
        self.init(.character(character), modifiers)
    }

    public static func ctrl(_ c: Character) -> Key { Key(.character(c), .ctrl) }
    public static func alt(_ c: Character) -> Key { Key(.character(c), .alt) }

    public var description: String {
        var s = ""
        if modifiers.contains(.ctrl) { s += "Ctrl-" }
        if modifiers.contains(.alt) { s += "Alt-" }
        if modifiers.contains(.shift) { s += "Shift-" }
        switch code {
        case .character(let c): s += c == " " ? "Space" : String(c)
        case .function(let n): s += "F\(n)"
        case .paste(let text): s += "Paste(\(text.count) characters)"
        case .unknown(let bytes): s += "Unknown(\(bytes))"
        default: s += "\(code)"
        }
        return s
    }
}

/// Decodes terminal input bytes into keys. Pure: feed bytes in, keys come out.
///
/// A lone ESC is ambiguous (the Esc key, or the start of a sequence still arriving), so bytes
/// that could still become a sequence stay pending; the caller calls `flush()` when no more
/// bytes arrived within a short timeout (`KeyDecoder.escapeTimeoutMilliseconds`) to decide.
public struct KeyDecoder: Sendable {
    /// How long to wait after a lone ESC before taking it as the Esc key.
    public static let escapeTimeoutMilliseconds = 30

    private var pending: [UInt8] = []

    public init() {}

    /// True when bytes are held back waiting for the rest of a sequence (or a paste's end).
    public var hasPending: Bool { !pending.isEmpty }

    /// True when the held-back bytes are an unfinished bracketed paste (never flushed by timeout).
    public var isInPaste: Bool {
        pending.count >= 6 && Array(pending.prefix(6)) == KeyDecoder.pasteStart
    }

    public mutating func feed<S: Sequence>(_ bytes: S) -> [Key] where S.Element == UInt8 {
        pending.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// Decides held-back bytes after the escape timeout: a lone ESC is the Esc key, a
    /// truncated sequence yields Esc followed by its bytes as keys. An unfinished paste is kept.
    public mutating func flush() -> [Key] {
        decode(final: true)
    }

    static let pasteStart: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]
    static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    private enum Parse {
        case key(Key, Int)
        case incomplete
    }

    private mutating func decode(final: Bool) -> [Key] {
        var keys: [Key] = []
        var i = 0
        let p = pending
        while i < p.count {
            switch parse(p, at: i, final: final) {
            case .key(let k, let n):
                keys.append(k)
                i += n
            case .incomplete:
                if !final || (p[i] == 0x1B && isPaste(p, at: i)) {
                    pending = Array(p[i...])
                    return keys
                }
                // Timed out: ESC alone is the Esc key; a broken UTF-8 lead byte is U+FFFD.
                if p[i] == 0x1B {
                    keys.append(Key(.escape))
                } else {
                    keys.append(Key("\u{FFFD}"))
                }
                i += 1
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    private func isPaste(_ p: [UInt8], at i: Int) -> Bool {
        p.count - i >= 6 && Array(p[i..<(i + 6)]) == KeyDecoder.pasteStart
    }

    private func parse(_ p: [UInt8], at i: Int, final: Bool) -> Parse {
        let b = p[i]
        if b == 0x1B { return parseEscape(p, at: i, final: final) }
        return parsePlain(p, at: i)
    }

    /// One key that does not start with ESC.
    private func parsePlain(_ p: [UInt8], at i: Int) -> Parse {
        let b = p[i]
        switch b {
        case 0x0D, 0x0A: return .key(Key(.enter), 1)
        case 0x09: return .key(Key(.tab), 1)
        case 0x7F, 0x08: return .key(Key(.backspace), 1)
        case 0x00: return .key(.ctrl(" "), 1)
        case 0x01...0x1A: return .key(.ctrl(Character(Unicode.Scalar(b + 0x60))), 1)
        case 0x1C: return .key(.ctrl("\\"), 1)
        case 0x1D: return .key(.ctrl("]"), 1)
        case 0x1E: return .key(.ctrl("^"), 1)
        case 0x1F: return .key(.ctrl("_"), 1)
        case 0x20...0x7E: return .key(Key(Character(Unicode.Scalar(b))), 1)
        default: return parseUTF8(p, at: i)
        }
    }

    private func parseUTF8(_ p: [UInt8], at i: Int) -> Parse {
        let b = p[i]
        let length: Int
        var value: UInt32
        switch b {
        case 0xC2...0xDF: length = 2; value = UInt32(b & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(b & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(b & 0x07)
        default: return .key(Key("\u{FFFD}"), 1)
        }
        for k in 1..<length {
            guard i + k < p.count else { return .incomplete }
            let c = p[i + k]
            guard c & 0xC0 == 0x80 else { return .key(Key("\u{FFFD}"), k) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return .key(Key("\u{FFFD}"), length) }
        return .key(Key(Character(scalar)), length)
    }

    /// The arrows, Home, End and F1–F4 by the final byte both CSI and SS3 end them with.
    private static func cursorOrFunctionKey(_ final: UInt8) -> Key.Code? {
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x50...0x53: return .function(Int(final) - 0x4F)
        default: return nil
        }
    }

    private func parseEscape(_ p: [UInt8], at i: Int, final: Bool) -> Parse {
        guard i + 1 < p.count else { return .incomplete }
        let n = p[i + 1]
        switch n {
        case 0x5B:  // '[' CSI
            return parseCSI(p, at: i, final: final)
        case 0x4F:  // 'O' SS3
            guard i + 2 < p.count else {
                return final ? .key(.alt("O"), 2) : .incomplete
            }
            // SS3 M is the keypad's Enter.
            let code = p[i + 2] == 0x4D ? .enter : Self.cursorOrFunctionKey(p[i + 2])
            if let code { return .key(Key(code), 3) }
            return .key(Key(.unknown(Array(p[i..<(i + 3)]))), 3)
        case 0x1B:
            // ESC ESC: the first is the Esc key; the second starts over.
            return .key(Key(.escape), 1)
        default:
            // ESC + key = Alt + key (ESC Ctrl-A = Ctrl-Alt-A, ESC DEL = Alt-Backspace).
            switch parsePlain(p, at: i + 1) {
            case .incomplete: return .incomplete
            case .key(var k, let count):
                k.modifiers.insert(.alt)
                return .key(k, count + 1)
            }
        }
    }

    private func parseCSI(_ p: [UInt8], at i: Int, final: Bool) -> Parse {
        var j = i + 2
        guard j < p.count else { return final ? .key(.alt("["), 2) : .incomplete }
        // Linux console F1–F5: ESC [ [ A … E
        if p[j] == 0x5B {
            guard j + 1 < p.count else { return .incomplete }
            let f = p[j + 1]
            if (0x41...0x45).contains(f) { return .key(Key(.function(Int(f - 0x40))), 4) }
            return .key(Key(.unknown(Array(p[i...(j + 1)]))), j + 2 - i)
        }
        var params: [Int] = []
        var current: Int?
        var privateMarker = false
        while j < p.count {
            let c = p[j]
            if (0x30...0x39).contains(c) {
                current = (current ?? 0) * 10 + Int(c - 0x30)
                if (current ?? 0) > 100_000 { current = 100_000 }
            } else if c == 0x3B {
                params.append(current ?? 1)
                current = nil
            } else if (0x3C...0x3F).contains(c) || c == 0x3A {
                privateMarker = true
            } else if (0x20...0x2F).contains(c) {
                // intermediate byte: allowed, ignored
            } else if (0x40...0x7E).contains(c) {
                if let current { params.append(current) }
                return finishCSI(p, start: i, finalIndex: j, params: params, privateMarker: privateMarker)
            } else {
                // Not a CSI after all: report what came so far and resume at this byte.
                return .key(Key(.unknown(Array(p[i..<j]))), j - i)
            }
            j += 1
            if j - i > 64 { return .key(Key(.unknown(Array(p[i..<j]))), j - i) }
        }
        return .incomplete
    }

    private func finishCSI(_ p: [UInt8], start i: Int, finalIndex j: Int, params: [Int], privateMarker: Bool) -> Parse {
        let count = j + 1 - i
        let raw = Array(p[i...j])
        if privateMarker { return .key(Key(.unknown(raw)), count) }
        let final = p[j]
        func modifiers(_ index: Int) -> Key.Modifiers {
            guard params.count > index else { return [] }
            let m = max(0, params[index] - 1)
            var mods: Key.Modifiers = []
            if m & 1 != 0 { mods.insert(.shift) }
            if m & 2 != 0 { mods.insert(.alt) }
            if m & 4 != 0 { mods.insert(.ctrl) }
            return mods
        }
        var code = Self.cursorOrFunctionKey(final)
        switch final {
        case 0x5A: return .key(Key(.tab, .shift), count)  // CSI Z = Shift-Tab
        case 0x7E:
            let k = params.first ?? 0
            if k == 200 {
                // Bracketed paste: everything up to ESC[201~ is text.
                let bodyStart = j + 1
                var e = bodyStart
                while e + 6 <= p.count {
                    if p[e] == 0x1B && Array(p[e..<(e + 6)]) == KeyDecoder.pasteEnd {
                        let text = String(decoding: p[bodyStart..<e], as: UTF8.self)
                        return .key(Key(.paste(text)), e + 6 - i)
                    }
                    e += 1
                }
                return .incomplete
            }
            switch k {
            case 1, 7: code = .home
            case 2: code = .insert
            case 3: code = .delete
            case 4, 8: code = .end
            case 5: code = .pageUp
            case 6: code = .pageDown
            case 11...15: code = .function(k - 10)
            case 17...21: code = .function(k - 11)
            case 23...26: code = .function(k - 12)
            case 28, 29: code = .function(k - 13)
            case 31...34: code = .function(k - 14)
            default: code = nil
            }
            if let code { return .key(Key(code, modifiers(1)), count) }
            return .key(Key(.unknown(raw)), count)
        default: break
        }
        guard let code else { return .key(Key(.unknown(raw)), count) }
        return .key(Key(code, modifiers(1)), count)
    }
}
