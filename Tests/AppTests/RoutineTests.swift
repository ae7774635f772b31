@testable import App
import Foundation
import Judge
import Lesson
import MIDIFile
import Store
import TestSupport
import Testing

@Suite struct RoutineLibraryTests {
    func seeded() throws -> Store { try StoreFixture.seeded() }

    @Test func routinesSaveRenameDelete() throws {
        let s = try seeded()
        let r = Routine(name: "Warm-up", entries: [
            RoutineEntry(source: .lesson(id: "bbbb2222", title: "C Major Scale"), hand: .right, tempoPercent: 80, length: .minutes(2)),
            RoutineEntry(source: .randomFavourite, length: .repetitions(3), pauseSeconds: 10),
        ])
        try s.saveRoutine(r)
        #expect(try s.routine(named: "Warm-up") == r)
        try s.renameRoutine("Warm-up", to: "Morning")
        #expect(try s.routines().map(\.name) == ["Morning"])
        #expect(try s.routine(named: "Morning")?.entries == r.entries)
        #expect(try s.deleteRoutine(named: "Morning"))
        #expect(try s.routines().isEmpty)
        // A routine stored before modes were checked (any word) still loads; the player says so.
        try s.saveStoredRoutine(StoredRoutine(name: "Old", entries: #"[{"random":"favourite","mode":"loop"}]"#))
        let old = try #require(try s.routine(named: "Old"))
        #expect(old.entries.first?.mode == nil)
        #expect(old.entries.first?.problem == "mode=loop: use watch, wait, play or memory")
        #expect(throws: RoutineError.self) {
            try s.importRoutine(#"{"etudeRoutine": 1, "name": "Old", "entries": [{"random": "favourite", "mode": "loop"}]}"#)
        }
    }

    @Test func importMatchesAnUnknownIdByTitle() throws {
        let s = try seeded()
        let text = """
        {"etudeRoutine": 1, "name": "From teacher", "entries": [
          {"lesson": "ffffffffffff", "title": "prelude in c", "minutes": 4, "pause": 5},
          {"random": "level", "level": 1}
        ]}
        """
        let r = try s.importRoutine(text)
        #expect(r.entries[0].source == .lesson(id: "cccc3333", title: "prelude in c"))
        #expect(r.entries[0].length == .minutes(4) && r.entries[0].pauseSeconds == 5)
        #expect(r.entries[1].source == .randomLevel(1) && r.entries[1].length == .repetitions(1))
        #expect(try s.routine(named: "From teacher") != nil)
    }
}

@Suite struct RoutineFileTests {
    let routine = Routine(name: "Lesson 4 homework", entries: [
        RoutineEntry(source: .lesson(id: "abc123", title: "Minuet, in G"), hand: .left, tempoPercent: 75, bars: 5...8,
                     mode: .wait, length: .minutes(2.5), pauseSeconds: 10),
        RoutineEntry(source: .randomFavourite, length: .repetitions(3)),
        RoutineEntry(source: .randomLevel(2), hand: .both, length: .minutes(3), pauseSeconds: 5),
    ])

    @Test func exportImportRoundTrip() throws {
        let text = try RoutineFile.export(routine)
        #expect(text.contains("\"etudeRoutine\" : 1"))
        #expect(try RoutineFile.parse(text) == routine)
    }

    @Test func plainTextList() {
        let t = RoutineFile.text(routine)
        #expect(t == """
        Lesson 4 homework
        1. Minuet, in G — left hand, 75%, bars 5-8, wait mode — 2.5 min (pause 10 s before)
        2. a random favourite — 3 times
        3. a random lesson of level 2 — both hands — 3 min (pause 5 s before)

        """)
    }

    @Test func badFilesGiveOneLineErrors() {
        for bad in ["", "{}", "[1]", "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[{\"minutes\":2}]}",
                    "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[{\"random\":\"level\"}]}",
                    "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[{\"random\":\"favourite\",\"bars\":\"8-2\"}]}",
                    "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[{\"random\":\"favourite\",\"mode\":\"fast\"}]}"] {
            #expect(throws: RoutineError.self) { try RoutineFile.parse(bad) }
        }
        #expect(throws: RoutineError.self) { try RoutineFile.parse("{\"etudeRoutine\":9,\"name\":\"x\",\"entries\":[]}") }
    }

    @Test func entrySpecs() throws {
        let (e, ref) = try RoutineEntry.parseSpec("lesson=Minuet, in G;hand=right;tempo=80;bars=1-8;mode=wait;minutes=5;pause=10")
        #expect(ref == "Minuet, in G")
        #expect(e.hand == .right && e.tempoPercent == 80 && e.bars == 1...8 && e.mode == .wait && e.length == .minutes(5) && e.pauseSeconds == 10)
        #expect(try RoutineEntry.parseSpec("random=favourite;reps=3").entry == RoutineEntry(source: .randomFavourite, length: .repetitions(3)))
        #expect(try RoutineEntry.parseSpec("random=level:2,minutes=3").entry.source == .randomLevel(2))
        #expect(try RoutineEntry.parseSpec("lesson=x;mode=Memory").entry.mode == .memory)
        for bad in ["hand=right", "random=never", "lesson=x;tempo=500", "lesson=x;hand=middle", "lesson=x;colour=red", "nonsense",
                    "lesson=x;mode=fast"] {
            #expect(throws: RoutineError.self) { try RoutineEntry.parseSpec(bad) }
        }
    }
}

@Suite struct RoutinePlanTests {
    func listing(_ id: String, _ title: String, level: Int?, fav: Bool, duration: Double) throws -> LessonListing {
        LessonListing(lesson: LessonInfo(id: id, title: title, level: level, durationSeconds: duration, hands: 1),
                      path: "/l/\(id).mid", isFavourite: fav)
    }

    @Test func resolvesEntriesInOrderWithSchedule() throws {
        let cands = RoutinePlan.Candidates(lessons: [
            try listing("a", "Scale", level: 1, fav: false, duration: 30),
            try listing("b", "Minuet", level: 2, fav: true, duration: 60),
            try listing("c", "Waltz", level: 2, fav: true, duration: 90),
        ])
        let routine = Routine(name: "r", entries: [
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), tempoPercent: 50, length: .repetitions(2), pauseSeconds: 5),
            RoutineEntry(source: .randomFavourite, length: .minutes(1), pauseSeconds: 10),
            RoutineEntry(source: .randomFavourite, length: .repetitions(1)),
            RoutineEntry(source: .randomLevel(7), length: .minutes(1)),
            RoutineEntry(source: .lesson(id: "zz", title: "Gone"), length: .minutes(1)),
        ])
        var rng = SeededGenerator(seed: 42)
        let plan = RoutinePlan.make(routine, candidates: cands, using: &rng)
        #expect(plan.steps.map(\.entryIndex) == [0, 1, 2])
        #expect(plan.steps[0].lesson.id == "a")
        // Two passes of a 30 s lesson at half tempo: 120 s, after a 5 s pause.
        #expect(plan.steps[0].pauseStart == 0 && plan.steps[0].playStart == 5 && plan.steps[0].plannedSeconds == 120)
        #expect(plan.steps[1].pauseStart == 125 && plan.steps[1].playStart == 135 && plan.steps[1].plannedSeconds == 60)
        // Both random favourites are drawn, and different ones while possible.
        #expect(Set([plan.steps[1].lesson.id, plan.steps[2].lesson.id]) == ["b", "c"])
        #expect(plan.skipped.map(\.entryIndex) == [3, 4])
        #expect(plan.totalSeconds == 195 + plan.steps[2].plannedSeconds)
        var again = SeededGenerator(seed: 42)
        #expect(RoutinePlan.make(routine, candidates: cands, using: &again) == plan)
    }

    /// Repetitions of an entry with bars are planned as the caller times one pass of those bars
    /// at the entry's tempo; when it cannot (nil), the whole lesson's catalogue duration stands in.
    @Test func repetitionsArePlannedFromTheEntrysBarsAtItsTempo() throws {
        let cands = RoutinePlan.Candidates(lessons: [
            try listing("a", "Scale", level: 1, fav: false, duration: 30),
            try listing("b", "Minuet", level: 2, fav: true, duration: 60),
        ])
        let routine = Routine(name: "r", entries: [
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), hand: .right, tempoPercent: 50, bars: 2...3, length: .repetitions(3), pauseSeconds: 4),
            RoutineEntry(source: .lesson(id: "b", title: "Minuet"), tempoPercent: 80, bars: 1...4, length: .repetitions(2)),
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), bars: 1...2, length: .minutes(2)),
        ])
        var asked: [RoutinePlan.PassQuery] = []
        var rng = SeededGenerator(seed: 1)
        // Two bars of "a" take 4 s at its own tempo; the stand-in knows nothing of "b".
        let plan = RoutinePlan.make(routine, candidates: cands, using: &rng) { q in
            asked.append(q)
            guard q.lesson.id == "a", let bars = q.bars else { return nil }
            return Double(bars.count) * 2 * 100 / Double(q.tempoPercent)
        }
        #expect(asked.map(\.lesson.id) == ["a", "b"], "asked once per entry with repetitions")
        #expect(asked.first == RoutinePlan.PassQuery(lesson: cands.lessons[0].lesson, path: "/l/a.mid", hand: .right, tempoPercent: 50, bars: 2...3))
        #expect(plan.steps[0].plannedSeconds == 3 * 8, "3 passes of 2 bars at half tempo")
        #expect(plan.steps[1].plannedSeconds == 2 * 60 * 100 / 80, "the catalogue's whole lesson at 80%")
        #expect(plan.steps[2].plannedSeconds == 120, "a time limit is what it says")
        #expect(plan.totalSeconds == 4 + 24 + 150 + 120)
        #expect(plan.steps[1].playStart == 28)
        #expect(plan.text().contains("about 4:58"), "\(plan.text())")
        // Without a timer: the old estimate (whole lesson at the tempo).
        var again = SeededGenerator(seed: 1)
        #expect(RoutinePlan.make(routine, candidates: cands, using: &again).steps[0].plannedSeconds == 3 * 60)
    }

    @Test func countdownCountsWholeSecondsDown() {
        #expect((0..<4).map { RoutinePlan.countdown(pauseSeconds: 3, elapsed: Double($0)) } == [3, 2, 1, nil])
        #expect(RoutinePlan.countdown(pauseSeconds: 3, elapsed: 0.5) == 3)
        #expect(RoutinePlan.countdown(pauseSeconds: 0, elapsed: 0) == nil)
    }

    @Test func timeLimitFadesOutUnlessThePassEndsNearIt() {
        let len = RoutineEntry.Length.minutes(1)
        // Mid-pass at the limit: full, then fading over the last 3 s, then stop.
        #expect(RoutinePlan.decide(length: len, elapsed: 50, completedPasses: 0, currentPassEnd: 80) == .play(gain: 1))
        #expect(RoutinePlan.decide(length: len, elapsed: 58.5, completedPasses: 0, currentPassEnd: 80) == .play(gain: 0.5))
        #expect(RoutinePlan.decide(length: len, elapsed: 60, completedPasses: 0, currentPassEnd: 80) == .stop)
        // The pass ends 2 s after the limit: let it finish at full volume.
        #expect(RoutinePlan.decide(length: len, elapsed: 61, completedPasses: 0, currentPassEnd: 62) == .play(gain: 1))
        #expect(RoutinePlan.decide(length: len, elapsed: 62, completedPasses: 0, currentPassEnd: 62) == .stop)
        // Repetitions end with the last pass.
        #expect(RoutinePlan.decide(length: .repetitions(2), elapsed: 500, completedPasses: 1, currentPassEnd: nil) == .play(gain: 1))
        #expect(RoutinePlan.decide(length: .repetitions(2), elapsed: 500, completedPasses: 2, currentPassEnd: nil) == .stop)
        #expect(RoutinePlan.startsAnotherPass(length: len, elapsed: 40, completedPasses: 3))
        #expect(!RoutinePlan.startsAnotherPass(length: len, elapsed: 58, completedPasses: 3))
        #expect(!RoutinePlan.startsAnotherPass(length: .repetitions(2), elapsed: 1, completedPasses: 2))
    }
}

/// One check of a routine entry, whatever wrote it: `--entry`, `routine edit --add/--set`, an
/// imported file, a routine edited in $EDITOR, a stored routine about to run.
@Suite struct RoutineEntryValidationTests {
    func problem(_ f: RoutineEntry.Fields) -> String? {
        do {
            _ = try RoutineEntry.validated(f)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func eachFieldIsCheckedWithOneMessage() {
        let fav = RoutineEntry.Source.randomFavourite
        #expect(problem(.init(source: fav, hand: "middle")) == "hand=middle: use left, right or both")
        #expect(problem(.init(source: fav, tempo: 900)) == "tempo=900: the tempo must be between 10% and 400%")
        #expect(problem(.init(source: fav, tempo: 9)) == "tempo=9: the tempo must be between 10% and 400%")
        #expect(problem(.init(source: fav, bars: "8-2")) == "bars must look like 5-8 (first bar, last bar), not 8-2")
        #expect(problem(.init(source: fav, mode: "fast")) == "mode=fast: use watch, wait, play or memory")
        #expect(problem(.init(source: fav, minutes: -2)) == "minutes must be a positive number, not -2")
        #expect(problem(.init(source: fav, minutes: 0)) == "minutes must be a positive number, not 0")
        #expect(problem(.init(source: fav, minutes: .nan)) == "minutes must be a positive number, not nan")
        #expect(problem(.init(source: fav, minutes: -.infinity)) == "minutes must be a positive number, not -inf")
        #expect(problem(.init(source: fav, repetitions: 0)) == "repetitions must be at least 1, not 0")
        #expect(problem(.init(source: fav, pause: -5)) == "pause is a whole number of seconds, 0 or more, not -5")
        #expect(problem(.init(source: fav, minutes: 2, repetitions: 3)) == "give minutes or repetitions (reps), not both")
        // Control characters in a value are not echoed to the terminal.
        #expect(problem(.init(source: fav, hand: "x\u{1B}[2J"))?.contains("\u{1B}") == false)
    }

    @Test func validFieldsMakeTheEntry() throws {
        let e = try RoutineEntry.validated(.init(source: .randomLevel(2), hand: "Right", tempo: 200, bars: "3-4", mode: "Wait",
                                                 minutes: 1.5, pause: 0))
        #expect(e == RoutineEntry(source: .randomLevel(2), hand: .right, tempoPercent: 200, bars: 3...4, mode: .wait,
                                  length: .minutes(1.5), pauseSeconds: 0))
        #expect(try RoutineEntry.validated(.init(source: .randomFavourite)).length == .repetitions(1))
        #expect(try RoutineEntry.validated(.init(source: .randomFavourite, tempo: 10, repetitions: 1)).tempoPercent == 10)
    }

    /// A stored entry (saved before the checks) says what is wrong with it.
    @Test func storedEntriesReportTheirProblem() {
        #expect(RoutineEntry(source: .randomFavourite, tempoPercent: 80, length: .minutes(2)).problem == nil)
        #expect(RoutineEntry(source: .randomFavourite, tempoPercent: 900).problem == "tempo=900: the tempo must be between 10% and 400%")
        #expect(RoutineEntry(source: .randomFavourite, length: .repetitions(0)).problem == "repetitions must be at least 1, not 0")
        #expect(RoutineEntry(source: .randomFavourite, pauseSeconds: -1).problem == "pause is a whole number of seconds, 0 or more, not -1")
    }

    /// The command line says the same words, after the entry it quotes.
    @Test func entrySpecsUseTheSameCheck() {
        func specProblem(_ spec: String) -> String? {
            do {
                _ = try RoutineEntry.parseSpec(spec)
                return nil
            } catch {
                return (error as? RoutineError)?.message
            }
        }
        #expect(specProblem("random=favourite;tempo=900") == "entry \"random=favourite;tempo=900\": tempo=900: the tempo must be between 10% and 400%")
        #expect(specProblem("random=favourite;hand=middle") == "entry \"random=favourite;hand=middle\": hand=middle: use left, right or both")
        #expect(specProblem("random=favourite;minutes=-2") == "entry \"random=favourite;minutes=-2\": minutes must be a positive number, not -2")
        #expect(specProblem("random=favourite;pause=-5") == "entry \"random=favourite;pause=-5\": pause is a whole number of seconds, 0 or more, not -5")
        #expect(specProblem("random=favourite;reps=0") == "entry \"random=favourite;reps=0\": repetitions must be at least 1, not 0")
        #expect(specProblem("random=favourite;bars=8-2") == "entry \"random=favourite;bars=8-2\": bars must look like 5-8 (first bar, last bar), not 8-2")
        // Both lengths: refused, not one silently dropped.
        #expect(specProblem("random=favourite;reps=3;minutes=2") == "entry \"random=favourite;reps=3;minutes=2\": give minutes or repetitions (reps), not both")
        #expect(specProblem("random=favourite;minutes=2;times=3")?.hasSuffix("give minutes or repetitions (reps), not both") == true)
        #expect(specProblem("random=favourite;tempo=fast") == "entry \"random=favourite;tempo=fast\": tempo needs a whole number, not fast")
        #expect(specProblem("random=favourite;minutes=long") == "entry \"random=favourite;minutes=long\": minutes must be a positive number, not long")
    }

    func parseProblem(_ text: String) -> String? {
        do {
            _ = try RoutineFile.parse(text)
            return nil
        } catch {
            return (error as? RoutineError)?.message
        }
    }

    func file(_ entries: String) -> String { "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[\(entries)]}" }

    /// A routine file is checked entry by entry with the same words, naming the entry.
    @Test func filesAreCheckedLikeTheCommandLine() {
        let ok = "{\"random\":\"favourite\"}"
        #expect(parseProblem(file("\(ok),{\"random\":\"favourite\",\"tempo\":900}")) == "entry 2: tempo=900: the tempo must be between 10% and 400%")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"hand\":\"middle\"}")) == "entry 1: hand=middle: use left, right or both")
        #expect(parseProblem(file("\(ok),\(ok),{\"random\":\"favourite\",\"minutes\":-2}")) == "entry 3: minutes must be a positive number, not -2")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"pause\":-5}")) == "entry 1: pause is a whole number of seconds, 0 or more, not -5")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"repetitions\":0}")) == "entry 1: repetitions must be at least 1, not 0")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"minutes\":2,\"repetitions\":3}")) == "entry 1: give minutes or repetitions (reps), not both")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"mode\":\"fast\"}")) == "entry 1: mode=fast: use watch, wait, play or memory")
        #expect(parseProblem(file("\(ok),{\"random\":\"favourite\",\"tempo\":\"fast\"}")) == "entry 2: tempo: must be a whole number")
        #expect(parseProblem(file("{\"minutes\":2}")) == "entry 1: an entry needs \"lesson\" or \"random\"")
        #expect(parseProblem(file("")) == "the routine has no entries; give at least one in \"entries\"")
        #expect(parseProblem("[1]") == "not a routine file: write a JSON object with \"etudeRoutine\", \"name\" and \"entries\"")
        #expect(parseProblem(file(ok)) == nil)
    }

    /// Broken JSON: one line saying where, with no stray punctuation from the decoder.
    @Test func brokenJSONSaysWhere() throws {
        let broken = "{\n  \"etudeRoutine\": 1,\n  \"name\": \"x\",,\n  \"entries\": []\n}\n"
        let m = try #require(parseProblem(broken))
        #expect(m.hasPrefix("not valid JSON") && !m.contains(".;") && !m.hasSuffix(".") && !m.contains("\n"), "\(m)")
        #expect(m.contains("line 3"), "\(m)")
        #expect(parseProblem("{\"etudeRoutine\": 1, \"name\": \"x\"") == "not valid JSON: it ends too soon (a missing } or ])")
    }

    @Test func importChecksBeforeSavingAndAFailureLeavesTheRoutineAlone() throws {
        let s = try RoutineLibraryTests().seeded()
        let good = try s.importRoutine(file("{\"random\":\"favourite\",\"repetitions\":2}"))
        #expect(throws: RoutineError.self) { try s.importRoutine(file("{\"random\":\"favourite\",\"tempo\":900}")) }
        #expect(try s.routine(named: "x") == good)
        // The caller's check (the command line's bars check) runs before the save.
        #expect(throws: RoutineError.self) {
            try s.importRoutine(file("{\"random\":\"level\",\"level\":1}")) { _ in throw RoutineError("entry 1: no") }
        }
        #expect(try s.routine(named: "x") == good)
    }

    /// A routine stored before the checks: its bad entries are skipped at run time with what to
    /// fix (not with a practice flag the user never typed).
    @Test func planSkipsStoredEntriesThatFailTheCheck() throws {
        let cands = RoutinePlan.Candidates(lessons: [
            LessonListing(lesson: LessonInfo(id: "a", title: "Scale", level: 1, durationSeconds: 60, hands: 1), path: "/l/a.mid", isFavourite: true),
        ])
        let stored = try JSONDecoder().decode([RoutineEntry].self, from: Data(#"""
            [{"lesson": "a", "title": "Scale", "tempo": 900}, {"lesson": "a", "title": "Scale", "mode": "loop"},
             {"lesson": "a", "title": "Scale", "mode": "wait"}]
            """#.utf8))
        let routine = Routine(name: "old", entries: stored)
        var rng = SeededGenerator(seed: 1)
        let plan = RoutinePlan.make(routine, candidates: cands, using: &rng)
        #expect(plan.steps.map(\.entryIndex) == [2])
        #expect(plan.skipped == [.init(entryIndex: 0, reason: "tempo=900: the tempo must be between 10% and 400% (`etude routine edit old` fixes it)"),
                                 .init(entryIndex: 1, reason: "mode=loop: use watch, wait, play or memory (`etude routine edit old` fixes it)")])
        #expect(!plan.text().contains("--tempo"))
    }
}

/// A routine entry's `recording=` (issue 42 point 3): kept through the routine file and the
/// plan, said in the entry's line, and refused where it means nothing.
@Suite struct RoutineRecordingEntryTests {
    @Test func keptThroughTheFileAndThePlan() throws {
        var entry = RoutineEntry(source: .lesson(id: "aaaa1111", title: "Minuet"), tempoPercent: 70, length: .repetitions(2))
        entry.recording = "/music/take.flac"
        let routine = Routine(name: "With take", entries: [entry])
        let back = try RoutineFile.parse(try RoutineFile.export(routine))
        #expect(back.entries.first?.recording == "/music/take.flac")
        #expect(entry.text().contains("with take.flac"), "\(entry.text())")
        let fields = RoutineEntry.Fields(entry)
        #expect(fields.recording == "/music/take.flac")
        #expect(try RoutineEntry.validated(fields) == entry)
    }

    @Test func refusedWithFollowOrOutsideTheRecordingsTempos() {
        let lesson = RoutineEntry.Source.lesson(id: "aaaa1111", title: nil)
        #expect(throws: RoutineError("follow=on with recording=: the recording sets the time, it cannot follow yours; leave one out")) {
            try RoutineEntry.validated(.init(source: lesson, mode: "play", follow: "on", recording: "/music/take.flac"))
        }
        #expect(throws: RoutineError("tempo=40: a recording plays from 50% to 150% of its speed; choose a tempo in that range")) {
            try RoutineEntry.validated(.init(source: lesson, tempo: 40, recording: "/music/take.flac"))
        }
        #expect(throws: RoutineError("recording= needs a file: recording=take.flac")) {
            try RoutineEntry.validated(.init(source: lesson, recording: ""))
        }
    }
}
