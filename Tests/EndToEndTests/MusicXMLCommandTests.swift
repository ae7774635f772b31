import Foundation
import Testing
import MIDIFile
import TestSupport

/// MusicXML lessons through the built `etude`: info, export of printed bars, the catalogue,
/// and one error line for every broken or hostile file.
@Suite struct MusicXMLCommandTests {
    /// Two staves; bars 1–3, a repeat of 2–5 with first ending 5 and second ending 6, then 7.
    /// Every bar has its own right-hand pitch (bar n: 59 + n … as a scale from C4) with
    /// finger n, and the left hand holds C3, so an export shows which bars it holds.
    static let steps = ["C", "D", "E", "F", "G", "A", "B"]
    static func bar(_ n: Int, left: String = "", right: String = "") -> String {
        let step = steps[(n - 1) % 7], octave = 4 + (n - 1) / 7
        var s = "<measure number=\"\(n)\">\(left)"
        if n == 1 {
            s += "<attributes><divisions>1</divisions><key><fifths>0</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time>"
                + "<staves>2</staves><clef number=\"1\"><sign>G</sign><line>2</line></clef><clef number=\"2\"><sign>F</sign><line>4</line></clef></attributes>"
        }
        s += "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>4</duration><voice>1</voice><type>whole</type><staff>1</staff>"
            + "<notations><technical><fingering>\((n - 1) % 5 + 1)</fingering></technical></notations></note>"
            + "<backup><duration>4</duration></backup>"
            + "<note><pitch><step>C</step><octave>3</octave></pitch><duration>4</duration><voice>5</voice><type>whole</type><staff>2</staff></note>"
        return s + right + "</measure>"
    }

    static var score: String {
        let forward = "<barline location=\"left\"><repeat direction=\"forward\"/></barline>"
        let first = "<barline location=\"left\"><ending number=\"1\" type=\"start\"/></barline>"
        let firstEnd = "<barline location=\"right\"><ending number=\"1\" type=\"stop\"/><repeat direction=\"backward\"/></barline>"
        let second = "<barline location=\"left\"><ending number=\"2\" type=\"start\"/></barline>"
        let secondEnd = "<barline location=\"right\"><ending number=\"2\" type=\"discontinue\"/></barline>"
        let measures = bar(1) + bar(2, left: forward) + bar(3) + bar(4) + bar(5, left: first, right: firstEnd) + bar(6, left: second, right: secondEnd) + bar(7)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">
        <score-partwise version="4.0"><work><work-title>Endings Study</work-title></work>
        <identification><creator type="composer">E. Tude</creator></identification>
        <part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1">\(measures)</part></score-partwise>
        """
    }

    static func pitch(ofBar n: Int) -> Int { [60, 62, 64, 65, 67, 69, 71][(n - 1) % 7] + 12 * ((n - 1) / 7) }

    /// (pitch, bar index from 0) of the right-hand notes of an exported file.
    static func exported(_ path: String) throws -> [(pitch: Int, bar: Int)] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let file = try MIDIReader.read(bytes).file
        let tpq = file.ticksPerQuarter ?? 480
        return NotePairing.notes(in: file).notes.filter { $0.pitch != 48 }
            .sorted { $0.startTick < $1.startTick }
            .map { (Int($0.pitch), $0.startTick / (4 * tpq)) }
    }

    /// The built-in score: a grand staff with fingering and a repeat, filed under its level.
    static let minuet = Repo.lesson("level4/minuet-in-g-score.musicxml")

    @Test func theBuiltInScoreOpensWithItsStavesLevelAndRepeat() throws {
        let etude = try Etude()
        let r = try etude.run("info", Self.minuet)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Level:     4"), "\(r.stdout)")
        #expect(r.stdout.contains("Parts:     Piano — 2 staves: (right hand, treble) (left hand, bass)"), "\(r.stdout)")
        #expect(r.stdout.contains("Printed:   printed bar → bar played: 1–16 → 1–16, 1–16@2 → 17–32"), "\(r.stdout)")
        #expect(r.stdout.contains("Warnings:  none"))
        let listed = try etude.run("list", "--level", "4")
        #expect(listed.stdout.contains("Score: Minuet in G major, BWV Anh. 114 (first half with its repeat)"), "\(listed.stdout)")
        // A loop of printed bars, the second time through: the bars said back as printed.
        let loop = try etude.run("loop", Self.minuet, "9-12@2", "--dry-run", "--repeat", "1")
        #expect(loop.status == 0, "\(loop.stderr)")
        #expect(loop.stdout.hasPrefix("Score: Minuet in G major, BWV Anh. 114 (first half with its repeat): bars 9–12@2, both hands\n"), "\(loop.stdout)")
    }

    /// On the practice screen the header counts printed bars, the loop is named as printed,
    /// and the staff view shows the score's fingering beside the heads.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theScoreIsPractisedByItsPrintedBarsWithItsFingering() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["practice", Self.minuet, "--mode", "wait", "--bars", "1-4@2", "--fingers"])
        #expect(eventually { pane.screen().contains("bar 1@2:1/16") }, "\(pane.screen())")
        #expect(pane.screen().contains("loop 1–4@2"), "\(pane.screen())")
        try pane.keys("v")
        // Bar 1 (both times): D5 with finger 5 in the right hand, the G3–B3–D4 chord 5-3-1 in the left.
        #expect(eventually { pane.screen().contains("●5") && pane.screen().contains("○5") && pane.screen().contains("○3") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }

    @Test func infoShowsPartsStavesAndTheBarMap() throws {
        let dir = try TempDir("etude-mx")
        let path = try dir.write("endings.musicxml", Self.score)
        let r = try Etude().run("info", path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Title:     Endings Study"))
        #expect(r.stdout.contains("Composer:  E. Tude"))
        #expect(r.stdout.contains("Parts:     Piano — 2 staves: (right hand, treble) (left hand, bass)"))
        #expect(r.stdout.contains("Printed:   printed bar → bar played: 1–5 → 1–5, 2–4@2 → 6–8, 6–7 → 9–10"))
        #expect(r.stdout.contains("Hands:     right 10, left 10 — staves: \"Piano\" (track 2) → right, \"Piano\" (track 3) → left"), "\(r.stdout)")
        let json = try Etude().run("info", path, "--json")
        #expect(json.status == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let printed = try #require((doc["bars"] as? [String: Any])?["printed"] as? [[String: Any]])
        #expect(printed.first?["printed"] as? [Int] == [1, 5] && printed.first?["pass"] as? Int == 1 && printed.first?["played"] as? [Int] == [1, 5],
                "\(json.stdout)")
        #expect((doc["parts"] as? [[String: Any]])?.first?["name"] as? String == "Piano", "parts beside bars, not inside: \(json.stdout)")
    }

    @Test func exportWritesExactlyThePrintedBars() throws {
        let dir = try TempDir("etude-mx")
        let path = try dir.write("endings.musicxml", Self.score)
        let etude = try Etude()
        // The first time through bars 4–5: bar 4, then the first ending.
        var r = try etude.run("export", path, "-o", dir.file("first.mid"), "--bars", "4-5")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bars 4–5,"))
        #expect(try Self.exported(dir.file("first.mid")).map(\.pitch) == [Self.pitch(ofBar: 4), Self.pitch(ofBar: 5)])
        // The second time: bar 4 again, then the second ending (bar 6).
        r = try etude.run("export", path, "-o", dir.file("second.mid"), "--bars", "4-6@2")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bars 4–6@2"))
        let second = try Self.exported(dir.file("second.mid"))
        #expect(second.map(\.pitch) == [Self.pitch(ofBar: 4), Self.pitch(ofBar: 6)])
        #expect(second.map(\.bar) == [0, 1])
        // Through the repeat sign, as played: 3, 4, 5 (first ending), 2, 3 (second time).
        r = try etude.run("export", path, "-o", dir.file("through.mid"), "--bars", "3@1-3@2")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.exported(dir.file("through.mid")).map(\.pitch) == [3, 4, 5, 2, 3].map(Self.pitch(ofBar:)))
        // The left hand comes along with --other play, one C3 per bar.
        r = try etude.run("export", path, "-o", dir.file("both.mid"), "--bars", "4-6@2", "--other", "play")
        let both = NotePairing.notes(in: try MIDIReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file("both.mid"))))).file).notes
        #expect(both.filter { $0.pitch == 48 }.count == 2)
    }

    @Test func printedBarErrorsAreOneLine() throws {
        let dir = try TempDir("etude-mx")
        let path = try dir.write("endings.musicxml", Self.score)
        let etude = try Etude()
        for (bars, message) in [("4-5@2", "bar 5 is not played after bar 4@2; try 4-5 with another @"), ("2-3@3", "bar 2 is played 2 times; use @1 to @2"),
                                ("9-12", "the score has no bar 9 (its bars are numbered 1–7)")] {
            let r = try etude.run("export", path, "-o", dir.file("x.mid"), "--bars", bars)
            #expect(r.status != 0)
            #expect(r.stderr == "etude: --bars \(bars): \(message)\n")
        }
        let loop = try etude.run("loop", path, "2-3@3", "--dry-run")
        #expect(loop.status != 0)
        #expect(loop.stderr == "etude: bars 2-3@3: bar 2 is played 2 times; use @1 to @2\n")
        let ok = try etude.run("loop", path, "2-3@2", "--dry-run", "--repeat", "2")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("bars 2–3@2"))
    }

    @Test func aMidiLessonKeepsItsBars() throws {
        let etude = try Etude()
        let dir = try TempDir("etude-mx")
        let r = try etude.run("export", Repo.lesson("level4/ode-to-joy.mid"), "-o", dir.file("o.mid"), "--bars", "1-2")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bars 1–2,"))
        let twice = try etude.run("export", Repo.lesson("level4/ode-to-joy.mid"), "-o", dir.file("o.mid"), "--bars", "1-2@2")
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("played once"))
    }

    static let hasZip = Tools.which("zip") != nil

    @Test(.enabled(if: hasZip, "zip is not installed (apt-get install zip)"))
    func compressedScoresAndTheCatalogue() throws {
        let dir = try TempDir("etude-mx")
        let lib = dir.file("lib")
        try FileManager.default.createDirectory(atPath: lib + "/META-INF", withIntermediateDirectories: true)
        _ = try TempDir.write(lib + "/score.musicxml", Self.score)
        _ = try TempDir.write(lib + "/META-INF/container.xml", "<container><rootfiles><rootfile full-path=\"score.musicxml\"/></rootfiles></container>")
        let zip = try #require(Tools.which("zip"))
        let z = try ProcessRunner.run(zip, ["-q", "-r", dir.file("study.mxl"), "META-INF", "score.musicxml"], directory: lib)
        #expect(z.status == 0)
        try FileManager.default.removeItem(atPath: lib + "/META-INF")
        let etude = try Etude(lessons: nil)
        let info = try etude.run("info", dir.file("study.mxl"))
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Endings Study"))
        // A folder with a score, an .xml that is a score, an .xml that is not, and an .mxl.
        try FileManager.default.moveItem(atPath: dir.file("study.mxl"), toPath: lib + "/study.mxl")
        _ = try TempDir.write(lib + "/copy.xml", Self.score.replacingOccurrences(of: "Endings Study", with: "Endings Copy"))
        _ = try TempDir.write(lib + "/drawing.xml", "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>")
        let add = try etude.run("library", "add", lib)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(!add.output.contains("drawing.xml"))
        let list = try etude.run("list")
        #expect(list.stdout.contains("Endings Study — E. Tude"))
        #expect(list.stdout.contains("Endings Copy"))
        // By title, as any lesson.
        let export = try etude.run("export", "Endings Copy", "-o", dir.file("t.mid"), "--bars", "7")
        #expect(export.status == 0, "\(export.stderr)")
        // An .xml that is not a score, opened directly: one line.
        let svg = try etude.run("info", lib + "/drawing.xml")
        #expect(svg.status != 0)
        #expect(svg.stderr.hasSuffix("drawing.xml: not a MusicXML score (its root element is <svg>); Etude reads .xml files that are MusicXML\n"))
    }

    /// Broken and hostile files: one line on stderr naming the file, a non-zero exit, no crash.
    @Test func brokenAndHostileFilesAreOneLineEach() throws {
        let dir = try TempDir("etude-mx")
        let etude = try Etude(lessons: nil)
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise [\n <!ENTITY lol \"lol\">\n"
        for i in 1...9 { laughs += " <!ENTITY lol\(i) \"\(String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10))\">\n" }
        laughs += "]>\n<score-partwise><work><work-title>&lol9;</work-title></work></score-partwise>\n"
        try Data("<!ENTITY evil \"EVIL\">".utf8).write(to: URL(fileURLWithPath: dir.file("evil.dtd")))
        let cases: [(String, String, String)] = [
            ("laughs.musicxml", laughs, "declares entities"),
            ("xxe.musicxml", "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<score-partwise><work><work-title>&x;</work-title></work></score-partwise>", "declares entities"),
            ("dtd.musicxml", "<?xml version=\"1.0\"?>\n<!DOCTYPE score-partwise SYSTEM \"\(dir.file("evil.dtd"))\">\n<score-partwise><part-list/><part id=\"P1\"><measure number=\"1\"><note><rest/><duration>1</duration></note></measure></part></score-partwise>", "no notes"),
            ("deep.musicxml", "<score-partwise>" + String(repeating: "<a>", count: 50_000) + String(repeating: "</a>", count: 50_000) + "</score-partwise>", "nested more than"),
            ("broken.musicxml", "<?xml version=\"1.0\"?>\n<score-partwise>\n<part-list></part-lst>\n</score-partwise>", "3:"),
            ("text.musicxml", "this is not XML at all", "not well-formed XML"),
            ("empty-score.musicxml", "<score-partwise><part-list/><part id=\"P1\"><measure number=\"1\"/></part></score-partwise>", "no notes"),
            ("svg.musicxml", "<?xml version=\"1.0\"?><svg/>", "the root element is <svg>, not a MusicXML score"),
            ("fake.mxl", "PK\u{03}\u{04}" + String(repeating: "x", count: 300), "not a readable .mxl"),
        ]
        for (name, text, expected) in cases {
            let path = try dir.write(name, text)
            for command in [["info", path], ["export", path, "-o", dir.file("out.mid")]] {
                let r = try etude.run(command)
                #expect(r.status == 1, "\(name) \(command[0]): \(r.status) \(r.stderr)")
                #expect(r.stderr.hasPrefix("etude: \(path)"), "\(name): \(r.stderr)")
                #expect(r.stderr.contains(expected), "\(name): \(r.stderr)")
                #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
        }
    }

    @Test(.enabled(if: hasZip, "zip is not installed (apt-get install zip)"))
    func zipWithoutRootfileAndZipBomb() throws {
        let zip = try #require(Tools.which("zip"))
        let dir = try TempDir("etude-mx")
        let etude = try Etude(lessons: nil)
        let work = dir.file("w")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        _ = try TempDir.write(work + "/score.musicxml", Self.score)
        #expect(try ProcessRunner.run(zip, ["-q", dir.file("noroot.mxl"), "score.musicxml"], directory: work).status == 0)
        var r = try etude.run("info", dir.file("noroot.mxl"))
        #expect(r.status == 1)
        #expect(r.stderr.contains("no META-INF/container.xml naming its score"))
        // 80 MB of spaces inside: more than a score may unpack to.
        try FileManager.default.createDirectory(atPath: work + "/META-INF", withIntermediateDirectories: true)
        _ = try TempDir.write(work + "/META-INF/container.xml", "<container><rootfiles><rootfile full-path=\"big.musicxml\"/></rootfiles></container>")
        let big = FileManager.default.createFile(atPath: work + "/big.musicxml", contents: Data(repeating: 0x20, count: 80 << 20))
        #expect(big)
        #expect(try ProcessRunner.run(zip, ["-q", "-r", dir.file("bomb.mxl"), "META-INF", "big.musicxml"], directory: work).status == 0)
        try FileManager.default.removeItem(atPath: work + "/big.musicxml")
        r = try etude.run("info", dir.file("bomb.mxl"))
        #expect(r.status == 1)
        #expect(r.stderr.contains("unpacks to 80 MB"), "\(r.stderr)")
        #expect(r.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func strictRefusesWhatIsNotPlayed() throws {
        let dir = try TempDir("etude-mx")
        // (Trills and tremolos are played now; a delayed turn is not.)
        let path = try dir.write("delayed.musicxml", Self.score.replacingOccurrences(of: "<notations><technical>", with: "<notations><ornaments><delayed-turn/></ornaments><technical>"))
        let etude = try Etude(lessons: nil)
        let lenient = try etude.run("info", path)
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("not played as written: delayed turns (7)"))
        let strict = try etude.run("info", path, "--strict")
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("not played as written: delayed turns (7) (strict mode)"))
        // A tremolo passes --strict: it is played.
        let tremolo = try dir.write("tremolo.musicxml", Self.score.replacingOccurrences(of: "<notations><technical>", with: "<notations><ornaments><tremolo>3</tremolo></ornaments><technical>"))
        let played = try etude.run("info", tremolo, "--strict")
        #expect(played.status == 0, "\(played.stderr)")
    }

    @Test func trillsArePlayedAndTheStaffDrawsTheNoteAsWritten() throws {
        let dir = try TempDir("etude-mx")
        let path = try dir.write("trill.musicxml", Self.score.replacingOccurrences(of: "<notations><technical>", with: "<notations><ornaments><trill-mark/></ornaments><technical>"))
        let etude = try Etude(lessons: nil)
        let info = try etude.run("info", path, "--strict")
        #expect(info.status == 0, "\(info.stderr)")
        let plain = try etude.run("score", path, "--json")
        #expect(plain.status == 0, "\(plain.stderr)")
        let original = try dir.write("plain.musicxml", Self.score)
        let untouched = try etude.run("score", original, "--json")
        // The same heads as without the trills (the trill's notes are played, not drawn).
        #expect(untouched.stdout.components(separatedBy: "\"pitch\"").count == plain.stdout.components(separatedBy: "\"pitch\"").count)
    }

    /// A score with what Etude annotates: fingering, a staccato, dynamics on both staves, a grace
    /// note, a trill, a bracketed triplet, a second voice, a clef change.
    static let annotated = """
    <?xml version="1.0" encoding="UTF-8"?>
    <score-partwise version="4.0"><work><work-title>Round Trip</work-title></work>
    <part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
    <part id="P1"><measure number="1"><attributes><divisions>3</divisions><key><fifths>-1</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time>
    <staves>2</staves><clef number="1"><sign>G</sign><line>2</line></clef><clef number="2"><sign>F</sign><line>4</line></clef></attributes>
    <direction placement="below"><direction-type><dynamics><p/></dynamics></direction-type><staff>1</staff></direction>
    <note><pitch><step>C</step><octave>5</octave></pitch><duration>3</duration><voice>1</voice><type>quarter</type><staff>1</staff><notations><articulations><staccato/></articulations><technical><fingering>3</fingering></technical></notations></note>
    <note><grace slash="yes"/><pitch><step>E</step><octave>5</octave></pitch><voice>1</voice><type>eighth</type><staff>1</staff></note>
    <note><pitch><step>D</step><octave>5</octave></pitch><duration>3</duration><voice>1</voice><type>quarter</type><staff>1</staff><notations><ornaments><trill-mark/></ornaments></notations></note>
    <note><pitch><step>E</step><octave>5</octave></pitch><duration>1</duration><voice>1</voice><type>eighth</type><time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification><staff>1</staff><notations><tuplet type="start" bracket="yes"/></notations></note>
    <note><pitch><step>F</step><octave>5</octave></pitch><duration>1</duration><voice>1</voice><type>eighth</type><time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification><staff>1</staff></note>
    <note><pitch><step>G</step><octave>5</octave></pitch><duration>1</duration><voice>1</voice><type>eighth</type><time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification><staff>1</staff><notations><tuplet type="stop"/></notations></note>
    <note><pitch><step>A</step><octave>5</octave></pitch><duration>3</duration><voice>1</voice><type>quarter</type><staff>1</staff></note>
    <backup><duration>12</duration></backup>
    <note><pitch><step>A</step><octave>5</octave></pitch><duration>12</duration><voice>2</voice><type>whole</type><staff>1</staff></note>
    <backup><duration>12</duration></backup>
    <direction placement="below"><direction-type><dynamics><f/></dynamics></direction-type><staff>2</staff></direction>
    <note><pitch><step>C</step><octave>3</octave></pitch><duration>12</duration><voice>5</voice><type>whole</type><staff>2</staff><notations><technical><fingering>5</fingering></technical></notations></note>
    </measure>
    <measure number="2"><attributes><clef number="2"><sign>G</sign><line>2</line></clef></attributes>
    <note><pitch><step>F</step><octave>5</octave></pitch><duration>12</duration><voice>1</voice><type>whole</type><staff>1</staff></note>
    <backup><duration>12</duration></backup>
    <note><pitch><step>C</step><octave>4</octave></pitch><duration>12</duration><voice>5</voice><type>whole</type><staff>2</staff></note>
    </measure></part></score-partwise>
    """

    @Test func exportKeepsTheScoresAnnotations() throws {
        let dir = try TempDir("etude-mx")
        let path = try dir.write("annotated.musicxml", Self.annotated)
        let etude = try Etude(lessons: nil)
        let r = try etude.run("export", path, "-o", dir.file("annotated.mid"), "--other", "play")
        #expect(r.status == 0, "\(r.stderr)")
        let original = try etude.run("score", path, "--json")
        let exported = try etude.run("score", dir.file("annotated.mid"), "--json")
        #expect(original.status == 0 && exported.status == 0, "\(original.stderr)\(exported.stderr)")
        // The staff of the exported file is the score's: values, tuplets, fingering, marks, graces, dynamics, clefs.
        #expect(exported.stdout == original.stdout)
        for piece in ["\"finger\":3", "\"finger\":5", "\"staccato\"", "\"acciaccatura\"", "\"mark\":\"p\"", "\"mark\":\"f\"", "\"3:2\""] {
            #expect(exported.stdout.contains(piece), "\(piece) in \(exported.stdout)")
        }
        // The hands are the staves, and a bar cut keeps the clef in force at its start.
        let info = try etude.run("info", dir.file("annotated.mid"))
        #expect(info.stdout.contains("staves:"), "\(info.stdout)")
        let cut = try etude.run("export", path, "-o", dir.file("bar2.mid"), "--bars", "2", "--other", "play")
        #expect(cut.status == 0, "\(cut.stderr)")
        let bar2 = try etude.run("score", dir.file("bar2.mid"), "--json")
        #expect(bar2.stdout.contains("\"clef\":\"treble\"") && !bar2.stdout.contains("\"clef\":\"bass\""), "\(bar2.stdout)")
    }
}

extension TempDir {
    /// Writes a file at an absolute path (tests building folders).
    static func write(_ path: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
