import Foundation
import MIDIFile
import Testing
import TestSupport
@testable import MusicXML

/// Issue 31, point 10: a processing instruction without data (`<?x?>`) crashes Foundation's
/// XMLParser (a null pointer in its handler), wherever libxml2 meets it. Each shape below is
/// generated into a score and read: the reading must end — with the score or with one error —
/// and a crash here stops the whole test run. Shapes the probe found crashing before the fix:
/// after another instruction's `<!--`, UTF-16 (with and without a byte-order mark), UTF-7.
@Suite struct EmptyInstructionShapesTests {
    static func score(_ inPart: String = "", doctype: String = "", declaration: String = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") -> String {
        declaration + doctype + "<score-partwise version=\"4.0\"><part-list><score-part id=\"P1\"><part-name>P</part-name></score-part></part-list>"
            + "<part id=\"P1\">\(inPart)<measure number=\"1\"><attributes><divisions>1</divisions></attributes>"
            + "<note><pitch><step>C</step><octave>4</octave></pitch><duration>4</duration></note></measure></part></score-partwise>\n"
    }

    /// Reads the bytes; nil when they read, else the error.
    static func read(_ bytes: [UInt8]) -> MusicXMLError? {
        do {
            _ = try MusicXMLImport.midiFile(fromBytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    static let shapes: [(name: String, text: String)] = [
        ("in content", score("<?x?>")),
        ("a broken tag name", score("<ste<?x?>")),
        ("a broken tag with a space", score("<ste <?x?>>")),
        ("an attribute's name", score("<a b<?x?>=\"1\"/>")),
        ("an attribute's value", score("<a b=\"<?x?>\"/>")),
        ("an end tag", score("<a></a<?x?>>")),
        ("after '<'", score("<<?x?>")),
        ("an entity reference", score("&a<?x?>;")),
        ("the DOCTYPE's internal subset", score(doctype: "<!DOCTYPE score-partwise [ <?x?> ]>\n")),
        ("after a comment in the DOCTYPE", score(doctype: "<!DOCTYPE score-partwise [ <!-- a --> <?x?> ]>\n")),
        ("before the declaration", "<?x?>" + score()),
        ("after the root", score() + "<?x?>"),
        ("<?xml?> in content", score("<?xml?>")),
        ("<?xml?> as the declaration", score(declaration: "<?xml?>\n")),
        ("after another instruction's '<!--'", score("<?y <!-- ?><?x?><!-- -->")),
        ("after another instruction's '<![CDATA['", score("<?y <![CDATA[ ?><?x?>]]>")),
        ("after a comment inside a tag", score("<a <!-- --> <?x?> />")),
        ("after a CDATA section inside a tag", score("<a <![CDATA[ x ]]> <?x?>/> ]]>")),
        ("after '<!--' in an attribute value", score("<a b=\"<!--\"><?x?></a><!-- -->")),
        ("after '<![CDATA[' in an attribute value", score("<a b=\"<![CDATA[\"/><?x?><![CDATA[]]>")),
        ("inside a comment that is not closed", score("<!-- <?x?>")),
        ("inside a CDATA section", score("<![CDATA[<?x?>]]>")),
        ("with a long name", score("<?" + String(repeating: "x", count: 5000) + "?>")),
        ("with a name of letters beyond ASCII", score("<?\u{E9}t\u{E9}?>")),
        ("with a name of digits, dashes and dots", score("<?x-1.2:y_z?><?1?><?-?>")),
        ("many in a row", score(String(repeating: "<?x?>", count: 2000))),
        ("with spaces (these have data and are not removed)", score("<?x ?><?x\n?>")),
    ]

    @Test(arguments: shapes.map(\.name))
    func anEmptyInstructionReadsOrFailsInOneLine(_ name: String) throws {
        let text = try #require(Self.shapes.first { $0.name == name }?.text)
        if let e = Self.read(Array(text.utf8)) {
            #expect(!e.oneLine.isEmpty && !e.oneLine.contains("\n"), "\(name): \(e.oneLine)")
        }
    }

    @Test func scoresAroundEmptyInstructionsStillRead() throws {
        for body in ["<?x?>", "<?y <!-- ?><?x?><!-- -->", "<?page-break?><?page-break?>"] {
            #expect(Self.read(Array(Self.score(body).utf8)) == nil, "\(body)")
        }
    }

    static func utf16(_ text: String, littleEndian: Bool, mark: Bool) -> [UInt8] {
        var out: [UInt8] = mark ? (littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) : []
        for u in text.utf16 { out += littleEndian ? [UInt8(u & 0xFF), UInt8(u >> 8)] : [UInt8(u >> 8), UInt8(u & 0xFF)] }
        return out
    }

    @Test func utf16IsReadAsUTF8SoItsInstructionsAreSeen() throws {
        let text = Self.score("<?x?><ste<?x?>", declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n")
        let good = Self.score("<?x?>", declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n")
        for little in [true, false] {
            for mark in [true, false] {
                #expect(Self.read(Self.utf16(text, littleEndian: little, mark: mark)) != nil)
                #expect(Self.read(Self.utf16(good, littleEndian: little, mark: mark)) == nil, "UTF-16 little: \(little), mark: \(mark)")
            }
        }
        // A UTF-16 document that declares another encoding (libxml2 would switch to it): read as UTF-16.
        let latin = Self.utf16("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>", littleEndian: true, mark: true) + Array(Self.score("<?x?>", declaration: "").utf8)
        _ = Self.read(latin)
        let converted = try TextEncoding.asciiCompatible(Self.utf16(good, littleEndian: true, mark: true))
        #expect(String(decoding: converted, as: UTF8.self).hasPrefix("<?xml version=\"1.0\"                  ?>\n<score-partwise"))
    }

    @Test func encodingsWhereAnInstructionCanHideAreRefused() throws {
        let cases: [(bytes: [UInt8], message: String)] = [
            (Array(Self.score("+ADw-?x?+AD4-", declaration: "<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n").utf8), "names the encoding \"utf-7\""),
            (Array("<?xml version=\"1.0\" encoding=\"IBM037\"?>Lomon".utf8), "names the encoding \"ibm037\""),
            (Array(Self.score("<?\u{101}[?>", declaration: "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n").utf8), "names the encoding \"shift_jis\""),
            (Array(Self.score("<?x\u{1B}(B?>", declaration: "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>\n").utf8), "names the encoding \"iso-2022-jp\""),
            (Array(Self.score(declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n").utf8), "names the encoding \"utf-16\""),
            ([0, 0, 0, 0x3C] + Array(repeating: 0, count: 40), "written in UCS-4"),
            ([0x4C, 0x6F, 0xA7, 0x94] + Array(repeating: 0x40, count: 40), "written in EBCDIC"),
        ]
        for c in cases {
            let e = try #require(Self.read(c.bytes))
            #expect(e.message.contains(c.message) && e.message.contains("save the score as UTF-8"), "\(e.message)")
            #expect(throws: MusicXMLError.self) { try XMLTreeReader.read(c.bytes, limits: MusicXMLLimits()) }
        }
        for name in ["UTF-8", "utf8", "US-ASCII", "ISO-8859-1", "windows-1252", "KOI8-R"] {
            #expect(Self.read(Array(Self.score("<?x?>", declaration: "<?xml version=\"1.0\" encoding=\"\(name)\"?>\n").utf8)) == nil, "\(name)")
        }
    }

    @Test func xmlParserIsNeverGivenAnEmptyInstruction() throws {
        // `parse` is the one door to XMLParser: it strips them itself, whatever its caller did.
        let tree = try XMLTreeReader.parse(Array("<a><?x?><b/><?y <!-- ?><?z?></a>".utf8), limits: MusicXMLLimits())
        #expect(tree.nodes.count == 2)
    }

    /// Every input a fuzz run found crashing the reader (`Fuzz/musicxml-seeds/regression-*`,
    /// the last one from the hour of issue 31: an instruction libxml2 met in a mangled part
    /// name, SEGV in XMLParser's handler) reads or fails in one error, run after run.
    @Test func theFuzzersCrashesReadOrFailInOneLine() throws {
        let dir = Repo.root.appendingPathComponent("Fuzz/musicxml-seeds")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("regression-") }.sorted()
        #expect(names.contains("regression-fuzz-hour-instruction.musicxml"))
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            if let error = Self.read(bytes) { #expect(!error.description.isEmpty, "\(name)") }
        }
    }
}

