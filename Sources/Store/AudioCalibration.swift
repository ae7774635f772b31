import Foundation
import GRDB

/// A microphone's set-up as `etude calibrate --input audio` measured it for one source: the
/// room's noise, how loud the piano was played, the detection latency and the piano's partial
/// profiles (JSON, as the listener encodes them; the Store does not read them).
public struct AudioCalibration: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "audioCalibration"
    /// The source as Etude names it: `audio` (the default source) or `audio:NAME`.
    public var device: String
    /// RMS, full scale = 1.
    public var noiseFloor: Double
    public var playedLevel: Double
    /// Seconds from a key's sound to the listener's decision.
    public var latency: Double
    /// The partial profiles as JSON.
    public var templates: String
    /// Keys measured.
    public var keys: Int
    public var calibratedAt: Date
    /// The room's noise bin by bin (little-endian 32-bit floats, as the listener encodes them;
    /// the Store checks only their size) and the rate it was measured at: nil in a set-up stored
    /// before the calibration measured it, or one whose figures are damaged (then the room's
    /// level alone applies, as before).
    public var roomSpectrum: Data?
    public var roomSampleRate: Int?

    /// The most a room's spectrum holds: 4,096 bins (half the listener's pitch window) of 4 bytes.
    public static let roomSpectrumBytes = 4 * 4_096

    public init(device: String, noiseFloor: Double, playedLevel: Double, latency: Double, templates: String, keys: Int,
                calibratedAt: Date = Date(), roomSpectrum: Data? = nil, roomSampleRate: Int? = nil) {
        self.device = device
        self.noiseFloor = noiseFloor
        self.playedLevel = playedLevel
        self.latency = latency
        self.templates = templates
        self.keys = keys
        self.calibratedAt = calibratedAt
        self.roomSpectrum = roomSpectrum
        self.roomSampleRate = roomSampleRate
    }

    /// Decoded with `try`, refusing figures no calibration stores (a damaged file): such a row
    /// is skipped (`DamagedRows`), never listened with.
    public init(row: Row) throws {
        device = try row.decode(forColumn: "device")
        noiseFloor = try row.decode(forColumn: "noiseFloor")
        playedLevel = try row.decode(forColumn: "playedLevel")
        latency = try row.decode(forColumn: "latency")
        templates = try row.decode(forColumn: "templates")
        keys = try row.decode(forColumn: "keys")
        calibratedAt = try row.decode(forColumn: "calibratedAt")
        guard Self.valid(noiseFloor: noiseFloor, playedLevel: playedLevel, latency: latency), (0...128).contains(keys) else {
            throw StoreError("\(device): noise \(noiseFloor), level \(playedLevel), latency \(latency) are out of range")
        }
        // A spectrum no calibration stores is left out; the rest of the set-up still applies.
        let spectrum = (try? row.decode(Data?.self, forColumn: "roomSpectrum")) ?? nil
        let rate = (try? row.decode(Int?.self, forColumn: "roomSampleRate")) ?? nil
        if let spectrum, let rate, Self.valid(roomSpectrum: spectrum, sampleRate: rate) {
            roomSpectrum = spectrum
            roomSampleRate = rate
        }
    }

    /// A room's spectrum is whole 4-byte floats, at most `roomSpectrumBytes`, at a stream's rate.
    static func valid(roomSpectrum: Data, sampleRate: Int) -> Bool {
        !roomSpectrum.isEmpty && roomSpectrum.count <= roomSpectrumBytes && roomSpectrum.count % 4 == 0 && (8_000...384_000).contains(sampleRate)
    }

    /// Levels are RMS of full scale (0…1], the latency under ten seconds.
    static func valid(noiseFloor: Double, playedLevel: Double, latency: Double) -> Bool {
        (0...1).contains(noiseFloor) && (0...1).contains(playedLevel) && (0...10).contains(latency)
    }
}

/// Microphone set-ups per source.
extension Store {
    /// The set-up stored for a source (nil when it was never calibrated).
    public func audioCalibration(device: String) throws -> AudioCalibration? {
        try writer.read { db in try AudioCalibration.fetchOneDecodable(db, key: device) }
    }

    /// Every stored set-up, by source.
    public func audioCalibrations() throws -> [AudioCalibration] {
        try writer.read { db in try AudioCalibration.fetchDecodable(db, AudioCalibration.order(Column("device"))) }
    }

    /// Stores (or replaces) a source's set-up.
    public func saveAudioCalibration(_ calibration: AudioCalibration) throws {
        guard !calibration.device.isEmpty,
              AudioCalibration.valid(noiseFloor: calibration.noiseFloor, playedLevel: calibration.playedLevel, latency: calibration.latency),
              (calibration.roomSpectrum == nil) == (calibration.roomSampleRate == nil),
              calibration.roomSpectrum.map({ AudioCalibration.valid(roomSpectrum: $0, sampleRate: calibration.roomSampleRate ?? 0) }) ?? true else {
            throw StoreError("a microphone set-up needs a source name and levels within full scale")
        }
        try writer.write { db in try calibration.save(db) }
    }

    /// Forgets a source's set-up; false when none was stored.
    @discardableResult
    public func deleteAudioCalibration(device: String) throws -> Bool {
        try writer.write { db in try AudioCalibration.deleteOne(db, key: device) }
    }
}
