@testable import Devices
import Foundation
import LessonLibrary
import Listening
import MIDIInput
import Testing
import TestSupport

/// The set-up `etude calibrate --input audio` stores, read back for live listening: the room's
/// spectrum with it (issue 41), as 32-bit floats, at the rate it was measured at.
@Suite struct AudioSetupRoomTests {
    @Test func theRoomsSpectrumIsStoredAndListenedWith() throws {
        let dir = try TempDir()
        let library = Library(databaseOverride: dir.file("etude.sqlite"))
        let magnitudes = (0..<4_096).map { 0.02 / Double(1 + $0) + 1e-5 }
        let room = try #require(RoomSpectrum(sampleRate: 44_100, magnitudes: magnitudes))
        let measured = ListeningProfile(noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2, roomSpectrum: room)
        try AudioSetup.save(measured, device: "audio:etude_mic.monitor", library: library)
        let heard = try #require(AudioSetup.profile(input: .audio(source: "etude_mic.monitor"), library: library))
        let stored = try #require(heard.roomSpectrum)
        #expect(stored.sampleRate == 44_100 && stored.magnitudes.count == 4_096)
        for (a, b) in zip(stored.magnitudes, magnitudes) { #expect(abs(a - b) <= b * 1e-6) }
        #expect(heard.noiseFloor == 0.001)
        // A set-up measured without one (or stored before it was) listens on the room's level.
        try AudioSetup.save(ListeningProfile(noiseFloor: 0.002), device: "audio", library: library)
        let older = try #require(AudioSetup.profile(input: .audio(source: nil), library: library))
        #expect(older.roomSpectrum == nil && older.noiseFloor == 0.002)
    }
}
