import Listening
import Testing
@testable import MIDIInput

/// Live listening (`--input audio`) takes the room's noise off bin by bin when the set-up
/// measured it (issue 41), and a set-up stored before it was still listens on its level alone.
@Suite struct AudioInputListenerTests {
    @Test func theSetUpsRoomIsTakenOffLive() throws {
        let room = try #require(RoomSpectrum(sampleRate: 44_100, magnitudes: (0..<4_096).map { 0.01 * Double($0 % 7) }))
        let profile = ListeningProfile(noiseFloor: 0.001, playedLevel: 0.05, latency: 0.2, roomSpectrum: room)
        let listener = AudioInput.listener(sampleRate: 48_000, profile: profile)
        #expect(listener.profile == profile)
        // At the stream's rate: the room's magnitudes by frequency.
        #expect(listener.roomNoise == room.magnitudes(at: 48_000, bins: 4_096))
        let older = AudioInput.listener(sampleRate: 48_000, profile: ListeningProfile(noiseFloor: 0.001))
        #expect(older.roomNoise == nil && older.profile.isMeasured)
    }
}
