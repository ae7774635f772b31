import Foundation
import GRDB

/// The learner's instrument, chosen once (`etude setup`, the browser's settings): the input
/// (`--input` as typed) and how the lesson reaches it. Every command that plays along uses it
/// unless told otherwise; without one the learner keeps the computer keyboard. The echo is
/// not here: it is remembered per device (`inputEcho`), asked the first time.
public struct InstrumentSetup: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "instrumentSetup"
    public var id: Int = 1
    /// `keys`, `jack:PORT`, `midi:NAME`, `audio`, a device path: as `--input` takes it.
    public var input: String
    /// `--sound`: synth, instrument or both; nil for the default.
    public var sound: String?
    /// `--midi-out PORT`; nil for none.
    public var midiOut: String?
    /// `--lights` channel 1–16; nil for none.
    public var lights: Int?
    /// `--gestures` as typed (on, off, NAME=KEY,…); nil for off.
    public var gestures: String?
    public var updatedAt: Date

    public init(input: String, sound: String? = nil, midiOut: String? = nil, lights: Int? = nil, gestures: String? = nil,
                updatedAt: Date = Date()) {
        self.input = input
        self.sound = sound
        self.midiOut = midiOut
        self.lights = lights
        self.gestures = gestures
        self.updatedAt = updatedAt
    }
}

extension Store {
    /// The instrument set up, nil when none was (the computer keyboard).
    public func instrumentSetup() throws -> InstrumentSetup? {
        try writer.read { db in try InstrumentSetup.fetchOneDecodable(db, key: 1) }
    }

    /// Stores the instrument; nil forgets it (back to the computer keyboard).
    public func saveInstrumentSetup(_ setup: InstrumentSetup?) throws {
        try writer.write { db in
            if var setup {
                setup.id = 1
                try setup.save(db)
            } else {
                _ = try InstrumentSetup.deleteOne(db, key: 1)
            }
        }
    }

    /// Whether the learner asked to hear their own part on this lesson (`--guide`); nil when
    /// they never said (off).
    public func guide(lessonID: String) throws -> Bool? {
        try remembered(.guide, lessonID: lessonID)
    }

    /// Remembers the guide for a lesson.
    public func saveGuide(_ on: Bool, lessonID: String) throws {
        try remember(.guide, lessonID: lessonID, on)
    }
}
