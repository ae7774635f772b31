import Foundation
import MIDIFile

/// Reading a lesson file from disk, turning every failure into one line that names the file.
enum LessonFile {
    static func readBytes(_ path: String) throws -> [UInt8] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw EtudeFailure("\(path): no such file")
        }
        guard !isDir.boolValue else {
            throw EtudeFailure("\(path): is a directory, not a MIDI file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EtudeFailure("\(path): cannot be read (check its permissions)")
        }
        return [UInt8](data)
    }

    /// Reads and parses a MIDI file; a fatal parse error becomes `etude: FILE: message`.
    static func readMIDI(_ path: String, strict: Bool = false) throws -> MIDIReadResult {
        let bytes = try readBytes(path)
        do {
            return try MIDIReader.read(bytes, strict: strict)
        } catch {
            throw EtudeFailure("\(path): \(error.message)")
        }
    }
}
