import Foundation
import Synth
import TestSupport

/// Paths shared by the Synth tests (`TestSong` and `Signal` are in TestSupport).
enum TestEnv {
    /// The SoundFont every test renders with (the same one the CLI would pick).
    static func soundFont() throws -> String {
        try SoundFontLocator(explicit: nil, repositoryRoots: [Repo.root.path]).locate()
    }

    static func tempDir() -> String {
        let dir = NSTemporaryDirectory() + "etude-synth-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func remove(_ dir: String) {
        try? FileManager.default.removeItem(atPath: dir)
    }
}
