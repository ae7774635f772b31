import ABC
import Foundation
import Lesson
import MIDIFile
import MusicXML
import Reports
import Store

/// The lesson formats Etude reads, in one table: the catalogue scans by it and every command
/// opens files through it. MIDI first, so a folder holding song.abc and its compiled song.mid
/// lists it once. A new format is a reader module plus one entry here.
public enum LessonFormats {
    public static let abc = LessonFormat(name: "abc", extensions: ["abc"], maxBytes: 8 << 20, plural: "ABC files") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            return try ABCImport.midiFile(fromABCText: text).file
        } catch let error as ABCError {
            throw EtudeFailure(error.oneLine)
        }
    }

    /// MusicXML scores (text or compressed .mxl); an .xml that is not one (its root element
    /// says so) is no lesson, and the catalogue passes over it.
    public static let musicXML = LessonFormat(name: "musicxml", extensions: ["musicxml", "mxl", "xml"], claims: { path in
        guard path.lowercased().hasSuffix(".xml") else { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        return MusicXMLImport.isMusicXML([UInt8](handle.readData(ofLength: 65_536)))
    }, maxBytes: MusicXMLLimits().maxXMLBytes, plural: "MusicXML files") { bytes in
        do {
            return try MusicXMLImport.midiFile(fromBytes: bytes).file
        } catch let error as MusicXMLError {
            throw EtudeFailure(error.oneLine)
        }
    }

    public static let all: [LessonFormat] = [.midi, abc, musicXML]

    /// Extensions a LESSON argument ending in is taken for a path (so a mistyped one still
    /// says "no such file" rather than "no lesson of that title").
    public static let pathExtensions: Set<String> = ["mid", "midi", "kar", "rmi", "smf", "abc", "musicxml", "mxl", "xml"]

    /// True for paths read as ABC notation.
    public static func isABC(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".abc")
    }

    /// True for paths read as MusicXML (`.musicxml`, `.mxl`, `.xml`).
    public static func isMusicXML(_ path: String) -> Bool {
        musicXML.extensions.contains((path as NSString).pathExtension.lowercased())
    }
}

/// A lesson opened for practice: the lesson (hands, bars, notes, fingering through its
/// annotations) and the file it came from.
public struct OpenedLesson: Sendable {
    public var lesson: Lesson
    public var path: String
    /// What the reader repaired or left out (shown by `info`; refused by `--strict`).
    public var warnings: [MIDIWarning]

    public init(lesson: Lesson, path: String, warnings: [MIDIWarning]) {
        self.lesson = lesson
        self.path = path
        self.warnings = warnings
    }

    /// The lesson, refused in one line when it has no notes: there is nothing to practise or
    /// play, and looping an empty pass would only fill the history.
    public func requiringNotes() throws -> OpenedLesson {
        guard lesson.notes.isEmpty else { return self }
        throw EtudeFailure("\(safe(path)): no notes to play (\(warnings.isEmpty ? "the file holds none" : "the file holds none; the reader repaired \(warnings.count) thing\(warnings.count == 1 ? "" : "s")")); `etude info \(safe(path))` shows what it holds")
    }
}

/// Reading a lesson file from disk in any format, every failure one line naming the file.
public enum LessonOpener {
    /// The file's bytes: regular files only (a device or pipe is no lesson, and /dev/zero
    /// would never end), never empty.
    ///
    /// At most `limit` bytes (else the limit of the format its extension names, MIDI's for
    /// any other), checked by stat before a byte is read.
    public static func readBytes(_ path: String, limit: (bytes: Int, what: String)? = nil) throws -> [UInt8] {
        let shown = safe(path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == EACCES { throw EtudeFailure("\(shown): cannot be read (check its permissions)") }
            throw EtudeFailure("\(shown): no such file")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw EtudeFailure("\(shown): is a directory, not a MIDI file")
        case S_IFCHR, S_IFBLK: throw EtudeFailure("\(shown): not a regular file (a device)")
        case S_IFIFO: throw EtudeFailure("\(shown): not a regular file (a pipe)")
        case S_IFSOCK: throw EtudeFailure("\(shown): not a regular file (a socket)")
        default: throw EtudeFailure("\(shown): not a regular file")
        }
        guard info.st_size > 0 else {
            throw EtudeFailure("\(shown): empty file (0 bytes)")
        }
        let format = LessonFormat.find(path, in: LessonFormats.all) ?? .midi
        let (max, what) = limit ?? (format.maxBytes, format.plural)
        switch BoundedRead.bytes(path, limit: max) {
        case .success(let bytes): return bytes
        case .failure(.tooLarge(let size)): throw EtudeFailure("\(shown): \(BoundedRead.tooLargeMessage(size: size, limit: max, what: what))")
        case .failure(.unreadable): throw EtudeFailure("\(shown): cannot be read (check its permissions)")
        }
    }

    /// Reads and parses a MIDI file; a fatal parse error becomes `FILE: message`.
    public static func readMIDI(_ path: String, strict: Bool = false) throws -> MIDIReadResult {
        try readMIDIAndBytes(path, strict: strict).result
    }

    static func readMIDIAndBytes(_ path: String, strict: Bool) throws -> (result: MIDIReadResult, bytes: [UInt8]) {
        let bytes = try readBytes(path)
        do {
            return (try MIDIReader.read(bytes, strict: strict), bytes)
        } catch {
            throw EtudeFailure("\(safe(path)): \(error.message)")
        }
    }

    /// What `info` and `events` report: the reader's repairs followed by the note-pairing
    /// warnings (a note never released, a note-off with no sounding note), each pairing warning
    /// at the byte offset of the first event it concerns (none for ABC). With `strict`, any of
    /// them is the one-line error, as the reader's own repairs are.
    public static func readChecked(_ path: String, strict: Bool) throws -> MIDIReadResult {
        var result: MIDIReadResult
        var bytes: [UInt8] = []
        if LessonFormats.isABC(path) || LessonFormats.isMusicXML(path) {
            result = try read(path, strict: strict)
        } else {
            (result, bytes) = try readMIDIAndBytes(path, strict: strict)
        }
        let source = bytes
        let pairing = NotePairing.notes(in: result.file, locate: source.isEmpty ? nil : { track, event in
            MIDIReader.offset(ofEvent: event, inTrack: track, of: source)
        })
        if strict, let w = pairing.warnings.first {
            let at = w.offset.map { " at byte \($0)" } ?? ""
            throw EtudeFailure("\(safe(path)): \(w.message)\(at) (strict mode)")
        }
        result.warnings += pairing.warnings
        return result
    }

    /// Reads a lesson in any format Etude accepts: `.abc` (ABC notation, converted on the fly;
    /// `tune` picks an `X:` number, default the first tune), MusicXML, or anything else as a
    /// MIDI file. ABC and MusicXML warnings come back as `MIDIWarning`s (no byte offset, the
    /// place in the text).
    public static func read(_ path: String, tune: Int? = nil, strict: Bool = false) throws -> MIDIReadResult {
        if LessonFormats.isMusicXML(path) { return try readMusicXML(path, strict: strict) }
        guard LessonFormats.isABC(path) else { return try readMIDI(path, strict: strict) }
        let bytes = try readBytes(path)
        let text = String(decoding: bytes, as: UTF8.self)
        let imported: (file: MIDIFile, warnings: [ABCWarning])
        do {
            imported = try ABCImport.midiFile(fromABCText: text, tune: tune)
        } catch {
            let place = error.line > 0 ? ":" : ": "
            throw EtudeFailure("\(safe(path))\(place)\(safe(error.oneLine))")
        }
        // --strict: what the import left out is an error, as the MIDI reader's repairs are.
        if strict, let first = imported.warnings.first {
            throw EtudeFailure("\(safe(path)): \(safe(first.description)) (strict mode)")
        }
        return MIDIReadResult(file: imported.file, warnings: imported.warnings.map { MIDIWarning(offset: nil, message: $0.description) })
    }

    /// A MusicXML score (text or .mxl) as a lesson file; an `.xml` that is not a score says so.
    static func readMusicXML(_ path: String, strict: Bool) throws -> MIDIReadResult {
        let bytes = try readBytes(path)
        if path.lowercased().hasSuffix(".xml"), !MusicXMLImport.isMusicXML(bytes) {
            let root = MusicXMLImport.rootElement(of: bytes).map { " (its root element is <\(safe(String($0.prefix(40))))>)" } ?? ""
            throw EtudeFailure("\(safe(path)): not a MusicXML score\(root); Etude reads .xml files that are MusicXML")
        }
        do {
            let imported = try MusicXMLImport.midiFile(fromBytes: bytes, strict: strict)
            return MIDIReadResult(file: imported.file, warnings: imported.warnings.map { MIDIWarning(offset: nil, message: $0.description) })
        } catch {
            let place = error.line > 0 ? ":" : ": "
            throw EtudeFailure("\(safe(path))\(place)\(safe(error.oneLine))")
        }
    }

    /// The lesson in a file, with its hands split (`split`: a MIDI pitch forcing the split point).
    public static func open(_ path: String, split: Int? = nil) throws -> OpenedLesson {
        let read = try read(path)
        return OpenedLesson(lesson: Lesson(file: read.file, fileName: path, split: split), path: path, warnings: read.warnings)
    }
}
