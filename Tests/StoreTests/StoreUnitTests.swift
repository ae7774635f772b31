import Foundation
import Judge
import MIDIFile
import Testing
import TestSupport
@testable import Store

@Suite struct MetadataTests {
    @Test func readsTagsTempoSignaturesAndHands() throws {
        let bytes = LessonMaker.bytes(title: "Minuet in G", composer: "J. S. Bach", level: 2, description: "Dance in 3",
                                      hands: ["Right Hand", "Left Hand"], bpm: 100, timeSignature: (3, 2), key: (1, false))
        let file = try MIDIReader.read(bytes).file
        let info = LessonMetadata.make(id: "x", file: file, fileName: "minuet.mid", now: date("2026-01-01T00:00:00Z"))
        #expect(info.title == "Minuet in G")
        #expect(info.composer == "J. S. Bach")
        #expect(info.level == 2)
        #expect(info.description == "Dance in 3")
        #expect(info.timeSignature == "3/4")
        #expect(info.keyName == KeySignature(sharps: 1, minor: false).name)
        #expect(info.tempoBPM == 100)
        #expect(info.hands == 2)
        #expect(info.noteCount == 10)
        #expect(info.durationSeconds > 2)
        #expect(info.searchText.contains("bach") && info.searchText.contains("minuet.mid"))
    }

    @Test func titleFallsBackToFileNameAndPianoTracksCountAsHands() throws {
        var bytes = LessonMaker.bytes(title: "", hands: ["Piano"])
        var info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "scale-c.mid")
        #expect(info.title == "scale-c")
        #expect(info.hands == 1)
        bytes = LessonMaker.bytes(title: "Duet", hands: ["Upper", "Lower"])
        info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "d.mid")
        #expect(info.hands == 2)
        bytes = LessonMaker.bytes(title: "One hand", hands: ["Left Hand"])
        info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "d.mid")
        #expect(info.hands == 1)
    }
}

@Suite struct InMemoryStoreTests {
    func lesson(_ id: String, _ title: String, level: Int? = nil, composer: String? = nil) -> LessonInfo {
        LessonInfo(id: id, title: title, composer: composer, level: level,
                   searchText: [title, composer].compactMap { $0 }.joined(separator: " ").lowercased())
    }

    /// Lessons appear in lists only with a file; these tests give each a file row.
    func seeded() throws -> Store {
        let s = try Store.inMemory()
        for (i, l) in [lesson("aaaa1111", "Minuet in G", level: 2, composer: "Bach"),
                       lesson("bbbb2222", "C Major Scale", level: 1),
                       lesson("cccc3333", "Prelude in C", level: 3, composer: "Bach"),
                       lesson("dddd4444", "100% Fun_Song", level: 1)].enumerated() {
            try s.register(l)
            try s.writer.write { db in
                try LessonFileRecord(path: "/l/\(i).mid", lessonID: l.id, size: 1, mtime: 1, source: .folder, root: "/l").insert(db)
            }
        }
        return s
    }

    @Test func schemaIsCurrentAndSound() throws {
        let s = try Store.inMemory()
        #expect(try s.schemaVersion() == Schema.versions.last)
        #expect(try s.integrityCheck() == "ok")
    }

    @Test func searchRequiresEveryWordAndFilters() throws {
        let s = try seeded()
        #expect(try s.lessons().map(\.lesson.title) == ["100% Fun_Song", "C Major Scale", "Minuet in G", "Prelude in C"])
        #expect(try s.lessons(matching: "bach").count == 2)
        #expect(try s.lessons(matching: "BACH prelude").map(\.lesson.id) == ["cccc3333"])
        #expect(try s.lessons(matching: "in", level: 2).map(\.lesson.id) == ["aaaa1111"])
        #expect(try s.lessons(matching: "100%").map(\.lesson.id) == ["dddd4444"])
        #expect(try s.lessons(matching: "1_0").isEmpty)   // "_" is not a wildcard
        #expect(try s.lessons(matching: "%").map(\.lesson.id) == ["dddd4444"])
        #expect(try s.lessons(matching: "fun_").count == 1)
        try s.addFavourite("cccc3333")
        #expect(try s.lessons(favouritesOnly: true).map(\.lesson.id) == ["cccc3333"])
        #expect(try s.lessons(limit: 1).count == 1)
    }

    @Test func levelsAreThoseOfListedLessonsAscending() throws {
        let s = try seeded()
        #expect(try s.levels() == [1, 2, 3])
        // A lesson whose file is gone is not listed, so its level is not offered; nor is "no level".
        try s.register(lesson("eeee5555", "Lost Sonata", level: 7))
        try s.register(lesson("ffff6666", "Unlevelled Air"))
        try s.writer.write { db in
            try LessonFileRecord(path: "/l/air.mid", lessonID: "ffff6666", size: 1, mtime: 1, source: .folder, root: "/l").insert(db)
        }
        #expect(try s.levels() == [1, 2, 3])
        #expect(try s.lessons().count == 5)
    }

    @Test func favouritesAreIdempotent() throws {
        let s = try seeded()
        try s.addFavourite("aaaa1111")
        try s.addFavourite("aaaa1111")
        #expect(try s.favourites().map(\.lesson.id) == ["aaaa1111"])
        #expect(try s.isFavourite("aaaa1111"))
        #expect(try s.removeFavourite("aaaa1111"))
        #expect(try !s.removeFavourite("aaaa1111"))
        #expect(try s.favourites().isEmpty)
    }

    @Test func resolvesPathsTitlesAndIdPrefixes() throws {
        let s = try seeded()
        #expect(try s.resolveLesson("aaaa").lesson.id == "aaaa1111")
        #expect(try s.resolveLesson("minuet in g").lesson.id == "aaaa1111")
        #expect(try s.resolveLesson("C Maj").lesson.id == "bbbb2222")
        #expect(throws: StoreError.self) { try s.resolveLesson("in") }
        #expect(throws: StoreError.self) { try s.resolveLesson("nothing like this") }
    }

    @Test func savedLoopsReplaceByNameAndValidateBars() throws {
        let s = try seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "run", firstBar: 9, lastBar: 12, hand: "right", tempoPercent: 70, otherHandMode: "play"))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "run", firstBar: 9, lastBar: 14, hand: "right", tempoPercent: 80, otherHandMode: "mute"))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "intro", firstBar: 1, lastBar: 4, hand: "both", tempoPercent: 100, otherHandMode: "play"))
        let loops = try s.loops(for: "aaaa1111")
        #expect(loops.map(\.name) == ["intro", "run"])
        #expect(try s.loop(named: "run", for: "aaaa1111")?.lastBar == 14)
        #expect(try s.loop(named: "run", for: "aaaa1111")?.otherHandMode == "mute")
        #expect(throws: StoreError.self) {
            try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bad", firstBar: 5, lastBar: 2, hand: "both", tempoPercent: 100, otherHandMode: "play"))
        }
        #expect(try s.deleteLoop(named: "run", for: "aaaa1111"))
        #expect(try !s.deleteLoop(named: "run", for: "aaaa1111"))
        // A loop may start on a pickup bar (bar 0).
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "pickup", firstBar: 0, lastBar: 2, hand: "both", tempoPercent: 90, otherHandMode: "play"))
        #expect(try s.loop(named: "pickup", for: "aaaa1111")?.firstBar == 0)
    }

    @Test func aRenamedLoopKeepsItsSettingsAndTheResumeStateFollows() throws {
        let s = try seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bars 9-12 at 70%", firstBar: 9, lastBar: 12, hand: "right", tempoPercent: 70, otherHandMode: "quiet"))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "intro", firstBar: 1, lastBar: 4, hand: "both", tempoPercent: 100, otherHandMode: "play"))
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 20, hand: "right", tempoPercent: 70,
                                     mode: "watch", loopFirstBar: 9, loopLastBar: 12, loopName: "bars 9-12 at 70%"))
        #expect(try s.renameLoop("bars 9-12 at 70%", to: " tricky run ", for: "aaaa1111"))
        let renamed = try #require(try s.loop(named: "tricky run", for: "aaaa1111"))
        #expect(renamed.firstBar == 9 && renamed.lastBar == 12 && renamed.tempoPercent == 70 && renamed.otherHandMode == "quiet")
        #expect(try s.loop(named: "bars 9-12 at 70%", for: "aaaa1111") == nil)
        #expect(try s.resume()?.state.loopName == "tricky run")
        #expect(throws: StoreError.self) { try s.renameLoop("tricky run", to: "intro", for: "aaaa1111") }
        #expect(throws: StoreError.self) { try s.renameLoop("tricky run", to: "  ", for: "aaaa1111") }
        #expect(try !s.renameLoop("no such loop", to: "x", for: "aaaa1111"))
        #expect(try s.loops(for: "aaaa1111").map(\.name) == ["intro", "tricky run"])
    }

    @Test func passesAreRecordedWithScoresAndListedInTimeOrder() throws {
        let s = try seeded()
        let a = try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-02T10:00:00Z"), mode: "play", hand: "right",
                                 tempoPercent: 80, bars: 1...8,
                                 figures: ScoreFigures(hit: 40, missed: 2, wrong: 1, extra: 0, accuracy: 0.93, timingMeanMs: 12, timingSdMs: 30, score: 88),
                                 durationSeconds: 60)
        let b = try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-01T10:00:00Z"), mode: "watch", hand: "both",
                                 tempoPercent: 100, durationSeconds: 30)
        #expect(b > a)
        let passes = try s.passes(lessonID: "aaaa1111")
        #expect(passes.map(\.id) == [b, a])
        #expect(passes[1].hit == 40 && passes[1].timingSdMs == 30 && passes[1].firstBar == 1 && passes[1].lastBar == 8)
        #expect(passes[0].score == nil)
        let listing = try s.listing(id: "aaaa1111")
        #expect(listing?.bestScore == 88)
        #expect(listing?.passes == 2)
        #expect(listing?.lastPractised == date("2026-03-02T10:00:00Z"))
    }

    @Test func unfinishedPassesAreKeptButNotCountedAsPassesOfTheLesson() throws {
        let s = try seeded()
        try s.recordPass(PassRecord(lessonID: "aaaa1111", startedAt: date("2026-03-02T10:00:00Z"), mode: "wait", hand: "right",
                                    tempoPercent: 80, durationSeconds: 400, complete: false))
        try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-01T10:00:00Z"), mode: "watch", hand: "both",
                         tempoPercent: 100, durationSeconds: 30)
        let stored = try s.passes(lessonID: "aaaa1111")
        #expect(stored.map(\.complete) == [true, false])
        let listing = try s.listing(id: "aaaa1111")
        #expect(listing?.passes == 1)
        #expect(listing?.lastPractised == date("2026-03-02T10:00:00Z"))   // it was practice all the same
        let unfinished = try #require(stored.last?.id)
        _ = try s.writer.write { db in try PassRecord.deleteOne(db, key: unfinished) }
        #expect(try s.listing(id: "aaaa1111")?.passes == 1)
    }

    @Test func resumeKeepsOneStateWithItsLoop() throws {
        let s = try seeded()
        #expect(try s.resume() == nil)
        try s.saveResume(ResumeState(lessonID: "bbbb2222", path: "/l/1.mid", positionSeconds: 3, hand: "left", tempoPercent: 90, mode: "wait"))
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 12.5, hand: "right", tempoPercent: 70,
                                     mode: "play", loopFirstBar: 9, loopLastBar: 12, loopName: "run"))
        let r = try #require(try s.resume())
        #expect(r.state.lessonID == "aaaa1111" && r.state.positionSeconds == 12.5 && r.state.loopName == "run")
        #expect(r.lesson?.lesson.title == "Minuet in G")
        #expect(try s.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resumeState") } == 1)
    }

    @Test func routinesSaveRenameDelete() throws {
        let s = try seeded()
        let r = Routine(name: "Warm-up", entries: [
            RoutineEntry(source: .lesson(id: "bbbb2222", title: "C Major Scale"), hand: "right", tempoPercent: 80, length: .minutes(2)),
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
        let old = Routine(name: "Old", entries: [RoutineEntry(source: .randomFavourite, mode: "loop")])
        try s.saveRoutine(old)
        #expect(try s.routine(named: "Old")?.entries.first?.mode == "loop")
        #expect(throws: StoreError.self) { try s.importRoutine(try RoutineFile.export(old)) }
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
        RoutineEntry(source: .lesson(id: "abc123", title: "Minuet, in G"), hand: "left", tempoPercent: 75, bars: 5...8,
                     mode: "wait", length: .minutes(2.5), pauseSeconds: 10),
        RoutineEntry(source: .randomFavourite, length: .repetitions(3)),
        RoutineEntry(source: .randomLevel(2), hand: "both", length: .minutes(3), pauseSeconds: 5),
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
            #expect(throws: StoreError.self) { try RoutineFile.parse(bad) }
        }
        #expect(throws: StoreError.self) { try RoutineFile.parse("{\"etudeRoutine\":9,\"name\":\"x\",\"entries\":[]}") }
    }

    @Test func entrySpecs() throws {
        let (e, ref) = try RoutineEntry.parseSpec("lesson=Minuet, in G;hand=right;tempo=80;bars=1-8;mode=wait;minutes=5;pause=10")
        #expect(ref == "Minuet, in G")
        #expect(e.hand == "right" && e.tempoPercent == 80 && e.bars == 1...8 && e.mode == "wait" && e.length == .minutes(5) && e.pauseSeconds == 10)
        #expect(try RoutineEntry.parseSpec("random=favourite;reps=3").entry == RoutineEntry(source: .randomFavourite, length: .repetitions(3)))
        #expect(try RoutineEntry.parseSpec("random=level:2,minutes=3").entry.source == .randomLevel(2))
        #expect(try RoutineEntry.parseSpec("lesson=x;mode=Memory").entry.mode == "memory")
        for bad in ["hand=right", "random=never", "lesson=x;tempo=500", "lesson=x;hand=middle", "lesson=x;colour=red", "nonsense",
                    "lesson=x;mode=fast"] {
            #expect(throws: StoreError.self) { try RoutineEntry.parseSpec(bad) }
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
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), hand: "right", tempoPercent: 50, bars: 2...3, length: .repetitions(3), pauseSeconds: 4),
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
        #expect(asked.first == RoutinePlan.PassQuery(lesson: cands.lessons[0].lesson, path: "/l/a.mid", hand: "right", tempoPercent: 50, bars: 2...3))
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

@Suite struct StatsTests {
    func pass(_ at: String, seconds: Double, tempo: Int = 100, score: Double? = nil) -> PassRecord {
        PassRecord(lessonID: "a", startedAt: date(at), mode: "play", hand: "both", tempoPercent: tempo, durationSeconds: seconds, score: score)
    }

    @Test func practiceTimePerDayAndWeek() {
        let now = date("2026-03-11T12:00:00Z") // a Wednesday
        let passes = [
            pass("2026-03-11T08:00:00Z", seconds: 60, tempo: 90, score: 80),
            pass("2026-03-11T09:00:00Z", seconds: 120, tempo: 100, score: 70),
            pass("2026-03-09T23:59:00Z", seconds: 30, tempo: 60),          // Monday, this week
            pass("2026-03-08T10:00:00Z", seconds: 600, tempo: 50, score: 40), // Sunday, last week
            pass("2026-01-01T10:00:00Z", seconds: 999),                     // out of range
        ]
        let st = PracticeStats.compute(passes, now: now, calendar: utc())
        #expect(st.days.count == 7 && st.weeks.count == 8)
        #expect(st.days.last?.start == date("2026-03-11T00:00:00Z"))
        #expect(st.days.last?.seconds == 180 && st.days.last?.passes == 2)
        #expect(st.days[4].seconds == 30)  // 9 March
        #expect(st.days[3].seconds == 600) // 8 March
        #expect(st.weeks.last?.start == date("2026-03-09T00:00:00Z"))
        #expect(st.weeks.last?.seconds == 210)
        #expect(st.weeks[6].seconds == 600)
        #expect(st.passCount == 5 && st.scoredPassCount == 3)
        #expect(st.bestScore == 80 && st.latestScore == 70)
        #expect(st.scores == [40, 80, 70])
        #expect(st.tempos == [100, 50, 60, 90, 100])
        #expect(st.totalSeconds == 1809)
    }

    @Test func anUnfinishedPassCountsItsTimeButIsNoPass() {
        let now = date("2026-03-11T12:00:00Z")
        var left = pass("2026-03-11T10:00:00Z", seconds: 300, tempo: 70)
        left.complete = false
        let st = PracticeStats.compute([pass("2026-03-11T08:00:00Z", seconds: 60, tempo: 90, score: 80), left], now: now, calendar: utc())
        #expect(st.days.last?.seconds == 360 && st.days.last?.passes == 1)
        #expect(st.weeks.last?.seconds == 360 && st.weeks.last?.passes == 1)
        #expect(st.passCount == 1 && st.scoredPassCount == 1 && st.totalSeconds == 360)
        #expect(st.tempos == [90])
    }

    @Test func sparklines() {
        #expect(Sparkline.render([0, 50, 100], lower: 0, upper: 100) == "▁▅█")
        #expect(Sparkline.render([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█")
        #expect(Sparkline.render([5, 5]) == "▄▄")
        #expect(Sparkline.render([]) == "")
        #expect(Sparkline.render(Array(repeating: 1, count: 100), width: 40).count == 40)
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
        #expect(problem(.init(source: fav, hand: "middle")) == "hand must be right, left or both, not middle")
        #expect(problem(.init(source: fav, tempo: 900)) == "tempo is a percentage from 10 to 200, not 900")
        #expect(problem(.init(source: fav, tempo: 9)) == "tempo is a percentage from 10 to 200, not 9")
        #expect(problem(.init(source: fav, bars: "8-2")) == "bars must look like 5-8 (first bar, last bar), not 8-2")
        #expect(problem(.init(source: fav, mode: "fast")) == "mode must be watch, wait, play or memory, not fast")
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
        #expect(e == RoutineEntry(source: .randomLevel(2), hand: "right", tempoPercent: 200, bars: 3...4, mode: "wait",
                                  length: .minutes(1.5), pauseSeconds: 0))
        #expect(try RoutineEntry.validated(.init(source: .randomFavourite)).length == .repetitions(1))
        #expect(try RoutineEntry.validated(.init(source: .randomFavourite, tempo: 10, repetitions: 1)).tempoPercent == 10)
    }

    /// A stored entry (saved before the checks) says what is wrong with it.
    @Test func storedEntriesReportTheirProblem() {
        #expect(RoutineEntry(source: .randomFavourite, tempoPercent: 80, length: .minutes(2)).problem == nil)
        #expect(RoutineEntry(source: .randomFavourite, tempoPercent: 900).problem == "tempo is a percentage from 10 to 200, not 900")
        #expect(RoutineEntry(source: .randomFavourite, hand: "middle").problem == "hand must be right, left or both, not middle")
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
                return Store.message(for: error)
            }
        }
        #expect(specProblem("random=favourite;tempo=900") == "entry \"random=favourite;tempo=900\": tempo is a percentage from 10 to 200, not 900")
        #expect(specProblem("random=favourite;hand=middle") == "entry \"random=favourite;hand=middle\": hand must be right, left or both, not middle")
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
            return Store.message(for: error)
        }
    }

    func file(_ entries: String) -> String { "{\"etudeRoutine\":1,\"name\":\"x\",\"entries\":[\(entries)]}" }

    /// A routine file is checked entry by entry with the same words, naming the entry.
    @Test func filesAreCheckedLikeTheCommandLine() {
        let ok = "{\"random\":\"favourite\"}"
        #expect(parseProblem(file("\(ok),{\"random\":\"favourite\",\"tempo\":900}")) == "entry 2: tempo is a percentage from 10 to 200, not 900")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"hand\":\"middle\"}")) == "entry 1: hand must be right, left or both, not middle")
        #expect(parseProblem(file("\(ok),\(ok),{\"random\":\"favourite\",\"minutes\":-2}")) == "entry 3: minutes must be a positive number, not -2")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"pause\":-5}")) == "entry 1: pause is a whole number of seconds, 0 or more, not -5")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"repetitions\":0}")) == "entry 1: repetitions must be at least 1, not 0")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"minutes\":2,\"repetitions\":3}")) == "entry 1: give minutes or repetitions (reps), not both")
        #expect(parseProblem(file("{\"random\":\"favourite\",\"mode\":\"fast\"}")) == "entry 1: mode must be watch, wait, play or memory, not fast")
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
        let s = try InMemoryStoreTests().seeded()
        let good = try s.importRoutine(file("{\"random\":\"favourite\",\"repetitions\":2}"))
        #expect(throws: StoreError.self) { try s.importRoutine(file("{\"random\":\"favourite\",\"tempo\":900}")) }
        #expect(try s.routine(named: "x") == good)
        // The caller's check (the command line's bars check) runs before the save.
        #expect(throws: StoreError.self) {
            try s.importRoutine(file("{\"random\":\"level\",\"level\":1}")) { _ in throw StoreError("entry 1: no") }
        }
        #expect(try s.routine(named: "x") == good)
    }

    /// A routine stored before the checks: its bad entries are skipped at run time with what to
    /// fix (not with a practice flag the user never typed); an odd mode still plays as watch.
    @Test func planSkipsStoredEntriesThatFailTheCheck() {
        let cands = RoutinePlan.Candidates(lessons: [
            LessonListing(lesson: LessonInfo(id: "a", title: "Scale", level: 1, durationSeconds: 60, hands: 1), path: "/l/a.mid", isFavourite: true),
        ])
        let routine = Routine(name: "old", entries: [
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), tempoPercent: 900),
            RoutineEntry(source: .lesson(id: "a", title: "Scale"), mode: "loop"),
        ])
        var rng = SeededGenerator(seed: 1)
        let plan = RoutinePlan.make(routine, candidates: cands, using: &rng)
        #expect(plan.steps.map(\.entryIndex) == [1])
        #expect(plan.skipped == [.init(entryIndex: 0, reason: "tempo is a percentage from 10 to 200, not 900 (`etude routine edit old` fixes it)")])
        #expect(!plan.text().contains("--tempo"))
    }
}
