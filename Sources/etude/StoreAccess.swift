import ArgumentParser
import Foundation
import MIDIFile
import Store
import ABC
import MusicXML

/// `--db PATH` for every command that uses the database (else `$ETUDE_DB`, else the XDG path).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The database file (default: $ETUDE_DB or $XDG_DATA_HOME/etude/etude.sqlite).", valueName: "path"))
    var db: String?
}

/// Opening the store for a command: notices (a corrupt file moved aside) go to stderr, every
/// Store failure becomes one `etude: …` line.
enum StoreCLI {
    /// MIDI first, so a folder holding song.abc and its compiled song.mid lists it once.
    static let lessonFormats: [LessonFormat] = [
        .midi,
        LessonFormat(name: "abc", extensions: ["abc"]) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                return try ABCImport.midiFile(fromABCText: text).file
            } catch let error as ABCError {
                throw EtudeFailure(error.oneLine)
            }
        },
        // MusicXML scores; an .xml that is not one (its root element says) is no lesson.
        LessonFormat(name: "musicxml", extensions: ["musicxml", "mxl", "xml"], claims: { path in
            guard path.lowercased().hasSuffix(".xml") else { return true }
            guard let handle = FileHandle(forReadingAtPath: path) else { return true }
            defer { try? handle.close() }
            return MusicXMLImport.isMusicXML([UInt8](handle.readData(ofLength: 65_536)))
        }) { bytes in
            do {
                return try MusicXMLImport.midiFile(fromBytes: bytes).file
            } catch let error as MusicXMLError {
                throw EtudeFailure(error.oneLine)
            }
        },
    ]

    /// The file a LESSON argument names. `etude list` shows titles and ids, and `fav`, `loops`
    /// and `stats` take them, so `practice`, `loop` and `export` do too: a file that is there (or
    /// anything shaped like a path, so a mistyped one still says "no such file") is used as
    /// given; anything else is looked up in the catalogue by id prefix or title.
    static func lessonPath(_ reference: String, _ options: StoreOptions) throws -> String {
        if FileManager.default.fileExists(atPath: reference) || looksLikePath(reference) { return reference }
        return try withStore(options) { s in
            let listing = try s.resolveLesson(reference)
            guard let path = listing.path else {
                throw EtudeFailure("\(TextDecoding.sanitize(listing.lesson.title)): its file is no longer where Etude found it; open it by its path or run `etude library rescan`")
            }
            return path
        }
    }

    static func looksLikePath(_ reference: String) -> Bool {
        let lower = reference.lowercased()
        return reference.contains("/") || [".mid", ".midi", ".kar", ".rmi", ".smf", ".abc", ".musicxml", ".mxl", ".xml"].contains { lower.hasSuffix($0) }
    }

    static func withStore<T>(_ options: StoreOptions, scan: Bool = true, _ body: (Store) throws -> T) throws -> T {
        do {
            let store = try Store.open(path: Store.defaultPath(override: options.db), formats: lessonFormats)
            for n in store.notices { Console.error("etude: \(n)") }
            if scan {
                // Cheap when nothing changed (a stat per file); `etude library rescan` reports failures.
                _ = try store.rescan(builtinDirectory: BuiltinLessons.directory())
            }
            return try body(store)
        } catch let e as EtudeFailure {
            throw e
        } catch {
            if let m = Store.message(for: error) { throw EtudeFailure(m) }
            throw error
        }
    }

    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        if t >= 3600 { return "\(t / 3600)h\(String(format: "%02d", t / 60 % 60))" }
        return "\(t / 60):\(String(format: "%02d", t % 60))"
    }

    static func date(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: d)
    }

    static func isoDate(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: d)
    }

    /// One listing as JSON (used by list, fav list, resume).
    static func json(_ l: LessonListing, into j: inout JSONText) {
        let s = l.lesson
        j.raw("{\"id\":"); j.string(s.id)
        j.raw(",\"title\":"); j.string(s.title)
        j.raw(",\"composer\":"); if let c = s.composer { j.string(c) } else { j.raw("null") }
        j.raw(",\"level\":"); if let v = s.level { j.number(v) } else { j.raw("null") }
        j.raw(",\"description\":"); if let d = s.description { j.string(d) } else { j.raw("null") }
        j.raw(",\"durationSeconds\":"); j.number((s.durationSeconds * 1000).rounded() / 1000)
        j.raw(",\"hands\":"); j.number(s.hands)
        j.raw(",\"key\":"); if let k = s.keyName { j.string(k) } else { j.raw("null") }
        j.raw(",\"timeSignature\":"); if let t = s.timeSignature { j.string(t) } else { j.raw("null") }
        j.raw(",\"tempoBPM\":"); if let t = s.tempoBPM { j.number(t) } else { j.raw("null") }
        j.raw(",\"noteCount\":"); j.number(s.noteCount)
        j.raw(",\"path\":"); if let p = l.path { j.string(p) } else { j.raw("null") }
        j.raw(",\"favourite\":"); j.raw(l.isFavourite ? "true" : "false")
        j.raw(",\"bestScore\":"); if let b = l.bestScore { j.number(b) } else { j.raw("null") }
        j.raw(",\"lastPractised\":"); if let d = l.lastPractised { j.string(isoDate(d)) } else { j.raw("null") }
        j.raw(",\"passes\":"); j.number(l.passes)
        j.raw("}")
    }

    /// One listing as a line: star, level, duration, title — composer, id prefix, best score.
    static func line(_ l: LessonListing) -> String {
        let s = l.lesson
        var out = (l.isFavourite ? "★ " : "  ")
        out += s.level.map { "L\($0)" } ?? "L-"
        out += "  " + duration(s.durationSeconds).leftPad(6) + "  "
        out += TextDecoding.sanitize(s.title)
        if let c = s.composer { out += " — " + TextDecoding.sanitize(c) }
        out += "  [\(s.id.prefix(8))]"
        if let b = l.bestScore { out += "  best \(Int(b.rounded()))" }
        if l.path == nil { out += "  (file missing)" }
        return out
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

