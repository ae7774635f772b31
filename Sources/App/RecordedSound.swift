import RecordingAudio
import Reports
import Synth

/// A recording `etude judge` listens to, read a block at a time whatever its format: a learner's
/// phone or recorder gives FLAC, Ogg, Opus or MP3 as often as WAV, and `--recording` already
/// plays them all. A WAV is read by Etude's own reader (RF64, a file cut off part way, its size
/// checked before a sample is read); anything else through libsndfile.
protocol RecordedSound {
    var sampleRate: Int { get }
    var frameCount: Int { get }
    /// The seconds its header promised when the file holds fewer (cut off part way), else nil.
    var promisedSeconds: Double? { get }
    /// Each block's channels apart, from the start; `body` returns false to stop.
    func forEachBlock(frames: Int, _ body: ([[Float]]) -> Bool) throws(EtudeFailure)
}

extension RecordedSound {
    var seconds: Double { Double(frameCount) / Double(sampleRate) }

    /// The same blocks mixed to mono.
    func forEachMonoBlock(frames: Int, _ body: ([Float]) -> Bool) throws(EtudeFailure) {
        try forEachBlock(frames: frames) { channels in
            guard let first = channels.first else { return body([]) }
            guard channels.count > 1 else { return body(first) }
            let scale = 1 / Float(channels.count)
            var mono = first
            for c in channels.dropFirst() { for i in mono.indices where i < c.count { mono[i] += c[i] } }
            for i in mono.indices { mono[i] *= scale }
            return body(mono)
        }
    }
}

/// Opens `path` as a recording: one line naming the file and what is wrong when it cannot be.
func openRecordedSound(path: String, name: String) throws -> any RecordedSound {
    if HeardPerformance.isWAV(path: path) {
        do {
            return WAVRecordedSound(wav: try WAVSamples(path: path), name: name)
        } catch {
            throw EtudeFailure("\(name) is not a WAV recording Etude can read (\(error.message)); give a 16-bit, 24-bit or float PCM .wav, or a FLAC, Ogg, Opus or MP3 file")
        }
    }
    do {
        return LibsndfileRecordedSound(file: try RecordingFile(path: path), name: name)
    } catch {
        throw EtudeFailure("\(name): \(safe(error.message))")
    }
}

struct WAVRecordedSound: RecordedSound {
    let wav: WAVSamples
    let name: String
    var sampleRate: Int { wav.header.sampleRate }
    var frameCount: Int { wav.header.frameCount }
    var promisedSeconds: Double? {
        wav.header.promisedDataBytes.map { Double($0 / wav.header.bytesPerFrame) / Double(wav.header.sampleRate) }
    }

    func forEachBlock(frames: Int, _ body: ([[Float]]) -> Bool) throws(EtudeFailure) {
        do { try wav.forEachBlock(frames: frames, body) } catch { throw EtudeFailure("\(name) cannot be read: \(error.message); copy it again") }
    }
}

struct LibsndfileRecordedSound: RecordedSound {
    let file: RecordingFile
    let name: String
    var sampleRate: Int { file.sampleRate }
    var frameCount: Int { file.frames }
    var promisedSeconds: Double? { nil }

    func forEachBlock(frames: Int, _ body: ([[Float]]) -> Bool) throws(EtudeFailure) {
        let ch = file.channels
        var pending = [[Float]](repeating: [], count: ch)
        struct Enough: Error {}
        var going = true
        do {
            try file.read { block, n in
                for f in 0..<n { for c in 0..<ch { pending[c].append(block[f * ch + c]) } }
                while pending[0].count >= frames {
                    going = body(pending.map { Array($0.prefix(frames)) })
                    for c in 0..<ch { pending[c].removeFirst(frames) }
                    guard going else { throw Enough() }
                }
            }
        } catch is Enough {
            return
        } catch {
            let why = safe((error as? RecordingError)?.message ?? "\(error)")
            throw EtudeFailure("\(name) is \(why); copy or export it again, or convert the part that plays (e.g. with ffmpeg)")
        }
        if going, !pending[0].isEmpty { _ = body(pending) }
    }
}
