/// MusicXML is indented: half its text nodes are the white space between one tag and the
/// next, and XMLParser hands each to Swift as a String, a third of the time it takes to read a
/// score. `Blanks.moved` takes that white space out before parsing without changing what the
/// document says or where anything is: a run of white space between `>` and the next start or
/// end tag is removed and its line breaks go inside that tag, after its name (`<note\n>`,
/// `</note\n>`, `<chord\n/>` are the same tags), so every element still starts on its line.
/// Comments, processing instructions, CDATA sections and declarations (the DOCTYPE) are passed
/// over whole, and runs before them are left as they are. The reader parses the original bytes
/// again whenever the moved ones fail, so every error names its place in the file as written
/// (see `XMLTreeReader`); the fuzz target checks that both readings give the same tree.
enum Blanks {
    /// The bytes with blank runs moved, or nil when there is nothing to gain or the encoding is
    /// not ASCII-compatible (UTF-16 and UTF-32 are read as they are).
    static func moved(_ bytes: [UInt8], minimum: Int = 4096) -> [UInt8]? {
        guard bytes.count >= max(4, minimum) else { return nil }
        if bytes[0] == 0xFE || bytes[0] == 0xFF || bytes[0] == 0 || bytes[1] == 0 || bytes[2] == 0 || bytes[3] == 0 { return nil }
        return bytes.withUnsafeBufferPointer { b -> [UInt8] in
            var out: [UInt8] = []
            out.reserveCapacity(b.count)
            let n = b.count
            var i = 0
            var run = 0  // bytes copied so far start at `run`
            func at(_ k: Int, _ s: StaticString) -> Bool { XMLBytes.has(s, at: k, in: b) }
            func skip(to end: StaticString, from k: Int) -> Int { XMLBytes.skip(to: end, from: k, in: b) }
            while i < n {
                // Comments, CDATA sections, processing instructions and declarations are passed
                // over whole: what they hold is not touched.
                if b[i] == 0x3C, i + 1 < n, b[i + 1] == 0x21 || b[i + 1] == 0x3F {
                    if at(i, "<!--") { i = skip(to: "-->", from: i + 4); continue }
                    if at(i, "<![CDATA[") { i = skip(to: "]]>", from: i + 9); continue }
                    if b[i + 1] == 0x3F { i = skip(to: "?>", from: i + 2); continue }
                    var x = i + 2, depth = 0
                    var quote: UInt8 = 0
                    while x < n {
                        let c = b[x]
                        if quote != 0 { if c == quote { quote = 0 } }
                        else if c == 0x22 || c == 0x27 { quote = c }
                        else if c == 0x5B { depth += 1 }
                        else if c == 0x5D { depth = max(0, depth - 1) }
                        else if c == 0x3E, depth == 0 { break }
                        x += 1
                    }
                    i = x
                    continue
                }
                // Find the next '>' followed by white space.
                guard b[i] == 0x3E, i + 1 < n, isBlank(b[i + 1]) else { i += 1; continue }
                var j = i + 1
                var newlines = 0
                while j < n, isBlank(b[j]) {
                    // libxml2 counts lines at LF (CR LF is one line, a CR alone none).
                    if b[j] == 0x0A { newlines += 1 }
                    j += 1
                }
                // Only before a start or end tag: '<' then a name (or '/' and a name).
                guard j + 1 < n, b[j] == 0x3C else { i = j; continue }
                var k = j + 1
                if b[k] == 0x2F { k += 1 }
                guard k < n, isNameStart(b[k]) else { i = j; continue }
                var e = k
                while e < n, isNameChar(b[e]) { e += 1 }
                // Only a name followed by what may follow one (else the tag is not one to touch).
                guard e < n, isBlank(b[e]) || b[e] == 0x3E || b[e] == 0x2F else { i = j; continue }
                // Copy up to and including '>', skip the run, copy '<' + name, then the line breaks.
                out.append(contentsOf: b[run...i])
                out.append(contentsOf: b[j..<e])
                for _ in 0..<newlines { out.append(0x0A) }
                run = e
                i = e
            }
            out.append(contentsOf: b[run..<n])
            return out
        }
    }

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

    /// Name characters: ASCII letters, digits, '-', '.', '_', ':', and any byte of a multi-byte
    /// UTF-8 character.
    @inline(__always) static func isNameChar(_ c: UInt8) -> Bool {
        isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
    }

    /// ASCII letters, '_' and ':', and any byte of a multi-byte UTF-8 character.
    @inline(__always) static func isNameStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A || c >= 0x80
    }
}

/// XMLParser (swift-corelibs-foundation) reads a processing instruction that has no data, like
/// `<?page?>`, through a null pointer and crashes; no score needs one. `removed` turns each
/// such instruction into as many spaces (every line and column stays where it was), wherever
/// it stands, without reading the markup around it: libxml2 reaches one inside a broken tag, an
/// attribute's name, a DOCTYPE, after another instruction's `<!--`…, and `<?xml?>` too; any
/// guess at where a comment or CDATA section starts could hide one (the fuzzer found
/// `<ste<?x?>`, the probe `<?y <!-- ?><?x?>`). The price: `<?name?>` written inside a CDATA
/// section reads as spaces. The bytes must be ASCII-compatible (`XMLTreeReader` reads UTF-16
/// as UTF-8 and refuses other encodings first, see `TextEncoding`).
enum EmptyInstructions {
    /// The bytes without data-less processing instructions, or nil when there are none.
    static func removed(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8]?
        bytes.withUnsafeBufferPointer { b in
            let n = b.count
            var i = 0
            while i + 1 < n {
                guard b[i] == 0x3C, b[i + 1] == 0x3F else { i += 1; continue }
                // `<?` target, then straight `?>`: no data. (Any name byte may start the target:
                // a superset of the names libxml2 takes.)
                var e = i + 2
                while e < n, Blanks.isNameChar(b[e]) { e += 1 }
                if e > i + 2, e + 1 < n, b[e] == 0x3F, b[e + 1] == 0x3E {
                    if out == nil { out = bytes }
                    for k in i...(e + 1) { out?[k] = 0x20 }
                    i = e + 2
                } else {
                    i += 2
                }
            }
        }
        return out
    }
}

/// Byte matching both passes over raw XML share (markup found by its opening and closing bytes).
enum XMLBytes {
    /// Whether `s` starts at byte `k`.
    @inline(__always) static func has(_ s: StaticString, at k: Int, in b: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = s.utf8CodeUnitCount
        guard k + count <= b.count else { return false }
        let p = s.utf8Start
        for x in 0..<count where b[k + x] != p[x] { return false }
        return true
    }

    /// The first start tag with more than `limit` attributes (counted by their `=` outside
    /// quotes): its offset and count, nil when none has. One pass, before libxml2 sees the
    /// bytes (it checks an element's attributes for duplicates pairwise).
    static func crowdedTag(_ bytes: [UInt8], limit: Int) -> (offset: Int, count: Int)? {
        bytes.withUnsafeBufferPointer { b -> (offset: Int, count: Int)? in
            let n = b.count
            var i = 0
            while i < n {
                guard b[i] == 0x3C, i + 1 < n else { i += 1; continue }
                if has("<!--", at: i, in: b) { i = skip(to: "-->", from: i + 4, in: b); continue }
                if has("<![CDATA[", at: i, in: b) { i = skip(to: "]]>", from: i + 9, in: b); continue }
                if b[i + 1] == 0x3F { i = skip(to: "?>", from: i + 2, in: b); continue }
                guard Blanks.isNameStart(b[i + 1]) else { i += 1; continue }
                // A start tag: to its '>' outside quotes (or the next '<', where libxml2 stops too).
                var k = i + 1, count = 0
                var quote: UInt8 = 0
                while k < n {
                    let c = b[k]
                    if quote != 0 { if c == quote { quote = 0 } }
                    else if c == 0x22 || c == 0x27 { quote = c }
                    else if c == 0x3D { count += 1; if count > limit { return (i, count) } }
                    else if c == 0x3E || c == 0x3C { break }
                    k += 1
                }
                i = k
            }
            return nil
        }
    }

    /// Line and column (from 1) of byte `offset`, as libxml2 counts them (lines at LF).
    static func place(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, lineStart = 0
        for k in 0..<min(offset, bytes.count) where bytes[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        return (line, offset - lineStart + 1)
    }

    /// The byte after the first `end` from `k` (the end of the bytes when there is none).
    static func skip(to end: StaticString, from k: Int, in b: UnsafeBufferPointer<UInt8>) -> Int {
        var x = k
        while x < b.count, !has(end, at: x, in: b) { x += 1 }
        return min(b.count, x + end.utf8CodeUnitCount)
    }
}
