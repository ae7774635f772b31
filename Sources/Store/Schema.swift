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
        return m
    }()
}
