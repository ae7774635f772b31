import Foundation
import Testing
import TestSupport

/// `--input audio:alsa:DEVICE`: an ALSA capture device through libasound's PCM API, with no sound
/// card: the user's ALSA configuration defines a `file` PCM whose `infile` is a rendered
/// calibration performance (another piano, a room), over a `null` slave.
@Suite(.serialized) struct ListeningALSATests {
    @Test(.enabled(if: Tools.otherPiano.available, Tools.otherPiano.reason), .enabled(if: Tools.sox.available, Tools.sox.reason),
          .enabled(if: Tools.fluidsynth.available, Tools.fluidsynth.reason))
    func theSetUpHeardFromAnALSADeviceIsStored() throws {
        let dir = try TempDir("etude-listen-alsa")
        let wav = try #require(try ListeningSetupTests.calibrationPerformance(in: dir))
        let raw = dir.file("setup.raw")
        #expect(try ProcessRunner.run(Tools.sox.path ?? "", [wav, "-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "1", raw]).status == 0)
        let user = try Etude()
        let config = try #require(user.environment["ALSA_CONFIG_PATH"])
        try """
            pcm.etudetest {
                type file
                slave.pcm { type null }
                file "/dev/null"
                infile "\(raw)"
                format raw
            }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try user.run(["calibrate", "--input", "audio:alsa:etudetest"], timeout: 60)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        for key in ["C2", "C3", "C4", "C5", "C6"] { #expect(r.stdout.contains("heard \(key) at "), "\(key): \(r.stdout)") }
        #expect(r.stdout.contains("stored for microphone alsa:etudetest: room "), "\(r.stdout)")
        let shown = try user.run(["calibrate", "--show"])
        #expect(shown.stdout.contains("microphone alsa:etudetest") && shown.stdout.contains("5 keys"), "\(shown.stdout)")
    }

    @Test func anALSADeviceThatIsNotThereIsOneLine() throws {
        let r = try Etude().run(["calibrate", "--input", "audio:alsa:nosuchdevice"])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("cannot listen to ALSA device nosuchdevice") && r.stderr.contains("arecord -L"),
                "\(r.stderr)")
    }
}
