import Foundation
import Testing
import TestSupport

/// Issue 31, point 10, as a user meets it: `etude info` on scores holding a processing
/// instruction without data in the shapes that crashed XMLParser (exit 139) — after another
/// instruction's `<!--`, in UTF-16, UTF-7 — and in an .mxl's container and score. Each read ends
/// with the score or one line, never a signal.
@Suite("Empty processing instructions, end to end", .serialized)
struct EmptyInstructionCommandTests {
    let etude: Etude
    let dir: TempDir

    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-instructions")
    }

    static let body = "<part-list><score-part id=\"P1\"><part-name>P</part-name></score-part></part-list><part id=\"P1\">"
        + "<measure number=\"1\"><attributes><divisions>1</divisions></attributes><note><pitch><step>C</step><octave>4</octave></pitch>"
        + "<duration>4</duration></note></measure></part>"

    static func score(_ inside: String, encoding: String = "UTF-8") -> String {
        "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<score-partwise version=\"4.0\">\(inside)\(body)</score-partwise>\n"
    }

    static func utf16(_ text: String, littleEndian: Bool) -> [UInt8] {
        var out: [UInt8] = littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
        for u in text.utf16 { out += littleEndian ? [UInt8(u & 0xFF), UInt8(u >> 8)] : [UInt8(u >> 8), UInt8(u & 0xFF)] }
        return out
    }

    @Test func shapesThatCrashedAreReadOrRefusedInOneLine() throws {
        let cases: [(name: String, bytes: [UInt8], status: Int32, message: String?)] = [
            ("after-comment-in-instruction.musicxml", Array(Self.score("<?y <!-- ?><?x?><!-- -->").utf8), 0, nil),
            ("broken-tag.musicxml", Array(Self.score("<ste<?x?>").utf8), 1, "not well-formed XML"),
            ("utf16le.musicxml", Self.utf16(Self.score("<?x?>", encoding: "UTF-16"), littleEndian: true), 0, nil),
            ("utf16be.musicxml", Self.utf16(Self.score("<?x?>", encoding: "UTF-16"), littleEndian: false), 0, nil),
            ("utf16-broken.musicxml", Self.utf16(Self.score("<ste<?x?>", encoding: "UTF-16"), littleEndian: true), 1, "not well-formed XML"),
            ("utf7.musicxml", Array(Self.score("+ADw-?x?+AD4-", encoding: "UTF-7").utf8), 1, "save the score as UTF-8"),
            ("ucs4.musicxml", [0, 0, 0, 0x3C] + [UInt8](repeating: 0, count: 64), 1, "UCS-4"),
        ]
        for c in cases {
            let path = try dir.write(c.name, c.bytes)
            HostileInputTests.expectClean(try etude.run(["info", path]), status: c.status, message: c.message, c.name)
        }
    }

    @Test func anMXLWithEmptyInstructionsInItsContainerAndScore() throws {
        let container = Array("<?x?><container><rootfiles><?y <!-- ?><?z?><rootfile full-path=\"s.musicxml\"/></rootfiles></container>".utf8)
        let score = Array(Self.score("<?y <!-- ?><?x?>").utf8)
        let mxl = HostileInputRoundTwoTests.zip([("META-INF/container.xml", 0, container, container), ("s.musicxml", 0, score, score)])
        let path = try dir.write("instructions.mxl", mxl)
        HostileInputTests.expectClean(try etude.run(["info", path]), status: 0, "info instructions.mxl")
    }
}
