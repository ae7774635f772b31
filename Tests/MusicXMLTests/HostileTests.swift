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
