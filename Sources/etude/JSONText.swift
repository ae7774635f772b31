import MIDIFile

/// A small streaming JSON writer: key order as written, numbers printed exactly, strings escaped.
/// Used instead of JSONEncoder so `etude events` stays fast and its output ordered on big files.
struct JSONText {
    private(set) var text = ""

    init(capacity: Int = 0) {
        text.reserveCapacity(capacity)
    }

    mutating func raw(_ s: String) { text += s }

    mutating func string(_ s: String) {
        text += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                // Controls and bidi marks as escapes: the data stays exact, the terminal untouched.
                if TextDecoding.isTerminalControl(u) {
                    let h = String(u.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    text.unicodeScalars.append(u)
                }
            }
        }
        text += "\""
    }

    mutating func number(_ d: Double) {
        if d.isFinite {
            if d == d.rounded(), abs(d) < 1e15 { text += String(Int(d)) } else { text += String(d) }
        } else {
            text += "null"
        }
    }

    mutating func number(_ i: Int) { text += String(i) }

    mutating func bytes(_ b: [UInt8]) {
        text += "["
        var first = true
        for x in b {
            if !first { text += "," }
            first = false
            text += String(x)
        }
        text += "]"
    }
}
