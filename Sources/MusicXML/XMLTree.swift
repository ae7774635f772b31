import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Bounds on what a MusicXML file may make the reader do, so a hostile or broken file costs
/// a one-line error and never memory or time without end.
public struct MusicXMLLimits: Equatable, Sendable {
    /// Size of the XML text (an uncompressed .musicxml, or the score inside an .mxl).
    public var maxXMLBytes = 64 << 20
    /// Elements nested inside one another (MusicXML needs fewer than 12).
    public var maxDepth = 100
    /// Elements in the whole document (a 10,000-note score has about 150,000).
    public var maxElements = 5_000_000
    /// Characters of text inside one element.
    public var maxTextBytes = 1 << 20
    /// Attributes on one element (MusicXML's take fewer than 20; libxml2 checks them for
    /// duplicates pairwise, so millions would spin it for minutes): counted before parsing.
    public var maxAttributes = 256
    /// Bytes an .mxl archive may hold (the archive file itself).
    public var maxArchiveBytes = 64 << 20
    /// Bars of the performance once repeats and jumps are expanded.
    public var maxPerformedBars = 100_000
    /// Notes of the performance once repeats and jumps are expanded.
    public var maxPerformedNotes = 2_000_000

    public init() {}
}

/// The document as a compact tree: every element in one array, children linked by index, names
/// interned, so a large score costs few allocations and the reader compares integers.
struct XMLTree {
    struct Node {
        var name: Int32
        var parent: Int32
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        var nextSibling: Int32 = -1
        var line: Int32
        /// Index into `attributes`, or -1.
        var attrs: Int32 = -1
        /// Index into `texts`, or -1.
        var text: Int32 = -1
    }

    var nodes: [Node] = []
    var names: [String] = []
    var nameIDs: [String: Int32] = [:]
    var attributes: [[String: String]] = []
    var texts: [String] = []

    init() {
        for tag in Tag.allCases {
            let id = Int32(names.count)
            names.append(tag.name)
            nameIDs[tag.name] = id
        }
    }

    var root: Int { nodes.isEmpty ? -1 : 0 }

    func tag(_ i: Int) -> Tag? { Tag(rawValue: nodes[i].name) }
    func name(_ i: Int) -> String { names[Int(nodes[i].name)] }
    func line(_ i: Int) -> Int { Int(nodes[i].line) }

    func attribute(_ i: Int, _ key: String) -> String? {
        let a = nodes[i].attrs
        return a < 0 ? nil : attributes[Int(a)][key]
    }

    /// The element's own text, trimmed ("" when it has none).
    func text(_ i: Int) -> String {
        let t = nodes[i].text
        return t < 0 ? "" : texts[Int(t)]
    }

    func children(_ i: Int) -> Children { Children(tree: self, cursor: nodes[i].firstChild) }

    func child(_ i: Int, _ tag: Tag) -> Int? {
        var c = nodes[i].firstChild
        while c >= 0 {
            if nodes[Int(c)].name == tag.rawValue { return Int(c) }
            c = nodes[Int(c)].nextSibling
        }
        return nil
    }

    func childText(_ i: Int, _ tag: Tag) -> String? {
        child(i, tag).map { text($0) }
    }

    struct Children: Sequence, IteratorProtocol {
        let tree: XMLTree
        var cursor: Int32

        mutating func next() -> Int? {
            guard cursor >= 0 else { return nil }
            let i = Int(cursor)
            cursor = tree.nodes[i].nextSibling
            return i
        }
    }
}

/// Reads XML text into an `XMLTree` with Foundation's `XMLParser` (libxml2), refusing what could
/// make it dangerous: entity declarations (billion laughs, external entities) are refused
/// before parsing, external entities and DTDs are never fetched, depth, element count and
/// text size are bounded.
enum XMLTreeReader {
    static func read(_ given: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) -> XMLTree {
        try sizeCheck(given, limits: limits)
        // UTF-16 is read as UTF-8, so every pass over the bytes below sees the markup as libxml2 will.
        let original = try TextEncoding.asciiCompatible(given)
        try precheck(original, limits: limits)
        let bytes = EmptyInstructions.removed(original) ?? original
        // Indentation moved out of the way first (see `Blanks`); any failure is reported from
        // the bytes as written.
        if let moved = Blanks.moved(bytes), let tree = try? parse(moved, limits: limits) {
            return tree
        }
        return try parse(bytes, limits: limits)
    }

    /// What is refused before libxml2 sees the bytes: too large, entity declarations, UTF-8
    /// text that is not UTF-8. `parse` must only be given bytes that pass, with their empty
    /// processing instructions removed (`EmptyInstructions`).
    static func precheck(_ bytes: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) {
        try sizeCheck(bytes, limits: limits)
        let prolog = Prolog.scan(bytes)
        if let problem = TextEncoding.problem(bytes, declared: prolog.encoding) {
            throw MusicXMLError(problem)
        }
        if prolog.declaresEntities {
            throw MusicXMLError("the document declares entities (<!ENTITY …> in its DOCTYPE); Etude does not expand them, for safety — export the score again without them")
        }
        if prolog.declaresMarkup {
            throw MusicXMLError("the document's DOCTYPE declares markup of its own (<!ELEMENT …>, <!ATTLIST …>, <!NOTATION …>); MusicXML needs none — export the score again without it")
        }
        if let (offset, count) = XMLBytes.crowdedTag(bytes, limit: limits.maxAttributes) {
            let (line, column) = XMLBytes.place(of: offset, in: bytes)
            throw MusicXMLError(line: line, column: column,
                                "an element with \(count > limits.maxAttributes ? "more than \(limits.maxAttributes)" : "\(count)") attributes; MusicXML needs a few, Etude reads up to \(limits.maxAttributes)")
        }
        // UTF-8 text (declared, or by default) must be UTF-8: XMLParser traps on an element name
        // that is not (swift-corelibs-foundation), so such a file is refused here, at its place.
        if prolog.isUTF8, let bad = invalidUTF8(bytes) {
            var line = 1, lineStart = 0
            for k in 0..<bad where bytes[k] == 0x0A {
                line += 1
                lineStart = k + 1
            }
            throw MusicXMLError(line: line, column: bad - lineStart + 1,
                                "not well-formed XML: byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) is not UTF-8 text; save the score as UTF-8 (or declare its encoding)")
        }
    }

    static func sizeCheck(_ bytes: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) {
        guard bytes.count <= limits.maxXMLBytes else {
            throw MusicXMLError("the XML text is \(bytes.count >> 20) MB; Etude reads scores up to \(limits.maxXMLBytes >> 20) MB")
        }
    }

    /// The offset of the first byte that is not UTF-8, nil when all are.
    static func invalidUTF8(_ bytes: [UInt8]) -> Int? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            if bytes[i + 1] < low || bytes[i + 1] > high { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    static func parse(_ given: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) -> XMLTree {
        // At the one place bytes reach XMLParser: an instruction without data never does.
        let bytes = EmptyInstructions.removed(given) ?? given
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let builder = TreeBuilder(limits: limits, bytes: bytes.count)
        parser.delegate = builder
        let ok = parser.parse()
        if let failure = builder.failure {
            throw failure
        }
        if !ok || builder.fatalCode != nil {
            let code = builder.fatalCode ?? (parser.parserError as NSError?)?.code ?? 0
            let place = builder.errorPlace ?? (parser.lineNumber, parser.columnNumber)
            throw MusicXMLError(line: place.line, column: place.column, "not well-formed XML: \(XMLErrorText.describe(code))")
        }
        if builder.tree.nodes.isEmpty {
            throw MusicXMLError("not XML: no root element found")
        }
        if let open = builder.stack.last {
            throw MusicXMLError(line: parser.lineNumber, column: parser.columnNumber,
                                "not well-formed XML: the document ends inside <\(builder.tree.name(Int(open)))> (is the file cut short?)")
        }
        return builder.tree
    }
}

/// The tree as it is built, as a value: the delegate touches it once per callback, so the
/// work of each element runs without the dynamic exclusivity checks a class's stored
/// properties cost on every access.
private struct TreeState {
    var tree = XMLTree()
    var stack: [Int32] = []
    var pending = ""
    var failure: String?
    let limits: MusicXMLLimits
    /// Open-addressed table of element names → ids, hashed on a few bytes (names are short and
    /// few; String's own hashing is the slowest part of a lookup).
    var slots: [(name: String, id: Int32)?]

    init(limits: MusicXMLLimits, bytes: Int) {
        self.limits = limits
        slots = Array(repeating: nil, count: 1024)
        // About one element per 32 bytes of a score: grown once, not copied while it doubles.
        let estimate = max(1024, min(bytes / 32, limits.maxElements))
        tree.nodes.reserveCapacity(estimate)
        tree.texts.reserveCapacity(estimate / 2)
        tree.attributes.reserveCapacity(estimate / 4)
        for (name, id) in tree.nameIDs { insert(name, id) }
    }

    static func slot(_ name: String) -> Int {
        var h: UInt32 = 2_166_136_261
        var n = 0
        for b in name.utf8 {
            h = (h ^ UInt32(b)) &* 16_777_619
            n += 1
            if n == 24 { break }
        }
        return Int(h & 1023)
    }

    mutating func insert(_ name: String, _ id: Int32) {
        var k = Self.slot(name)
        while slots[k] != nil { k = (k + 1) & 1023 }
        slots[k] = (name, id)
    }

    mutating func id(of name: String) -> Int32 {
        var k = Self.slot(name)
        var probes = 0
        while let s = slots[k], probes < 1024 {
            if s.name == name { return s.id }
            k = (k + 1) & 1023
            probes += 1
        }
        if let id = tree.nameIDs[name] { return id }
        let id = Int32(tree.names.count)
        tree.names.append(name)
        tree.nameIDs[name] = id
        // The table holds the first names met (a score uses a few hundred); the dictionary
        // the rest.
        if tree.names.count < 700 { insert(name, id) }
        return id
    }

    /// Nil when the element is accepted, else why the document is refused.
    mutating func start(_ elementName: String, _ attributes: [String: String], line: Int) -> String? {
        if stack.count >= limits.maxDepth { return "elements nested more than \(limits.maxDepth) deep; not a MusicXML score" }
        if tree.nodes.count >= limits.maxElements { return "more than \(limits.maxElements) elements; Etude reads scores up to that size" }
        if stack.isEmpty && !tree.nodes.isEmpty { return "not well-formed XML: a second root element <\(elementName)>" }
        let name = id(of: elementName)
        let index = Int32(tree.nodes.count)
        let parent = stack.last ?? -1
        var node = XMLTree.Node(name: name, parent: parent, line: Int32(clamping: line))
        if !attributes.isEmpty {
            node.attrs = Int32(tree.attributes.count)
            tree.attributes.append(attributes)
        }
        tree.nodes.append(node)
        if parent >= 0 {
            let p = Int(parent)
            let last = tree.nodes[p].lastChild
            if last >= 0 {
                tree.nodes[Int(last)].nextSibling = index
            } else {
                tree.nodes[p].firstChild = index
            }
            tree.nodes[p].lastChild = index
        }
        stack.append(index)
        pending = ""
        return nil
    }

    mutating func end() {
        guard let index = stack.popLast() else { return }
        let i = Int(index)
        if tree.nodes[i].firstChild < 0, !pending.isEmpty, let trimmed = Self.trimmed(pending) {
            tree.nodes[i].text = Int32(tree.texts.count)
            tree.texts.append(trimmed)
        }
        pending = ""
    }

    mutating func characters(_ string: String) -> String? {
        pending += string
        return pending.utf8.count > limits.maxTextBytes ? "more than \(limits.maxTextBytes >> 10) KB of text in one element; not a MusicXML score" : nil
    }

    /// The text without the XML white space around it (space, tab, CR, LF), nil when nothing is
    /// left. On the UTF-8 bytes: this runs for every element of the score.
    static func trimmed(_ text: String) -> String? {
        let u = text.utf8
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard let first = u.firstIndex(where: { !isSpace($0) }), let last = u.lastIndex(where: { !isSpace($0) }) else { return nil }
        if first == u.startIndex && last == u.index(before: u.endIndex) { return text }
        return String(text[first...last])
    }
}

/// The XMLParser delegate that fills the tree.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var state: TreeState
    var failure: MusicXMLError?
    /// Where libxml2 found the first error (the parser moves on before `parse()` returns).
    var errorPlace: (line: Int, column: Int)?

    init(limits: MusicXMLLimits, bytes: Int) {
        state = TreeState(limits: limits, bytes: bytes)
    }

    var tree: XMLTree { state.tree }
    var stack: [Int32] { state.stack }

    /// libxml2 refuses documents over 10 MB ("XML error 1") unless its context is told they
    /// may be huge; the size is bounded before parsing (`maxXMLBytes`), so the one it is given
    /// may be. The context exists from the first callback on.
    func parserDidStartDocument(_ parser: XMLParser) {
        HugeDocuments.allow(parser)
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = MusicXMLError(line: parser.lineNumber, column: parser.columnNumber, message) }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard failure == nil else { return }
        if let problem = state.start(elementName, attributeDict, line: parser.lineNumber) { fail(parser, problem) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil else { return }
        state.end()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil else { return }
        if let problem = state.characters(string) { fail(parser, problem) }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }

    /// The first error libxml2 reports that is not a warning: the document is not well-formed
    /// even when XMLParser's `parse()` returns true (it does after some fatal errors, having
    /// read only part of the document).
    var fatalCode: Int?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        let code = (parseError as NSError).code
        if errorPlace == nil { errorPlace = (parser.lineNumber, parser.columnNumber) }
        if fatalCode == nil, !XMLErrorText.isWarning(code) {
            fatalCode = code
            errorPlace = (parser.lineNumber, parser.columnNumber)
        }
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        nil
    }
}

/// What comes before the root element: its name, and whether a DOCTYPE declares entities.
/// Read from the bytes without parsing them, so `.xml` files can be sorted into MusicXML and
/// others cheaply, and entity declarations are refused before libxml2 sees them.
struct Prolog {
    var rootName: String?
    var declaresEntities = false
    /// The DOCTYPE's internal subset declares elements, attributes or notations (XMLParser
    /// crashes on some such declarations; no score has them).
    var declaresMarkup = false
    /// The document is UTF-8: declared so, or declaring no encoding without a UTF-16 mark.
    var isUTF8 = true
    /// The encoding its XML declaration names (lowercased), nil when it names none.
    var encoding: String?

    static func scan(_ raw: [UInt8]) -> Prolog {
        let bytes = utf8View(raw)
        var out = Prolog()
        var i = 0
        let n = bytes.count
        func starts(_ s: String, at k: Int) -> Bool {
            let u = Array(s.utf8)
            guard k + u.count <= n else { return false }
            for j in 0..<u.count where bytes[k + j] != u[j] { return false }
            return true
        }
        func find(_ s: String, from k: Int) -> Int? {
            let u = Array(s.utf8)
            guard let first = u.first else { return k }
            var p = k
            while p + u.count <= n {
                if bytes[p] == first, starts(s, at: p) { return p }
                p += 1
            }
            return nil
        }
        if isUTF16(raw) { out.isUTF8 = false }
        while i < n {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            if starts("<?", at: i) {
                guard let e = find("?>", from: i + 2) else { return out }
                if starts("<?xml", at: i), !isUTF16(raw) {
                    let decl = String(decoding: bytes[i..<e], as: UTF8.self).lowercased()
                    if let r = decl.range(of: "encoding") {
                        let value = decl[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
                        // Only a one-byte encoding libxml2 converts from makes other bytes
                        // text; anything else (misspelt, unknown) is held to UTF-8.
                        if singleByteEncodings.contains(String(value)) { out.isUTF8 = false }
                        if out.encoding == nil { out.encoding = String(value) }
                    }
                }
                i = e + 2
            } else if starts("<!--", at: i) {
                guard let e = find("-->", from: i + 4) else { return out }
                i = e + 3
            } else if starts("<!", at: i) {
                // DOCTYPE (or any declaration): to its closing '>' outside quotes and brackets.
                var k = i + 2
                var depth = 0
                var quote: UInt8 = 0
                while k < n {
                    let c = bytes[k]
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                        quote = c
                    } else if c == UInt8(ascii: "[") {
                        depth += 1
                    } else if c == UInt8(ascii: "]") {
                        depth = max(0, depth - 1)
                    } else if c == UInt8(ascii: "<"), depth > 0, starts("<!ENTITY", at: k) {
                        out.declaresEntities = true
                    } else if c == UInt8(ascii: "<"), depth > 0, starts("<!", at: k), !starts("<!--", at: k) {
                        out.declaresMarkup = true
                    } else if c == UInt8(ascii: ">"), depth == 0 {
                        break
                    }
                    k += 1
                }
                i = k + 1
            } else {
                var k = i + 1
                var name: [UInt8] = []
                while k < n, name.count < 64 {
                    let c = bytes[k]
                    if c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { break }
                    name.append(c)
                    k += 1
                }
                out.rootName = String(decoding: name, as: UTF8.self)
                return out
            }
        }
        return out
    }

    static let singleByteEncodings: Set<String> = {
        var names: Set<String> = ["latin1", "latin-1", "l1", "us-ascii", "ascii", "cp1252", "macintosh", "koi8-r"]
        for k in 1...16 { names.insert("iso-8859-\(k)"); names.insert("iso8859-\(k)") }
        for k in 1250...1258 { names.insert("windows-\(k)") }
        return names
    }()

    static func isUTF16(_ b: [UInt8]) -> Bool {
        guard b.count >= 4 else { return false }
        return (b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF)
            || (b[0] == 0x3C && b[1] == 0 && b[2] != 0 && b[3] == 0) || (b[0] == 0 && b[1] == 0x3C && b[2] == 0 && b[3] != 0)
    }

    /// UTF-16 text (with a byte-order mark, or `<?` as UTF-16) as UTF-8 for scanning; any other
    /// encoding MusicXML uses is ASCII-compatible in its markup.
    static func utf8View(_ b: [UInt8]) -> [UInt8] {
        guard b.count >= 4 else { return b }
        var little: Bool?
        var start = 0
        if b[0] == 0xFF && b[1] == 0xFE { little = true; start = 2 }
        else if b[0] == 0xFE && b[1] == 0xFF { little = false; start = 2 }
        else if b[0] == 0x3C && b[1] == 0 && b[2] != 0 && b[3] == 0 { little = true }
        else if b[0] == 0 && b[1] == 0x3C && b[2] == 0 && b[3] != 0 { little = false }
        guard let le = little else { return b }
        var units: [UInt16] = []
        units.reserveCapacity((b.count - start) / 2)
        var k = start
        while k + 1 < b.count {
            units.append(le ? UInt16(b[k]) | UInt16(b[k + 1]) << 8 : UInt16(b[k]) << 8 | UInt16(b[k + 1]))
            k += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}

/// libxml2's error numbers (which XMLParser reports) in words.
enum XMLErrorText {
    /// libxml2's warnings (XML_WAR_*): the document is still read. An undeclared entity is one
    /// (MusicXML's DTD declares the ISO entity sets, which Etude does not load: `&eacute;` is
    /// dropped, not an error).
    static func isWarning(_ code: Int) -> Bool {
        [27, 93, 97, 98, 99, 100, 102, 106, 107].contains(code)
    }

    static func describe(_ code: Int) -> String {
        switch code {
        case 1: return "the XML reader gave up on a part beyond its limits (a name, a text or a nesting too large); export the score again"
        case 2: return "the XML reader ran out of memory; export a smaller score"
        case 3, 4: return "no root element (the file is empty or not XML)"
        case 5, 86: return "extra content after the end of the document"
        case 9: return "a character that XML does not allow"
        case 6, 7, 8: return "a bad character reference (&#…;)"
        case 22, 23: return "an '&' that starts no entity (write &amp;)"
        case 26, 27: return "an undeclared entity (&name;)"
        case 31, 32, 81: return "an encoding Etude cannot read"
        case 33, 34, 43, 44: return "a quoted value that is not closed"
        case 38: return "a '<' inside an attribute value"
        case 39, 40, 41: return "a malformed attribute"
        case 42: return "an attribute given twice"
        case 45: return "a comment that is not closed"
        case 46, 47: return "a processing instruction that is not closed"
        case 57: return "a malformed XML declaration"
        case 61: return "a DOCTYPE that is not closed"
        case 63: return "a CDATA section that is not closed"
        case 64: return "a reserved name"
        case 65, 66: return "a space is missing"
        case 68: return "a name is missing (or starts with a character names cannot start with)"
        case 73: return "a '>' is missing"
        case 76: return "an end tag that does not match its start tag"
        case 77: return "a tag that is not finished"
        case 85: return "elements that are not balanced"
        case 89: return "entities that refer to themselves"
        case 10...21: return "a character or entity reference in a place XML does not allow it"
        case 24, 25: return "a malformed parameter entity reference (%name;)"
        case 28, 29, 30: return "an entity Etude does not read (unparsed, external or a parameter entity)"
        case 35: return "a malformed namespace declaration"
        case 36, 37, 87, 88, 90: return "a malformed entity"
        case 48...55: return "a malformed declaration in the DOCTYPE"
        case 56: return "an XML declaration in the wrong place (<?xml …?> must come first)"
        case 58, 59, 83, 95: return "a conditional section (<![ … ]]>), which a document may not hold"
        case 60, 94, 103: return "a DOCTYPE Etude cannot use"
        case 62: return "a ']]>' outside a CDATA section"
        case 67, 69, 70, 71, 84: return "a value is missing or malformed in a declaration"
        case 72: return "a '<' is missing"
        case 74: return "a '</' is missing"
        case 75: return "an '=' is missing after an attribute name"
        case 78: return "a malformed standalone declaration (write standalone=\"yes\" or \"no\")"
        case 79: return "a malformed encoding name in the XML declaration"
        case 80: return "'--' inside a comment"
        case 82: return "an external entity in a standalone document"
        case 91, 92: return "a malformed URI"
        case 96: return "the XML declaration has no version (write <?xml version=\"1.0\"?>)"
        case 101: return "the XML declaration names no encoding where one is needed"
        case 104, 105: return "entities or notations Etude does not read"
        case 108, 109: return "an XML version Etude cannot read (write version=\"1.0\")"
        case 110: return "a name longer than the XML reader takes"
        case 111, 512: return "parsing stopped"
        default: return "a construct the XML reader cannot read here (libxml2 error \(code)); export the score again"
        }
    }
}

/// libxml2's XML_PARSE_HUGE for the parser XMLParser made (swift-corelibs-foundation keeps its
/// context private and sets only RECOVER and NOENT): the context is read from the parser's
/// stored `_parserContext` and given the same options plus HUGE. Without a context found
/// (another Foundation) nothing changes and documents over 10 MB fail as before, in words
/// (`XMLErrorText`, code 1).
enum HugeDocuments {
    static let recover: Int32 = 1 << 0, noEntities: Int32 = 1 << 1, huge: Int32 = 1 << 19

    static func allow(_ parser: XMLParser) {
        guard let use = useOptions, let context = context(of: parser) else { return }
        _ = use(context, recover | noEntities | huge)
    }

    /// libxml2's `int xmlCtxtUseOptions(xmlParserCtxtPtr, int)`, found where FoundationXML
    /// loaded it (nil when it cannot be).
    static let useOptions: (@convention(c) (OpaquePointer, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "xmlCtxtUseOptions") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (OpaquePointer, Int32) -> Int32).self)
    }()

    static func context(of parser: XMLParser) -> OpaquePointer? {
        var mirror: Mirror? = Mirror(reflecting: parser)
        while let m = mirror {
            for child in m.children where child.label == "_parserContext" {
                if let p = child.value as? OpaquePointer { return p }
                if case let p?? = child.value as? OpaquePointer? { return p }
                if let p = child.value as? UnsafeMutableRawPointer { return OpaquePointer(p) }
            }
            mirror = m.superclassMirror
        }
        return nil
    }
}
