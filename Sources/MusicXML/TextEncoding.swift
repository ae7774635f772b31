/// The encodings a score reaches libxml2 in. Every pass Etude makes over the bytes before
/// XMLParser (the empty-instruction guard above all, see `EmptyInstructions`) reads markup as
/// ASCII bytes, so libxml2 must see the same characters at the same bytes: UTF-8, ASCII and the
/// one-byte encodings (`Prolog.singleByteEncodings`). UTF-16 is turned into UTF-8 here first;
/// every other encoding is refused — UCS-4 and EBCDIC (found by their first bytes), UTF-7
/// (`+ADw-` is `<`), the multi-byte ones whose second bytes may be ASCII punctuation
/// (Shift_JIS, GBK, Big5) and ISO-2022 (escape sequences libxml2 drops): in each of them
/// `<?x?>` can hide from a byte scan and crash XMLParser.
enum TextEncoding {
    /// What libxml2 reads the document as, before any declaration: nil for UTF-8 and the
    /// ASCII-compatible encodings a declaration may name.
    static func detected(_ b: [UInt8]) -> String? {
        guard b.count >= 4 else { return nil }
        let head = (b[0], b[1], b[2], b[3])
        switch head {
        case (0, 0, 0, 0x3C), (0x3C, 0, 0, 0), (0, 0, 0x3C, 0), (0, 0x3C, 0, 0), (0, 0, 0xFE, 0xFF), (0xFF, 0xFE, 0, 0):
            return "UCS-4 (UTF-32)"
        case (0x4C, 0x6F, 0xA7, 0x94):
            return "EBCDIC"
        default:
            return Prolog.isUTF16(b) ? "UTF-16" : nil
        }
    }

    /// Why libxml2 must not read the document, nil when it may: an encoding found by its
    /// first bytes or named by its declaration that is not ASCII-compatible byte for byte.
    static func problem(_ bytes: [UInt8], declared: String?) -> String? {
        let fix = "Etude reads UTF-8, UTF-16 and the one-byte ISO-8859, windows-125x and KOI8-R encodings; save the score as UTF-8"
        if let found = detected(bytes) {
            return found == "UTF-16" ? nil : "the document is written in \(found); \(fix)"
        }
        guard let declared, !declared.isEmpty else { return nil }
        if ["utf-8", "utf8", "us-ascii", "ascii"].contains(declared) || Prolog.singleByteEncodings.contains(declared) { return nil }
        let shown = String(declared.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(40))
        return "the XML declaration names the encoding \"\(shown)\"; \(fix)"
    }

    /// The document in an encoding `problem` accepts: UTF-16 as UTF-8 with its declaration's
    /// encoding blanked (so libxml2 reads the UTF-8 it is given); any other as it is.
    static func asciiCompatible(_ bytes: [UInt8]) throws(MusicXMLError) -> [UInt8] {
        guard detected(bytes) == "UTF-16" else { return bytes }
        var text = Prolog.utf8View(bytes)
        // `<?xml … encoding="UTF-16" …?>`: from `encoding` to the declaration's end, spaces.
        let n = text.count
        if n >= 6, text.starts(with: Array("<?xml".utf8)), text[5] == 0x20 || text[5] == 0x09 || text[5] == 0x0A || text[5] == 0x0D {
            var end = 5
            while end + 1 < n, !(text[end] == 0x3F && text[end + 1] == 0x3E) { end += 1 }
            let key = Array("encoding".utf8)
            var k = 5
            while k + key.count <= end, !text[k..<(k + key.count)].elementsEqual(key) { k += 1 }
            if k + key.count <= end {
                for x in k..<end { text[x] = 0x20 }
            }
        }
        return text
    }
}
