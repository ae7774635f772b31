import GRDB

/// The database schema as a list of versioned migrations. Never edit a shipped migration:
/// append a new one, so every earlier database file upgrades in place.
public enum Schema {
    /// Migration identifiers in order; the last one is the current schema version.
    public static var versions: [String] { migrator.migrations }

    public static let migrator: DatabaseMigrator = {
        var m = DatabaseMigrator()

        // v1: catalogue, library folders, favourites, history (with a single score), resume.
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE lesson (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL,
                    composer TEXT,
                    level INTEGER,
                    description TEXT,
                    durationSeconds DOUBLE NOT NULL DEFAULT 0,
                    hands INTEGER NOT NULL DEFAULT 0,
                    keyName TEXT,
                    timeSignature TEXT,
                    tempoBPM DOUBLE,
                    noteCount INTEGER NOT NULL DEFAULT 0,
                    format TEXT NOT NULL DEFAULT 'midi',
                    searchText TEXT NOT NULL DEFAULT '',
                    firstSeen DATETIME NOT NULL
                );
                CREATE TABLE libraryFolder (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    path TEXT NOT NULL UNIQUE,
                    addedAt DATETIME NOT NULL
                );
                CREATE TABLE lessonFile (
                    path TEXT PRIMARY KEY NOT NULL,
                    lessonID TEXT NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    size INTEGER NOT NULL,
                    mtime DOUBLE NOT NULL,
                    source TEXT NOT NULL,
                    root TEXT
                );
                CREATE INDEX lessonFile_lessonID ON lessonFile(lessonID);
                CREATE INDEX lessonFile_root ON lessonFile(root);
                CREATE TABLE favourite (
                    lessonID TEXT PRIMARY KEY NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    addedAt DATETIME NOT NULL
                );
                CREATE TABLE pass (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    lessonID TEXT NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    startedAt DATETIME NOT NULL,
                    mode TEXT NOT NULL,
                    hand TEXT NOT NULL,
                    tempoPercent INTEGER NOT NULL,
                    firstBar INTEGER,
                    lastBar INTEGER,
                    durationSeconds DOUBLE NOT NULL,
                    score DOUBLE
                );
                CREATE INDEX pass_lesson_time ON pass(lessonID, startedAt);
                CREATE TABLE resumeState (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    lessonID TEXT NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    positionSeconds DOUBLE NOT NULL,
                    hand TEXT NOT NULL,
                    tempoPercent INTEGER NOT NULL,
                    mode TEXT NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }

        // v2: full score figures per pass, saved loops, the loop in the resume state, routines.
        m.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE pass ADD COLUMN hit INTEGER;
                ALTER TABLE pass ADD COLUMN missed INTEGER;
                ALTER TABLE pass ADD COLUMN wrong INTEGER;
                ALTER TABLE pass ADD COLUMN extra INTEGER;
                ALTER TABLE pass ADD COLUMN accuracy DOUBLE;
                ALTER TABLE pass ADD COLUMN timingMeanMs DOUBLE;
                ALTER TABLE pass ADD COLUMN timingSdMs DOUBLE;
                ALTER TABLE resumeState ADD COLUMN loopFirstBar INTEGER;
                ALTER TABLE resumeState ADD COLUMN loopLastBar INTEGER;
                ALTER TABLE resumeState ADD COLUMN loopName TEXT;
                CREATE TABLE savedLoop (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    lessonID TEXT NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    firstBar INTEGER NOT NULL,
                    lastBar INTEGER NOT NULL,
                    hand TEXT NOT NULL,
                    tempoPercent INTEGER NOT NULL,
                    otherHandMode TEXT NOT NULL,
                    createdAt DATETIME NOT NULL,
                    updatedAt DATETIME NOT NULL,
                    UNIQUE (lessonID, name)
                );
                CREATE TABLE routine (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    entries TEXT NOT NULL,
                    createdAt DATETIME NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }

        // v3: indexes for the browser's filters and sort order.
        m.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE INDEX lesson_level_title ON lesson(level, title COLLATE NOCASE);
                CREATE INDEX pass_startedAt ON pass(startedAt);
                """)
        }
        // v4: derived columns kept by triggers, so a search of 10,000 lessons reads one row per
        // lesson: the lesson's preferred file path, and its pass count, best score and last pass.
        // Files that failed to parse are remembered with their stamp, so rescans skip them too.
        m.registerMigration("v4") { db in
            try db.execute(sql: """
                ALTER TABLE lesson ADD COLUMN path TEXT;
                CREATE TABLE lessonStats (
                    lessonID TEXT PRIMARY KEY NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    passes INTEGER NOT NULL DEFAULT 0,
                    bestScore DOUBLE,
                    lastPractised DATETIME
                );
                CREATE INDEX lesson_path ON lesson(path);
                CREATE TABLE unreadableFile (
                    path TEXT PRIMARY KEY NOT NULL,
                    size INTEGER NOT NULL,
                    mtime DOUBLE NOT NULL,
                    message TEXT NOT NULL,
                    root TEXT
                );
                CREATE INDEX unreadableFile_root ON unreadableFile(root);
                CREATE TRIGGER lessonFile_insert AFTER INSERT ON lessonFile BEGIN
                    UPDATE lesson SET path = (SELECT path FROM lessonFile WHERE lessonID = NEW.lessonID ORDER BY source, path LIMIT 1)
                    WHERE id = NEW.lessonID;
                END;
                CREATE TRIGGER lessonFile_delete AFTER DELETE ON lessonFile BEGIN
                    UPDATE lesson SET path = (SELECT path FROM lessonFile WHERE lessonID = OLD.lessonID ORDER BY source, path LIMIT 1)
                    WHERE id = OLD.lessonID;
                END;
                CREATE TRIGGER lessonFile_update AFTER UPDATE ON lessonFile BEGIN
                    UPDATE lesson SET path = (SELECT path FROM lessonFile WHERE lessonID = OLD.lessonID ORDER BY source, path LIMIT 1)
                    WHERE id = OLD.lessonID;
                    UPDATE lesson SET path = (SELECT path FROM lessonFile WHERE lessonID = NEW.lessonID ORDER BY source, path LIMIT 1)
                    WHERE id = NEW.lessonID;
                END;
                CREATE TRIGGER pass_insert AFTER INSERT ON pass BEGIN
                    INSERT INTO lessonStats (lessonID, passes, bestScore, lastPractised)
                    VALUES (NEW.lessonID, 1, NEW.score, NEW.startedAt)
                    ON CONFLICT (lessonID) DO UPDATE SET
                        passes = passes + 1,
                        bestScore = CASE WHEN bestScore IS NULL OR NEW.score > bestScore THEN coalesce(NEW.score, bestScore) ELSE bestScore END,
                        lastPractised = CASE WHEN lastPractised IS NULL OR NEW.startedAt > lastPractised THEN NEW.startedAt ELSE lastPractised END;
                END;
                CREATE TRIGGER pass_delete AFTER DELETE ON pass BEGIN
                    UPDATE lessonStats SET
                        passes = (SELECT COUNT(*) FROM pass WHERE lessonID = OLD.lessonID),
                        bestScore = (SELECT MAX(score) FROM pass WHERE lessonID = OLD.lessonID),
                        lastPractised = (SELECT MAX(startedAt) FROM pass WHERE lessonID = OLD.lessonID)
                    WHERE lessonID = OLD.lessonID;
                END;
                UPDATE lesson SET path = (SELECT path FROM lessonFile WHERE lessonID = lesson.id ORDER BY source, path LIMIT 1);
                INSERT INTO lessonStats (lessonID, passes, bestScore, lastPractised)
                    SELECT lessonID, COUNT(*), MAX(score), MAX(startedAt) FROM pass GROUP BY lessonID;
                """)
        }
        // v5: passes left before their end are kept for their practice time (complete = 0); the
        // per-lesson pass count counts only complete ones.
        m.registerMigration("v5") { db in
            try db.execute(sql: """
                ALTER TABLE pass ADD COLUMN complete BOOLEAN NOT NULL DEFAULT 1;
                DROP TRIGGER pass_insert;
                DROP TRIGGER pass_delete;
                CREATE TRIGGER pass_insert AFTER INSERT ON pass BEGIN
                    INSERT INTO lessonStats (lessonID, passes, bestScore, lastPractised)
                    VALUES (NEW.lessonID, NEW.complete, NEW.score, NEW.startedAt)
                    ON CONFLICT (lessonID) DO UPDATE SET
                        passes = passes + NEW.complete,
                        bestScore = CASE WHEN bestScore IS NULL OR NEW.score > bestScore THEN coalesce(NEW.score, bestScore) ELSE bestScore END,
                        lastPractised = CASE WHEN lastPractised IS NULL OR NEW.startedAt > lastPractised THEN NEW.startedAt ELSE lastPractised END;
                END;
                CREATE TRIGGER pass_delete AFTER DELETE ON pass BEGIN
                    UPDATE lessonStats SET
                        passes = (SELECT COUNT(*) FROM pass WHERE lessonID = OLD.lessonID AND complete),
                        bestScore = (SELECT MAX(score) FROM pass WHERE lessonID = OLD.lessonID),
                        lastPractised = (SELECT MAX(startedAt) FROM pass WHERE lessonID = OLD.lessonID)
                    WHERE lessonID = OLD.lessonID;
                END;
                """)
        }
        // v6: a pass keeps all its score figures (early, on time and late hits too).
        m.registerMigration("v6") { db in
            try db.execute(sql: """
                ALTER TABLE pass ADD COLUMN early INTEGER;
                ALTER TABLE pass ADD COLUMN onTime INTEGER;
                ALTER TABLE pass ADD COLUMN late INTEGER;
                """)
        }
        // v7: how the learner last chose to practise each lesson from the browser (mode, hand).
        m.registerMigration("v7-lesson-choices") { db in
            try db.execute(sql: """
                CREATE TABLE lessonChoice (
                    lessonID TEXT PRIMARY KEY NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    mode TEXT NOT NULL,
                    hand TEXT NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }
        // v7: the learner's calibrated timing offset per input device (`etude calibrate`), and
        // notices shown once (the suggestion to calibrate).
        m.registerMigration("v7-input-offsets") { db in
            try db.execute(sql: """
                CREATE TABLE inputOffset (
                    device TEXT PRIMARY KEY NOT NULL,
                    offsetMs DOUBLE NOT NULL,
                    spreadMs DOUBLE NOT NULL,
                    taps INTEGER NOT NULL,
                    calibratedAt DATETIME NOT NULL
                );
                CREATE TABLE shownNotice (
                    name TEXT PRIMARY KEY NOT NULL,
                    shownAt DATETIME NOT NULL
                );
                """)
        }
        // v8: the quiz's own lessons (where `etude quiz` keeps its results) are history, not
        // lessons to list or open from the browser.
        m.registerMigration("v8-quiz-lessons") { db in
            try db.execute(sql: "ALTER TABLE lesson ADD COLUMN isQuiz BOOLEAN NOT NULL DEFAULT 0")
        }
        // v9: resume brings back what the other hand did and whether the metronome ticked (NULL
        // in a state saved before: the defaults, as then).
        m.registerMigration("v9-resume-settings") { db in
            try db.execute(sql: """
                ALTER TABLE resumeState ADD COLUMN otherHand TEXT;
                ALTER TABLE resumeState ADD COLUMN metronome BOOLEAN;
                """)
        }
        // v10: a lesson's transposition is remembered (`--transpose`), and a saved loop keeps its own.
        m.registerMigration("v10-transpose") { db in
            try db.execute(sql: """
                CREATE TABLE lessonTranspose (
                    lessonID TEXT PRIMARY KEY NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    transpose TEXT NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                ALTER TABLE savedLoop ADD COLUMN transpose TEXT;
                """)
        }
        // v10: the learner's keyboard range per input device (`--keys`, `--range`, `--fit octave`).
        m.registerMigration("v10-keyboard-range") { db in
            try db.execute(sql: """
                CREATE TABLE keyboardRange (
                    device TEXT PRIMARY KEY NOT NULL,
                    keyRange TEXT NOT NULL,
                    fitOctave BOOLEAN NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }
        // v10-method: the sight-reading exercises played (level, seed, the pass that scored it).
        m.registerMigration("v10-method") { db in
            try db.execute(sql: """
                CREATE TABLE sightReading (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    level INTEGER NOT NULL,
                    seed INTEGER NOT NULL,
                    lessonID TEXT NOT NULL,
                    passID INTEGER,
                    score DOUBLE,
                    playedAt DATETIME NOT NULL
                );
                CREATE INDEX sightReading_level_seed ON sightReading(level, seed);
                """)
        }
        // v10: the ear's counts beside each pass's figures (NULL before: none were judged), and
        // each judged pass's notes and faults per bar, for the lesson's per-bar picture.
        m.registerMigration("v10-note-verdicts") { db in
            try db.execute(sql: """
                ALTER TABLE pass ADD COLUMN short INTEGER;
                ALTER TABLE pass ADD COLUMN long INTEGER;
                ALTER TABLE pass ADD COLUMN loud INTEGER;
                ALTER TABLE pass ADD COLUMN soft INTEGER;
                CREATE TABLE passBar (
                    passID INTEGER NOT NULL REFERENCES pass(id) ON DELETE CASCADE,
                    bar INTEGER NOT NULL,
                    label TEXT NOT NULL,
                    notes INTEGER NOT NULL,
                    faults INTEGER NOT NULL,
                    PRIMARY KEY (passID, bar)
                );
                """)
        }
        // v10: whether Etude sounds what the learner plays, per input device (`--echo`, asked
        // once the first time a MIDI instrument is used).
        m.registerMigration("v10-echo") { db in
            try db.execute(sql: """
                CREATE TABLE inputEcho (
                    device TEXT PRIMARY KEY NOT NULL,
                    echo BOOLEAN NOT NULL,
                    chosenAt DATETIME NOT NULL
                );
                """)
        }
        // v11: a microphone's set-up per source (`etude calibrate --input audio`): the room's
        // noise, the piano's level, the detection latency and its partial profiles (JSON).
        m.registerMigration("v11-audio-calibration") { db in
            try db.execute(sql: """
                CREATE TABLE audioCalibration (
                    device TEXT PRIMARY KEY NOT NULL,
                    noiseFloor DOUBLE NOT NULL,
                    playedLevel DOUBLE NOT NULL,
                    latency DOUBLE NOT NULL,
                    templates TEXT NOT NULL,
                    keys INTEGER NOT NULL,
                    calibratedAt DATETIME NOT NULL
                );
                """)
        }
        // v12: the PulseAudio buffer learned per output device (the size it plays at without
        // gaps, the largest that underran), so a session starts from it.
        m.registerMigration("v12-audio-buffer") { db in
            try db.execute(sql: """
                CREATE TABLE audioBuffer (
                    device TEXT PRIMARY KEY NOT NULL,
                    milliseconds DOUBLE NOT NULL,
                    floor DOUBLE,
                    learnedAt DATETIME NOT NULL
                );
                """)
        }
        // v13: a recording judged by `etude judge`, by its content and the settings it was
        // judged with, so judging it again (each `judge --json` run) stores no second pass.
        m.registerMigration("v13-judged-recording") { db in
            try db.execute(sql: """
                CREATE TABLE judgedRecording (
                    key TEXT PRIMARY KEY NOT NULL,
                    passID INTEGER NOT NULL REFERENCES pass(id) ON DELETE CASCADE
                );
                """)
        }
        // v13: the lesson the learner chose as the method's current piece (`etude next --set`);
        // without one the current piece is the first on the path not yet mastered, and a
        // lesson tried out of order is a side trip.
        m.registerMigration("v13-method-choice") { db in
            try db.execute(sql: """
                CREATE TABLE methodChoice (
                    slot INTEGER PRIMARY KEY NOT NULL CHECK (slot = 1),
                    lessonID TEXT NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    chosenAt DATETIME NOT NULL
                );
                """)
        }
        // v13: whether Etude's part follows the learner's tempo, per lesson (`--follow`).
        m.registerMigration("v13-lesson-follow") { db in
            try db.execute(sql: """
                CREATE TABLE lessonFollow (
                    lessonID TEXT PRIMARY KEY NOT NULL,
                    follow BOOLEAN NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }
        // v13: the learner's instrument, chosen once (`etude setup`): the input with its sound,
        // MIDI out, key lights and gestures, used by every command that does not name them; the
        // guide per lesson (`--guide on`); the input a resumed session was left on.
        m.registerMigration("v13-instrument") { db in
            try db.execute(sql: """
                CREATE TABLE instrumentSetup (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    input TEXT NOT NULL,
                    sound TEXT,
                    midiOut TEXT,
                    lights INTEGER,
                    gestures TEXT,
                    updatedAt DATETIME NOT NULL
                );
                CREATE TABLE lessonGuide (
                    lessonID TEXT PRIMARY KEY NOT NULL REFERENCES lesson(id) ON DELETE CASCADE,
                    guide BOOLEAN NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                ALTER TABLE resumeState ADD COLUMN input TEXT;
                """)
        }
        // v14: a pass's figures are read through `ScoreFigures`' own coding, so a scored row holds
        // every figure (older rows: NULL early/on-time/late and timing read as 0, as the bridge
        // read them; a row missing a count the bridge needed was not scored and stays so). The
        // best score the browser and `etude list` show is the best played in time (play, memory,
        // a judged recording): a wait-mode 100 is not a best of playing the piece.
        m.registerMigration("v14-typed-passes") { db in
            let inTime = PassMode.inTime.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            try db.execute(sql: """
                UPDATE pass SET hit = NULL
                    WHERE hit IS NOT NULL AND (missed IS NULL OR wrong IS NULL OR extra IS NULL OR accuracy IS NULL OR score IS NULL);
                UPDATE pass SET early = coalesce(early, 0), onTime = coalesce(onTime, 0), late = coalesce(late, 0),
                    timingMeanMs = coalesce(timingMeanMs, 0), timingSdMs = coalesce(timingSdMs, 0),
                    short = coalesce(short, 0), long = coalesce(long, 0), loud = coalesce(loud, 0), soft = coalesce(soft, 0)
                    WHERE hit IS NOT NULL;
                DROP TRIGGER pass_insert;
                DROP TRIGGER pass_delete;
                CREATE TRIGGER pass_insert AFTER INSERT ON pass BEGIN
                    INSERT INTO lessonStats (lessonID, passes, bestScore, lastPractised)
                    VALUES (NEW.lessonID, NEW.complete, CASE WHEN NEW.mode IN (\(inTime)) THEN NEW.score END, NEW.startedAt)
                    ON CONFLICT (lessonID) DO UPDATE SET
                        passes = passes + NEW.complete,
                        bestScore = CASE WHEN NEW.mode IN (\(inTime)) AND (bestScore IS NULL OR NEW.score > bestScore)
                                         THEN coalesce(NEW.score, bestScore) ELSE bestScore END,
                        lastPractised = CASE WHEN lastPractised IS NULL OR NEW.startedAt > lastPractised THEN NEW.startedAt ELSE lastPractised END;
                END;
                CREATE TRIGGER pass_delete AFTER DELETE ON pass BEGIN
                    UPDATE lessonStats SET
                        passes = (SELECT COUNT(*) FROM pass WHERE lessonID = OLD.lessonID AND complete),
                        bestScore = (SELECT MAX(score) FROM pass WHERE lessonID = OLD.lessonID AND mode IN (\(inTime))),
                        lastPractised = (SELECT MAX(startedAt) FROM pass WHERE lessonID = OLD.lessonID)
                    WHERE lessonID = OLD.lessonID;
                END;
                UPDATE lessonStats SET bestScore = (SELECT MAX(score) FROM pass WHERE pass.lessonID = lessonStats.lessonID AND mode IN (\(inTime)));
                """)
        }
        // v14: the history summarised per lesson and day (`passDay`, kept by triggers), so
        // `today`, `next` and `stats` read days and indexes, never every pass (issue 40).
        m.registerMigration("v14-pass-days") { db in
            try db.execute(sql: """
                CREATE TABLE passDay (
                    lessonID TEXT NOT NULL,
                    day TEXT NOT NULL,
                    passes INTEGER NOT NULL,
                    scored INTEGER NOT NULL,
                    seconds DOUBLE NOT NULL,
                    bestScore DOUBLE,
                    masterLastBar INTEGER,
                    maxLastBar INTEGER,
                    PRIMARY KEY (lessonID, day)
                ) WITHOUT ROWID;
                CREATE INDEX passDay_day ON passDay(day);
                CREATE INDEX pass_lesson_lastBar ON pass(lessonID, lastBar);
                CREATE INDEX pass_best_play ON pass(lessonID, score) WHERE complete AND mode = 'play' AND hand = 'both';
                CREATE INDEX pass_scored_time ON pass(startedAt) WHERE complete AND score IS NOT NULL;
                \(PassDay.fill("1"))
                CREATE TRIGGER pass_day_insert AFTER INSERT ON pass WHEN \(PassDay.sane("NEW.")) BEGIN
                \(PassDay.onInsert)
                END;
                CREATE TRIGGER pass_day_delete AFTER DELETE ON pass BEGIN
                    DELETE FROM passDay WHERE lessonID = OLD.lessonID;
                    \(PassDay.fill("lessonID = OLD.lessonID"))
                END;
                CREATE TRIGGER pass_day_update AFTER UPDATE ON pass BEGIN
                    DELETE FROM passDay WHERE lessonID IN (OLD.lessonID, NEW.lessonID);
                    \(PassDay.fill("lessonID IN (OLD.lessonID, NEW.lessonID)"))
                END;
                """)
        }
        // v15: a recording's bars found in it (`etude align`), per recording (by its content, so a
        // moved or renamed file keeps them) and lesson (by its bytes): the bars as JSON.
        m.registerMigration("v15-recording-alignments") { db in
            try db.execute(sql: """
                CREATE TABLE recordingAlignment (
                    recording TEXT NOT NULL,
                    lesson TEXT NOT NULL,
                    bars TEXT NOT NULL,
                    method TEXT NOT NULL,
                    alignedAt DATETIME NOT NULL,
                    PRIMARY KEY (recording, lesson)
                );
                """)
        }
        // v16: the history's cost no longer grows with it (issue 40 point 4): each lesson's
        // totals (`passTotal`) and each scored day's review interval (`passDay.reviewInterval`,
        // Review's fold) kept by the triggers, and indexes for the questions `next`, `today`
        // and `stats` ask of one lesson (its furthest bar, its mastering days, its last scored
        // day) and of the last complete passes.
        m.registerMigration("v16-pass-totals") { db in
            try db.execute(sql: """
                ALTER TABLE passDay ADD COLUMN reviewInterval INTEGER;
                CREATE TABLE passTotal (
                    lessonID TEXT PRIMARY KEY NOT NULL,
                    passes INTEGER NOT NULL,
                    scored INTEGER NOT NULL,
                    seconds DOUBLE NOT NULL,
                    bestScore DOUBLE
                ) WITHOUT ROWID;
                INSERT INTO passTotal (lessonID, passes, scored, seconds, bestScore)
                    SELECT lessonID, SUM(passes), SUM(scored), SUM(seconds), MAX(bestScore) FROM passDay GROUP BY lessonID;
                CREATE INDEX passDay_lesson_maxLastBar ON passDay(lessonID, maxLastBar);
                CREATE INDEX passDay_lesson_masterLastBar ON passDay(lessonID, masterLastBar);
                CREATE INDEX passDay_lesson_scored ON passDay(lessonID, day) WHERE bestScore IS NOT NULL;
                CREATE INDEX pass_complete_time ON pass(startedAt, id) WHERE complete;
                """)
            // The intervals of the days already there: one pass over them in Swift.
            let update = try db.makeStatement(sql: "UPDATE passDay SET reviewInterval = ? WHERE lessonID = ? AND day = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT lessonID, day, bestScore FROM passDay WHERE bestScore IS NOT NULL ORDER BY lessonID, day")
            var lesson: String?
            var interval = 1
            while let row = try rows.next() {
                let id = try? row.decode(String.self, forColumn: "lessonID")
                if id != lesson { lesson = id; interval = 1 }
                let best = (try? row.decode(Double.self, forColumn: "bestScore")) ?? 0
                interval = best >= Review.goodScore ? min(interval * 2, Review.longestDays) : max(1, interval / 2)
                try update.execute(arguments: [interval, id, try? row.decode(String.self, forColumn: "day")])
            }
            try db.execute(sql: """
                DROP TRIGGER pass_day_insert;
                DROP TRIGGER pass_day_delete;
                DROP TRIGGER pass_day_update;
                CREATE TRIGGER pass_day_insert AFTER INSERT ON pass WHEN \(PassDay.sane("NEW.")) BEGIN
                \(PassDay.onInsert)
                    \(PassDay.reviewDay(lesson: "NEW.lessonID", day: PassDay.day("NEW.")))
                    \(PassDay.review(lesson: "NEW.lessonID", from: "date(\(PassDay.day("NEW.")), '+1 day')"))
                    INSERT INTO passTotal (lessonID, passes, scored, seconds, bestScore)
                        VALUES (NEW.lessonID, NEW.complete != 0, NEW.complete != 0 AND NEW.score IS NOT NULL, NEW.durationSeconds,
                                CASE WHEN NEW.complete THEN NEW.score END)
                        ON CONFLICT (lessonID) DO UPDATE SET
                            passes = passes + excluded.passes, scored = scored + excluded.scored, seconds = seconds + excluded.seconds,
                            bestScore = CASE WHEN excluded.bestScore IS NOT NULL AND (bestScore IS NULL OR excluded.bestScore > bestScore)
                                             THEN excluded.bestScore ELSE bestScore END;
                END;
                CREATE TRIGGER pass_day_delete AFTER DELETE ON pass BEGIN
                    DELETE FROM passDay WHERE lessonID = OLD.lessonID;
                    \(PassDay.fill("lessonID = OLD.lessonID"))
                    \(PassDay.review(lesson: "OLD.lessonID", from: "''"))
                    \(PassDay.total(lesson: "OLD.lessonID"))
                END;
                CREATE TRIGGER pass_day_update AFTER UPDATE ON pass BEGIN
                    DELETE FROM passDay WHERE lessonID IN (OLD.lessonID, NEW.lessonID);
                    \(PassDay.fill("lessonID IN (OLD.lessonID, NEW.lessonID)"))
                    \(PassDay.review(lesson: "OLD.lessonID", from: "''"))
                    \(PassDay.review(lesson: "NEW.lessonID", from: "''"))
                    \(PassDay.total(lesson: "OLD.lessonID"))
                    \(PassDay.total(lesson: "NEW.lessonID"))
                END;
                """)
        }
        // v17: the room's noise bin by bin with a microphone's set-up (issue 41), as the
        // calibration's quiet seconds measured it: magnitudes as little-endian 32-bit floats and
        // the rate they were measured at. NULL in a set-up stored before: it keeps working on
        // the room's level alone.
        m.registerMigration("v17-audio-room-spectrum") { db in
            try db.execute(sql: """
                ALTER TABLE audioCalibration ADD COLUMN roomSpectrum BLOB;
                ALTER TABLE audioCalibration ADD COLUMN roomSampleRate INTEGER;
                """)
        }
        return m
    }()
}
