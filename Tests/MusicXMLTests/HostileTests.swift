import Foundation
import Testing
import MIDIFile
import ZIPFoundation
@testable import MusicXML

/// Files that are broken or built to hurt: each is one error line, never a crash, a hang, a
/// fetch or a memory blow-up.
@Suite struct HostileTests {
    static func error(_ bytes: [UInt8], limits: MusicXMLLimits = MusicXMLLimits()) -> MusicXMLError? {
        do {
            _ = try MusicXMLImport.midiFile(fromBytes: bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static func error(_ text: String) -> MusicXMLError? { error(Array(text.utf8)) }

    @Test func notWellFormedSaysLineAndColumn() throws {
        let e = try #require(Self.error("<?xml version=\"1.0\"?>\n<score-partwise>\n  <part-list></part-lst>\n</score-partwise>"))
        #expect(e.line == 3)
        #expect(e.column > 0)
        #expect(e.oneLine.hasPrefix("3:"))
        #expect(e.oneLine.contains("not well-formed XML"))
        #expect(!e.oneLine.contains("\n"))
    }

    @Test func aCutShortFileIsNotWellFormed() throws {
        let full = Score.partwise([Score.bar("C4", "D4", "E4", "F4")])
        let cut = String(full.prefix(full.count / 2))
        let e = try #require(Self.error(cut))
        #expect(e.message.contains("not well-formed XML"))
    }

    @Test func billionLaughsIsRefusedBeforeParsing() throws {
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise [\n <!ENTITY lol \"lol\">\n"
        for i in 1...9 {
            let prev = i == 1 ? "lol" : "lol\(i - 1)"
            xml += " <!ENTITY lol\(i) \"\(String(repeating: "&\(prev);", count: 10))\">\n"
        }
        xml += "]>\n<score-partwise><work><work-title>&lol9;</work-title></work></score-partwise>"
        let e = try #require(Self.error(xml))
        #expect(e.message.contains("declares entities"))
    }

    @Test func externalEntitiesAreRefused() throws {
        let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n<score-partwise><work><work-title>&xxe;</work-title></work></score-partwise>"
        let e = try #require(Self.error(xml))
        #expect(e.message.contains("declares entities"))
    }

    @Test func anInternalSubsetWithDeclarationsIsRefused() throws {
        // XMLParser crashes on an attribute declared without a default, or a notation.
        for decl in ["<!ATTLIST a b CDATA #IMPLIED>", "<!NOTATION x SYSTEM \"y\">", "<!ELEMENT a (#PCDATA)>"] {
            let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise [ \(decl) ]>\n<score-partwise><part-list/></score-partwise>"
            let e = try #require(Self.error(xml))
            #expect(e.message.contains("declares markup of its own"))
        }
        // A comment or nothing in the brackets is fine.
        let fine = Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).replacingOccurrences(of: "\"http://www.musicxml.org/dtds/partwise.dtd\">", with: "\"http://www.musicxml.org/dtds/partwise.dtd\" [ <!-- none --> ]>")
        #expect(try Read.pitches(fine) == [60, 62, 64, 65])
    }

    @Test func anExternalDTDIsNeverFetched() throws {
        // A DTD on this machine that would define &evil; if it were loaded: it is not.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-mx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dtd = dir.appendingPathComponent("evil.dtd")
        try Data("<!ENTITY evil \"EVIL\">".utf8).write(to: dtd)
        let score = Score.partwise([Score.bar("C4", "D4", "E4", "F4")], header: "<work><work-title>T&evil;</work-title></work>")
            .replacingOccurrences(of: "PUBLIC \"-//Recordare//DTD MusicXML 4.0 Partwise//EN\" \"http://www.musicxml.org/dtds/partwise.dtd\"", with: "SYSTEM \"\(dtd.path)\"")
        let r = try MusicXMLImport.midiFile(fromXML: Array(score.utf8))
        #expect(LessonTags(file: r.file).title == "T")
        // The usual public DTD reference is read without any network access, and fast.
        let start = Date()
        _ = try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")]))
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func deepNestingIsBounded() throws {
        let xml = "<score-partwise>" + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + "</score-partwise>"
        let e = try #require(Self.error(xml))
        #expect(e.message.contains("nested more than"))
    }

    @Test func hugeTextIsBounded() throws {
        var limits = MusicXMLLimits()
        limits.maxTextBytes = 1000
        let xml = "<score-partwise><work><work-title>" + String(repeating: "x", count: 5000) + "</work-title></work></score-partwise>"
        let e = try #require(Self.error(Array(xml.utf8), limits: limits))
        #expect(e.message.contains("of text in one element"))
    }

    @Test func notXMLAtAll() throws {
        let e = try #require(Self.error("MThd this is not xml"))
        #expect(e.message.contains("not XML") || e.message.contains("not well-formed"))
        let empty = try #require(Self.error("   \n"))
        #expect(!empty.oneLine.isEmpty)
    }

    @Test func unknownRootElement() throws {
        let e = try #require(Self.error("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><g/></svg>"))
        #expect(e.oneLine == "the root element is <svg>, not a MusicXML score (<score-partwise> or <score-timewise>)")
        let opus = try #require(Self.error("<?xml version=\"1.0\"?><opus><title>x</title></opus>"))
        #expect(opus.message.contains("opus"))
    }

    @Test func noNotes() throws {
        let e = try #require(Self.error(Score.partwise([Score.rest(4), Score.rest(4)])))
        #expect(e.message.hasPrefix("no notes"))
        let noParts = try #require(Self.error("<score-partwise><part-list/></score-partwise>"))
        #expect(noParts.message.hasPrefix("no notes"))
    }

    // MARK: .mxl

    static func zip(_ entries: [(String, [UInt8])], compress: Bool = true) throws -> [UInt8] {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, bytes) in entries {
            let data = Data(bytes)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: compress ? .deflate : .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let out = archive.data else { throw MusicXMLError("no archive data") }
        return [UInt8](out)
    }

    static let container = Array("""
    <?xml version="1.0" encoding="UTF-8"?>
    <container><rootfiles><rootfile full-path="score.musicxml" media-type="application/vnd.recordare.musicxml+xml"/></rootfiles></container>
    """.utf8)

    @Test func mxlReadsTheRootfile() throws {
        let score = Array(Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).utf8)
        let mxl = try Self.zip([("mimetype", Array("application/vnd.recordare.musicxml".utf8)), ("META-INF/container.xml", Self.container), ("score.musicxml", score)])
        #expect(MusicXMLImport.isMusicXML(mxl))
        let f = try MusicXMLImport.midiFile(fromBytes: mxl).file
        #expect(NotePairing.notes(in: f).notes.map(\.pitch) == [60, 62, 64, 65])
    }

    @Test func mxlWithoutContainerOrRootfile() throws {
        let score = Array(Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).utf8)
        let noContainer = try #require(Self.error(try Self.zip([("score.musicxml", score)])))
        #expect(noContainer.message.contains("no META-INF/container.xml"))
        let empty = Array("<container><rootfiles/></container>".utf8)
        let noRoot = try #require(Self.error(try Self.zip([("META-INF/container.xml", empty), ("score.musicxml", score)])))
        #expect(noRoot.message.contains("names no rootfile"))
        let missing = try #require(Self.error(try Self.zip([("META-INF/container.xml", Self.container)])))
        #expect(missing.message.contains("is not in the archive"))
    }

    @Test func zipBombStopsAtTheLimit() throws {
        var limits = MusicXMLLimits()
        limits.maxXMLBytes = 1 << 20
        // 8 MB of spaces compress to a few KB.
        let bomb = [UInt8](repeating: 0x20, count: 8 << 20)
        let mxl = try Self.zip([("META-INF/container.xml", Self.container), ("score.musicxml", bomb)])
        #expect(mxl.count < 100_000)
        let e = try #require(Self.error(mxl, limits: limits))
        #expect(e.message.contains("unpacks to"))
    }

    @Test func aDamagedZipIsOneLine() throws {
        var bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        bytes += [UInt8](repeating: 0xAB, count: 200)
        let e = try #require(Self.error(bytes))
        #expect(e.message.contains(".mxl"))
    }

    @Test func everyPrefixOfAScoreFailsCleanlyOrReads() {
        let full = Array(Score.partwise([Score.bar("C4", "D4", "E4", "F4"), Score.bar("G4", "A4", "B4", "C5")]).utf8)
        for n in stride(from: 0, to: full.count, by: 7) {
            _ = Self.error(Array(full.prefix(n)))
        }
    }
}

/// Moving indentation out of the way before parsing changes nothing that is read.
@Suite struct BlanksTests {
    static func same(_ a: XMLTree, _ b: XMLTree) -> Bool {
        guard a.nodes.count == b.nodes.count else { return false }
        for i in a.nodes.indices {
            if a.name(i) != b.name(i) || a.text(i) != b.text(i) || a.line(i) != b.line(i)
                || a.nodes[i].parent != b.nodes[i].parent || a.nodes[i].nextSibling != b.nodes[i].nextSibling { return false }
            let x = a.nodes[i].attrs < 0 ? [:] : a.attributes[Int(a.nodes[i].attrs)]
            let y = b.nodes[i].attrs < 0 ? [:] : b.attributes[Int(b.nodes[i].attrs)]
            if x != y { return false }
        }
        return true
    }

    @Test func theTreeIsTheSameWithLinesAndText() throws {
        let xml = Score.partwise([
            Score.bar("C4", "D4", "E4", "F4"),
            "<direction>\r\n  <direction-type>\r  <words>  Allegro &gt; <![CDATA[x]]> </words></direction-type>\n</direction>\n  <!-- a > <b -->\n  <note\n  default-x=\"3\"\n  ><pitch><step>G</step>\n<octave>4</octave></pitch><duration>4</duration>\n    <chord/>\n  </note>",
        ], header: "\n   <work>\n\t<work-title>  Title  </work-title>\n   </work>")
        let bytes = Array(xml.utf8)
        try XMLTreeReader.precheck(bytes, limits: MusicXMLLimits())
        let moved = try #require(Blanks.moved(bytes, minimum: 0))
        #expect(moved.count < bytes.count)
        let a = try XMLTreeReader.parse(bytes, limits: MusicXMLLimits())
        let b = try XMLTreeReader.parse(moved, limits: MusicXMLLimits())
        #expect(Self.same(a, b))
        #expect(a.nodes.count > 40)
    }

    @Test func errorsAreReportedWhereTheyAreWritten() throws {
        var xml = Score.partwise((0..<60).map { _ in Score.bar("C4", "D4", "E4", "F4") })
        xml = xml.replacingOccurrences(of: "<measure number=\"30\">", with: "<measure number=\"30\"><bad></measure>")
        let lines = xml.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (lines.firstIndex { $0.contains("<bad>") } ?? 0) + 1
        do {
            _ = try Read.file(xml)
            Issue.record("read a broken file")
        } catch let e as MusicXMLError {
            #expect(e.line == line)
            let direct = try? XMLTreeReader.parse(Array(xml.utf8), limits: MusicXMLLimits())
            #expect(direct == nil)
        }
    }
}

/// Bytes that are not UTF-8 in a UTF-8 document (found by the fuzzer: XMLParser traps on such
/// an element name): one error at their place.
@Suite struct EncodingTests {
    @Test func invalidUTF8IsRefusedWhereItIs() throws {
        let bytes: [UInt8] = Array("<score-partwise>\n  <".utf8) + [0xFF, 0xFF] + Array("zM/>\n</score-partwise>".utf8)
        do {
            _ = try MusicXMLImport.midiFile(fromXML: bytes)
            Issue.record("read a document that is not UTF-8")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 4)
            #expect(error.message.contains("byte 0xFF is not UTF-8"))
        }
        #expect(XMLTreeReader.invalidUTF8(Array("é ok €".utf8)) == nil)
        #expect(XMLTreeReader.invalidUTF8([0x41, 0xC3]) == 1)
        #expect(XMLTreeReader.invalidUTF8([0x41, 0xED, 0xA0, 0x80]) == 1)
    }

    @Test func aGarbledEncodingIsHeldToUTF8() throws {
        // Found by the fuzzer: "UTF-\xC08" is no encoding libxml2 converts from, so the bytes
        // must be UTF-8, and a name that is not is refused before XMLParser sees it.
        let bytes: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"UTF-".utf8) + [0xC0] + Array("8\"?>\n<score-partwi".utf8) + [0x8D, 0x92] + Array("/>".utf8)
        #expect(throws: MusicXMLError.self) { try MusicXMLImport.midiFile(fromXML: bytes) }
        for name in ["ISO-8859-1", "windows-1252", "koi8-r"] {
            let doc: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><score-partwise><".utf8) + [0xFF, 0xFF] + Array("zM/></score-partwise>".utf8)
            #expect(throws: MusicXMLError.self) { try MusicXMLImport.midiFile(fromXML: doc) }
        }
    }

    @Test func processingInstructionsWithoutDataAreRemoved() throws {
        // Found by the fuzzer: XMLParser crashes on `<?x?>` (a null pointer in Foundation).
        for body in ["<?x?>", "<?page-break?>\n<!-- <?y?> -->"] {
            let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).replacingOccurrences(of: "<part id=\"P1\">", with: "<part id=\"P1\">\(body)")
            #expect(try Read.pitches(xml) == [60, 62, 64, 65])
        }
        let before = Array("<a>\n<?x?><![CDATA[<?y?>]]><b c=\"?\"/><?xml-stylesheet href=\"s\"?></a>".utf8)
        let after = try #require(EmptyInstructions.removed(before))
        // Removed wherever they stand, CDATA sections included (issue 31: a guess at where one
        // starts hid an instruction from the pass); instructions with data are kept.
        #expect(String(decoding: after, as: UTF8.self) == "<a>\n     <![CDATA[     ]]><b c=\"?\"/><?xml-stylesheet href=\"s\"?></a>")
        #expect(EmptyInstructions.removed(Array("<a><?x y?></a>".utf8)) == nil)
        // A broken declaration does not hide the instructions after it, nor does `<?xml?>`.
        for text in ["<?xml version=?1.\"\"0>\n<score-partwise><?XML?><?Gxml?><part-list/></score-partwise>", "<?xml?>\n<score-partwise><part-list/></score-partwise>"] {
            #expect(HostileTests.error(text) != nil)
        }
    }

    @Test func latin1DeclaredIsRead() throws {
        var xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")], header: "<work><work-title>Caf\u{E9}</work-title></work>")
        xml = xml.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"ISO-8859-1\"")
        let bytes = xml.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        let f = try MusicXMLImport.midiFile(fromXML: bytes).file
        #expect(LessonTags(file: f).title == "Caf\u{E9}")
    }
}
