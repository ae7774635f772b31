import Foundation
import GRDB
import Store
import Testing
import TestSupport

/// A microphone's set-up per source (migration v11-audio-calibration): stored, replaced, listed,
/// forgotten; figures no calibration makes are refused on the way in and skipped on the way out.
@Suite struct AudioCalibrationTests {
    @Test func aSetUpIsKeptPerSourceAcrossOpenings() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let store = try Store.open(path: path)
        #expect(try store.audioCalibration(device: "audio") == nil)
        try store.saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2, templates: "{\"keys\":[]}", keys: 0))
        try store.saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.0002, playedLevel: 0.1, latency: 0.19, templates: "{\"keys\":[]}", keys: 5))
        try store.saveAudioCalibration(AudioCalibration(device: "audio:jack", noiseFloor: 0.0003, playedLevel: 0.08, latency: 0.21, templates: "{}", keys: 5))
        let again = try Store.open(path: path)
        #expect(try again.audioCalibration(device: "audio")?.noiseFloor == 0.0002)
        #expect(try again.audioCalibrations().map(\.device) == ["audio", "audio:jack"])
        #expect(throws: StoreError.self) {
            try again.saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: .infinity, playedLevel: 0.1, latency: 0.2, templates: "", keys: 5))
        }
        #expect(try again.deleteAudioCalibration(device: "audio:jack"))
        #expect(try !again.deleteAudioCalibration(device: "audio:jack"))
    }

    @Test func aDamagedRowIsSkipped() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let store = try Store.open(path: path)
        try store.saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2, templates: "{}", keys: 5))
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO audioCalibration (device, noiseFloor, playedLevel, latency, templates, keys, calibratedAt)
                VALUES ('audio:bad', 1e300, 0.1, 0.2, '{}', 5, '2026-01-01 00:00:00')
                """)
        }
        #expect(try Store.open(path: path).audioCalibrations().map(\.device) == ["audio"])
        #expect(try Store.open(path: path).audioCalibration(device: "audio:bad") == nil)
    }

    /// The room's spectrum is kept with the set-up (migration v17-audio-room-spectrum), replaced
    /// with it, and a set-up saved without one reads none.
    @Test func theRoomsSpectrumIsKeptWithTheSetUp() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let spectrum = Data((0..<4 * 4_096).map { UInt8($0 % 251) })
        try Store.open(path: path).saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2,
                                                                         templates: "{}", keys: 5, roomSpectrum: spectrum, roomSampleRate: 44_100))
        let stored = try #require(try Store.open(path: path).audioCalibration(device: "audio"))
        #expect(stored.roomSpectrum == spectrum && stored.roomSampleRate == 44_100)
        // Calibrated again without it: none is left from before.
        try Store.open(path: path).saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.002, playedLevel: 0.05, latency: 0.2,
                                                                         templates: "{}", keys: 5))
        let again = try #require(try Store.open(path: path).audioCalibration(device: "audio"))
        #expect(again.roomSpectrum == nil && again.roomSampleRate == nil && again.noiseFloor == 0.002)
        // Figures no calibration stores are refused on the way in: a part of a float, more bins
        // than a window has, a spectrum without its rate, a rate no stream runs at.
        for (bytes, rate) in [(Data([1, 2, 3]), 48_000), (Data(count: 4 * 4_097), 48_000), (Data(count: 8), 0), (Data(count: 8), 100)] as [(Data, Int)] {
            #expect(throws: StoreError.self) {
                try Store.open(path: path).saveAudioCalibration(AudioCalibration(device: "audio", noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2,
                                                                                 templates: "{}", keys: 5, roomSpectrum: bytes,
                                                                                 roomSampleRate: rate == 0 ? nil : rate))
            }
        }
    }

    /// A set-up stored before the spectrum was measured (at v16) upgrades and reads as before,
    /// with none; one whose spectrum is damaged keeps the rest of its set-up.
    @Test func anOlderSetUpKeepsWorkingWithoutASpectrum() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        do {
            let old = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(old, upTo: "v16-pass-totals")
            try old.write { db in
                try db.execute(sql: "INSERT INTO audioCalibration VALUES ('audio', 0.001, 0.05, 0.2, '{}', 5, '2026-01-01 00:00:00')")
            }
            try old.close()
        }
        let store = try Store.open(path: path)
        #expect(try store.schemaVersion() == Schema.versions.last)
        let older = try #require(try store.audioCalibration(device: "audio"))
        #expect(older.noiseFloor == 0.001 && older.keys == 5 && older.roomSpectrum == nil && older.roomSampleRate == nil)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                INSERT INTO audioCalibration (device, noiseFloor, playedLevel, latency, templates, keys, calibratedAt, roomSpectrum, roomSampleRate)
                VALUES ('audio:odd', 0.001, 0.05, 0.2, '{}', 5, '2026-01-01 00:00:00', x'010203', 48000)
                """)
        }
        let odd = try #require(try Store.open(path: path).audioCalibration(device: "audio:odd"))
        #expect(odd.noiseFloor == 0.001 && odd.roomSpectrum == nil && odd.roomSampleRate == nil)
    }
}
