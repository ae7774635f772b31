import Foundation
import GRDB
import Store
import Testing
import TestSupport

/// The PulseAudio buffer learned per output device (migration v12-audio-buffer): nothing until
/// learned, the latest wins, kept across opening the file again, devices apart, and a damaged
/// row read as nothing learned.
@Suite struct AudioBufferTests {
    @Test func whatADeviceTaughtIsKeptPerDeviceAcrossOpenings() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let store = try Store.open(path: path)
        #expect(try store.audioBuffer(device: "alsa_output.usb") == nil)
        try store.saveAudioBuffer(LearnedAudioBuffer(milliseconds: 40, floor: nil), device: "alsa_output.usb")
        try store.saveAudioBuffer(LearnedAudioBuffer(milliseconds: 12, floor: 10), device: "alsa_output.usb")
        try store.saveAudioBuffer(LearnedAudioBuffer(milliseconds: 25, floor: 20), device: "bluez_sink.headphones")
        let again = try Store.open(path: path)
        let usb = try #require(try again.audioBuffer(device: "alsa_output.usb"))
        #expect(usb.milliseconds == 12 && usb.floor == 10)
        let phones = try #require(try again.audioBuffer(device: "bluez_sink.headphones"))
        #expect(phones.milliseconds == 25 && phones.floor == 20)
        #expect(throws: StoreError.self) { try again.saveAudioBuffer(LearnedAudioBuffer(milliseconds: 12, floor: nil), device: "") }
        #expect(throws: StoreError.self) { try again.saveAudioBuffer(LearnedAudioBuffer(milliseconds: .nan, floor: nil), device: "x") }
    }

    @Test func aDamagedRowIsNothingLearned() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        _ = try Store.open(path: path)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO audioBuffer VALUES ('bad', 'garbage', 'x', 'never')")
            try db.execute(sql: "INSERT INTO audioBuffer VALUES ('inf', 1e999, NULL, 'never')")
        }
        let store = try Store.open(path: path)
        #expect(try store.audioBuffer(device: "bad") == nil)
        #expect(try store.audioBuffer(device: "inf") == nil)
    }
}
