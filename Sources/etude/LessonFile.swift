import Foundation
import MIDIFile
import ABC
import MusicXML

/// Reading a lesson file from disk, turning every failure into one line that names the file.
enum LessonFile {
    static func readBytes(_ path: String) throws -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == EACCES { throw EtudeFailure("\(path): cannot be read (check its permissions)") }
            throw EtudeFailure("\(path): no such file")
        }
        // Only regular files: a device or pipe is no lesson (and /dev/zero would never end).
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw EtudeFailure("\(path): is a directory, not a MIDI file")
        case S_IFCHR, S_IFBLK: throw EtudeFailure("\(path): not a regular file (a device)")
        case S_IFIFO: throw EtudeFailure("\(path): not a regular file (a pipe)")
        case S_IFSOCK: throw EtudeFailure("\(path): not a regular file (a socket)")
        default: throw EtudeFailure("\(path): not a regular file")
        }
        guard info.st_size > 0 else {
            throw EtudeFailure("\(path): empty file (0 bytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EtudeFailure("\(path): cannot be read (check its permissions)")
        }
        return [UInt8](data)
    }

    /// Reads and parses a MIDI file; a fatal parse error becomes `etude: FILE: message`.
    static func readMIDI(_ path: String, strict: Bool = false) throws -> MIDIReadResult {
        try readMIDIAndBytes(path, strict: strict).result
    }

    static func readMIDIAndBytes(_ path: String, strict: Bool) throws -> (result: MIDIReadResult, bytes: [UInt8]) {
        let bytes = try readBytes(path)
        do {
            return (try MIDIReader.read(bytes, strict: strict), bytes)
        } catch {
            throw EtudeFailure("\(path): \(error.message)")
        }
    }

    /// What `info` and `events` report: the reader's repairs followed by the note-pairing
    /// warnings (a note never released, a note-off with no sounding note), each pairing warning
    /// at the byte offset of the first event it concerns (none for ABC). With `strict`, any of
    /// them is the one-line error, as the reader's own repairs are.
    static func readChecked(_ path: String, strict: Bool) throws -> MIDIReadResult {
        var result: MIDIReadResult
        var bytes: [UInt8] = []
        if isABC(path) || isMusicXMLPath(path) {
            result = try readLesson(path, strict: strict)
        } else {
            (result, bytes) = try readMIDIAndBytes(path, strict: strict)
        }
        let source = bytes
        let pairing = NotePairing.notes(in: result.file, locate: source.isEmpty ? nil : { track, event in
            MIDIReader.offset(ofEvent: event, inTrack: track, of: source)
        })
        if strict, let w = pairing.warnings.first {
            let at = w.offset.map { " at byte \($0)" } ?? ""
            throw EtudeFailure("\(TextDecoding.sanitize(path)): \(w.message)\(at) (strict mode)")
        }
        result.warnings += pairing.warnings
        return result
    }

    /// Reads a lesson in either form Etude accepts: `.abc` (ABC notation, converted on the
    /// fly; `tune` picks an `X:` number, default the first tune) or anything else as a MIDI
    /// file. ABC warnings come back as `MIDIWarning`s (no byte offset, `line:column` in text).
    static func readLesson(_ path: String, tune: Int? = nil, strict: Bool = false) throws -> MIDIReadResult {
        if isMusicXMLPath(path) { return try readMusicXML(path, strict: strict) }
        guard isABC(path) else { return try readMIDI(path, strict: strict) }
        let bytes = try readBytes(path)
        let text = String(decoding: bytes, as: UTF8.self)
        let imported: (file: MIDIFile, warnings: [ABCWarning])
        do {
            imported = try ABCImport.midiFile(fromABCText: text, tune: tune)
        } catch {
            let place = error.line > 0 ? ":" : ": "
            throw EtudeFailure("\(TextDecoding.sanitize(path))\(place)\(TextDecoding.sanitize(error.oneLine))")
        }
        // --strict: what the import left out is an error, as the MIDI reader's repairs are.
        if strict, let first = imported.warnings.first {
            throw EtudeFailure("\(TextDecoding.sanitize(path)): \(first.description) (strict mode)")
        }
        return MIDIReadResult(file: imported.file, warnings: imported.warnings.map { MIDIWarning(offset: nil, message: $0.description) })
    }

    /// True for paths Etude reads as ABC notation.
    static func isABC(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".abc")
    }

    /// `.musicxml`, `.mxl` and `.xml` are read as MusicXML (an `.xml` that is not a score says so).
    static func isMusicXMLPath(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".musicxml") || lower.hasSuffix(".mxl") || lower.hasSuffix(".xml")
    }

    /// A MusicXML score (text or .mxl) as a lesson file; its warnings come back as
    /// `MIDIWarning`s (no byte offset, `line N:` in the text).
    static func readMusicXML(_ path: String, strict: Bool) throws -> MIDIReadResult {
        let bytes = try readBytes(path)
        let shown = TextDecoding.sanitize(path)
        if path.lowercased().hasSuffix(".xml"), !MusicXMLImport.isMusicXML(bytes) {
            let root = MusicXMLImport.rootElement(of: bytes).map { " (its root element is <\(TextDecoding.sanitize(String($0.prefix(40))))>)" } ?? ""
            throw EtudeFailure("\(shown): not a MusicXML score\(root); Etude reads .xml files that are MusicXML")
        }
        do {
            let imported = try MusicXMLImport.midiFile(fromBytes: bytes, strict: strict)
            return MIDIReadResult(file: imported.file, warnings: imported.warnings.map { MIDIWarning(offset: nil, message: $0.description) })
        } catch {
            let place = error.line > 0 ? ":" : ": "
            throw EtudeFailure("\(shown)\(place)\(error.oneLine)")
        }
    }
}
