import App
import Foundation
import Store
import TestSupport
import Testing

/// Routines are checked when they are saved — by `routine new`, `edit` (options or $EDITOR) and
/// `import` alike — with one line on stderr and the stored routine left as it was; `routine run`
/// leaves `etude resume` where it stopped.
@Suite("routine checks (process)")
struct RoutineCommandTests {
    static let lesson = "C major five-finger position: parallel motion"   // 10 bars, both hands

    /// A user with the built-in lessons and an empty database.
    struct Env {
        let user: Etude
        var dir: TempDir { user.home }
        var env: [String: String] { user.environment }
        init() throws { user = try Etude() }
        func etude(_ args: String..., extra: [String: String] = [:]) throws -> (Int32, String, String) {
            let r = try user.run(args, extra: extra)
            return (r.status, r.stdout, r.stderr)
        }
        func write(_ name: String, _ text: String) throws -> String { try dir.write(name, text) }
        /// An $EDITOR that replaces the whole file with `text`.
        func editor(_ text: String) throws -> [String: String] {
            let replacement = try write("replacement-\(UUID().uuidString).json", text)
            return ["VISUAL": "", "EDITOR": "cp \(replacement)"]
        }
    }

    /// Fixed stderr: one line starting "etude: ".
    func oneLine(_ err: String) -> Bool { err.hasPrefix("etude: ") && err.hasSuffix("\n") && err.split(separator: "\n").count == 1 }

    @Test func importRefusesBadEntriesAndKeepsTheStoredRoutine() throws {
        let t = try Env()
        var (status, out, err) = try t.etude("routine", "new", "warm-up", "--entry", "lesson=\(Self.lesson);hand=right;tempo=80;minutes=2",
                                             "--entry", "random=favourite;reps=2;pause=10")
        try #require(status == 0, "\(err)")
        let before = try t.etude("routine", "export", "warm-up").1
        let good = try #require(try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])
        func withSecond(_ change: [String: Any]) throws -> String {
            var doc = good
            var entries = try #require(doc["entries"] as? [[String: Any]])
            entries[1].merge(change) { $1 }
            doc["entries"] = entries
            return String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self)
        }
        let cases: [([String: Any], String)] = [
            (["tempo": 900], "entry 2: tempo=900: the tempo must be between 10% and 400%"),
            (["hand": "middle"], "entry 2: hand=middle: use left, right or both"),
            (["repetitions": 0], "entry 2: repetitions must be at least 1, not 0"),
            (["pause": -5], "entry 2: pause is a whole number of seconds, 0 or more, not -5"),
            (["minutes": 3], "entry 2: give minutes or repetitions (reps), not both"),
        ]
        for (n, (change, message)) in cases.enumerated() {
            let path = try t.write("bad\(n).json", try withSecond(change))
            (status, out, err) = try t.etude("routine", "import", path, "--name", "warm-up")
            #expect(status == 1 && err == "etude: \(path): \(message)\n" && out.isEmpty, "\(err)")
        }
        // Minutes alone, negative: named as minutes.
        var doc = good
        doc["entries"] = [["random": "favourite", "minutes": -2]]
        let negative = try t.write("negative.json", String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self))
        (status, _, err) = try t.etude("routine", "import", negative, "--name", "warm-up")
        #expect(status == 1 && err == "etude: \(negative): entry 1: minutes must be a positive number, not -2\n", "\(err)")
        #expect(try t.etude("routine", "export", "warm-up").1 == before, "a refused import changes nothing")
        #expect(try t.etude("routine", "list").1 == "warm-up (2 entries)\n")

        // Bars are checked against the lesson's file, in the lesson engine's words.
        doc = good
        doc["entries"] = [["lesson": "0", "title": Self.lesson, "bars": "30-40"]]
        let bars = try t.write("bars.json", String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self))
        (status, _, err) = try t.etude("routine", "import", bars)
        #expect(status == 1 && err == "etude: \(bars): entry 1: bars=30-40: the lesson has 10 bars\n", "\(err)")
        #expect(try t.etude("routine", "export", "warm-up").1 == before)

        // One entry, one "entry".
        doc = good
        doc["entries"] = [["random": "favourite"]]
        let one = try t.write("one.json", String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self))
        (status, out, err) = try t.etude("routine", "import", one, "--name", "single")
        #expect(status == 0 && out == "Imported single (1 entry)\n", "\(out)\(err)")
        #expect(try t.etude("routine", "list").1 == "single (1 entry)\nwarm-up (2 entries)\n")
        // No entries at all.
        doc["entries"] = [[String: Any]]()
        let empty = try t.write("empty.json", String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self))
        (status, _, err) = try t.etude("routine", "import", empty)
        #expect(status == 1 && oneLine(err) && err.contains("no entries"), "\(err)")
        // Broken JSON says where.
        let broken = try t.write("broken.json", "{\n  \"etudeRoutine\": 1,\n  \"name\": \"b\",,\n  \"entries\": []\n}\n")
        (status, _, err) = try t.etude("routine", "import", broken)
        #expect(status == 1 && oneLine(err) && err.hasPrefix("etude: \(broken): not valid JSON") && err.contains("line 3"), "\(err)")
    }

    @Test func editInTheEditorIsCheckedLikeAnImport() throws {
        let t = try Env()
        var (status, _, err) = try t.etude("routine", "new", "warm-up", "--entry", "lesson=\(Self.lesson);hand=right;tempo=80;minutes=2",
                                           "--entry", "random=favourite;reps=2;pause=10")
        try #require(status == 0, "\(err)")
        let before = try t.etude("routine", "export", "warm-up").1
        let fix = "the routine is unchanged; your edit is kept: run `etude routine edit warm-up` again to go on with it"
        let bad = before.replacingOccurrences(of: "\"tempo\" : 80", with: "\"tempo\" : 900")
        try #require(bad != before)
        (status, _, err) = try t.etude("routine", "edit", "warm-up", extra: try t.editor(bad))
        #expect(status == 1 && err == "etude: warm-up: entry 1: tempo=900: the tempo must be between 10% and 400%; \(fix)\n", "\(err)")
        let both = before.replacingOccurrences(of: "\"repetitions\" : 2", with: "\"repetitions\" : 2, \"minutes\": 1")
        (status, _, err) = try t.etude("routine", "edit", "warm-up", extra: try t.editor(both))
        #expect(status == 1 && err == "etude: warm-up: entry 2: give minutes or repetitions (reps), not both; \(fix)\n", "\(err)")
        let bars = before.replacingOccurrences(of: "\"minutes\" : 2", with: "\"minutes\" : 2, \"bars\": \"30-40\"")
        (status, _, err) = try t.etude("routine", "edit", "warm-up", extra: try t.editor(bars))
        #expect(status == 1 && err == "etude: warm-up: entry 1: bars=30-40: the lesson has 10 bars; \(fix)\n", "\(err)")
        let broken = before.replacingOccurrences(of: "\"minutes\" : 2,", with: "\"minutes\" : 2,,")
        (status, _, err) = try t.etude("routine", "edit", "warm-up", extra: try t.editor(broken))
        #expect(status == 1 && oneLine(err) && err.hasPrefix("etude: warm-up: not valid JSON") && err.contains(" at line ")
                && err.hasSuffix("; \(fix)\n") && !err.contains(".;"), "\(err)")
        #expect(try t.etude("routine", "export", "warm-up").1 == before, "every refused edit left it alone")
        // The refused text is not lost: the next edit opens it again (an editor that only reads it here).
        let seen = t.dir.file("seen.json")
        var out: String
        (status, out, err) = try t.etude("routine", "edit", "warm-up", extra: ["VISUAL": "", "EDITOR": "cp -f \"$1\" \(seen); true"])
        #expect(status == 1 && out.hasPrefix("Going on with your unsaved edit of warm-up (") && oneLine(err), "\(out)\(err)")
        #expect(try String(contentsOfFile: seen, encoding: .utf8) == broken, "the last refused edit is what the editor got")
        // A good edit still goes in.
        (status, _, err) = try t.etude("routine", "edit", "warm-up", extra: try t.editor(before.replacingOccurrences(of: "\"tempo\" : 80", with: "\"tempo\" : 90")))
        #expect(status == 0, "\(err)")
        #expect(try t.etude("routine", "export", "warm-up").1.contains("\"tempo\" : 90"))
        // Saved: the draft is gone, and the next edit starts from the routine as stored.
        (status, out, err) = try t.etude("routine", "edit", "warm-up", extra: ["VISUAL": "", "EDITOR": "cp -f \"$1\" \(seen); true"])
        #expect(status == 0 && !out.contains("unsaved edit"), "\(out)\(err)")
        #expect(try String(contentsOfFile: seen, encoding: .utf8) == t.etude("routine", "export", "warm-up").1)
    }

    @Test func newAndEditOptionsAreCheckedToo() throws {
        let t = try Env()
        var (status, out, err) = try t.etude("routine", "new", "empty")
        #expect(status == 1 && err == "etude: give at least one --entry, e.g. etude routine new empty --entry \"lesson=TITLE;minutes=5\"\n", "\(err)")
        (status, _, err) = try t.etude("routine", "new", "both", "--entry", "lesson=\(Self.lesson);minutes=2;reps=3")
        #expect(status == 1 && err == "etude: entry \"lesson=\(Self.lesson);minutes=2;reps=3\": give minutes or repetitions (reps), not both\n", "\(err)")
        (status, _, err) = try t.etude("routine", "new", "far", "--entry", "lesson=\(Self.lesson);bars=30-40")
        #expect(status == 1 && err == "etude: entry 1: bars=30-40: the lesson has 10 bars\n", "\(err)")
        #expect(try t.etude("routine", "list").1.hasPrefix("No routines yet"), "nothing was saved")

        (status, _, err) = try t.etude("routine", "new", "r", "--entry", "lesson=\(Self.lesson);bars=1-2")
        try #require(status == 0, "\(err)")
        let before = try t.etude("routine", "export", "r").1
        (status, _, err) = try t.etude("routine", "edit", "r", "--set", "1=lesson=\(Self.lesson);bars=9-11")
        #expect(status == 1 && err == "etude: entry 1: bars=9-11: the lesson has 10 bars; the routine is unchanged\n", "\(err)")
        (status, _, err) = try t.etude("routine", "edit", "r", "--add", "random=favourite;tempo=900")
        #expect(status == 1 && err == "etude: entry \"random=favourite;tempo=900\": tempo=900: the tempo must be between 10% and 400%\n", "\(err)")
        (status, _, err) = try t.etude("routine", "edit", "r", "--remove", "2")
        #expect(status == 1 && err == "etude: --remove 2: the routine has only entry 1\n", "\(err)")
        (status, _, err) = try t.etude("routine", "edit", "r", "--remove", "1")
        #expect(status == 1 && err == "etude: r would have no entries; keep at least one, or delete it with `etude routine delete r`\n", "\(err)")
        #expect(try t.etude("routine", "export", "r").1 == before)

        (status, out, err) = try t.etude("routine", "delete", "nosuch")
        #expect(status == 1 && err == "etude: no routine named nosuch; see `etude routine list`\n" && out.isEmpty, "\(err)")
    }

    /// A routine stored before the checks: its bad entry is skipped with what to fix, and no
    /// practice flag the user never typed; the rest plays, and resume goes on from it.
    @Test func runSkipsAStoredBadEntryAndLeavesResumeAtTheLastEntry() throws {
        let t = try Env()
        var (status, out, err) = try t.etude("resume", "--show")
        #expect(status == 1 && err.hasPrefix("etude: nothing to resume"), "\(err)")
        (status, _, err) = try t.etude("routine", "new", "r", "--entry", "lesson=\(Self.lesson);bars=1-1;tempo=150",
                                       "--entry", "lesson=\(Self.lesson);bars=2-2;hand=right;tempo=190")
        try #require(status == 0, "\(err)")
        do {
            let s = try Store.open(path: t.env["ETUDE_DB"] ?? "")
            var r = try #require(try s.routine(named: "r"))
            r.entries[0].tempoPercent = 900
            try s.saveRoutine(r)
        }
        (status, out, err) = try t.etude("routine", "run", "r", "--audio-driver", "no-such-driver")
        #expect(status == 0, "\(err)")
        #expect(out.contains("skipped entry 1: tempo=900: the tempo must be between 10% and 400% (`etude routine edit r` fixes it)"), "\(out)")
        #expect(!out.contains("--tempo") && !err.contains("--tempo"), "\(out)\(err)")
        #expect(out.contains("Played 1/1 \(Self.lesson): ") && out.contains("1 pass"), "\(out)")

        (status, out, err) = try t.etude("resume", "--json")
        #expect(status == 0, "\(err)")
        let resume = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        #expect(resume["title"] as? String == Self.lesson)
        #expect(resume["hand"] as? String == "right" && resume["tempoPercent"] as? Int == 190 && resume["mode"] as? String == "watch", "\(resume)")
        let loop = resume["loop"] as? [String: Any]
        #expect(loop?["firstBar"] as? Int == 2 && loop?["lastBar"] as? Int == 2, "\(resume)")
        // Bar 2 of a 72 BPM 4/4 lesson: 3.33–6.67 s.
        let position = resume["positionSeconds"] as? Double ?? -1
        #expect(position >= 3.3 && position <= 6.7, "\(position)")
    }
}
