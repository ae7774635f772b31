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
        return m
    }()
}
