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
            try db.execute(sql: "INSERT INTO audioCalibration VALUES ('audio:bad', 1e300, 0.1, 0.2, '{}', 5, '2026-01-01 00:00:00')")
        }
        #expect(try Store.open(path: path).audioCalibrations().map(\.device) == ["audio"])
        #expect(try Store.open(path: path).audioCalibration(device: "audio:bad") == nil)
    }
}
