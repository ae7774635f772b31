import Foundation

/// A note heard at the microphone: the key, when its onset was (seconds from the first sample
/// pushed), and how strongly it sounded — what Judge needs from an acoustic piano.
public struct HeardNote: Equatable, Sendable {
    public var pitch: Int
    public var time: Double
    /// Harmonic salience of the note at its onset, relative to the background (≥ 1).
    public var strength: Double
    /// True when the score expected this key at that moment (it met the lower threshold).
    public var wasExpected: Bool

    public init(pitch: Int, time: Double, strength: Double, wasExpected: Bool) {
        self.pitch = pitch
        self.time = time
        self.strength = strength
        self.wasExpected = wasExpected
    }
}

/// What the listener can say about the signal itself, so the screen can say "too quiet" rather
/// than score misses it could not hear.
public enum SignalState: String, Equatable, Sendable, Codable {
    case ok
    case silent
    case tooQuiet = "too quiet"
    case clipped
    case noisy = "too noisy"
}

/// How the detector is tuned for one piano in one room (`etude calibrate --input audio`).
/// The defaults suit a close microphone in a quiet room; calibration measures the rest.
public struct ListeningProfile: Equatable, Sendable, Codable {
    /// RMS of the room with nobody playing (full scale = 1); 0 when not measured (then no
    /// threshold follows the room: the detector's own adaptive ones apply alone).
    public var noiseFloor: Double
    /// Median RMS of a played note just after its onset.
    public var playedLevel: Double
    /// Seconds from a key's sound to the listener's decision (for the judge's offset).
    public var latency: Double

    /// The piano's partial profiles (nil until calibrated).
    public var templates: PartialTemplates?

    /// The room's noise bin by bin, measured with `noiseFloor` (nil: not measured, or a set-up
    /// stored before it was): live listening takes it off every spectrum (`NoteListener.hearRoom(_:)`).
    public var roomSpectrum: RoomSpectrum?

    /// True once `etude calibrate --input audio` measured this room.
    public var isMeasured: Bool { noiseFloor > 0 }

    /// The RMS a played note must reach to be heard at all: 6 dB above the measured room.
    public var noteGate: Double { noiseFloor * 2 }

    /// The loudest 10 ms of a few seconds in which something sounded, below which the piano is
    /// too quiet to judge: 20 dB under how it was played at calibration (and 10 dB over the
    /// room), or −54 dBFS uncalibrated.
    public var tooQuietLevel: Double { isMeasured ? max(playedLevel / 10, noiseFloor * 3) : 0.002 }

    public init(noiseFloor: Double = 0, playedLevel: Double = 0.05, latency: Double = 0.2, templates: PartialTemplates? = nil,
                roomSpectrum: RoomSpectrum? = nil) {
        self.noiseFloor = noiseFloor
        self.playedLevel = playedLevel
        self.latency = latency
        self.templates = templates
        self.roomSpectrum = roomSpectrum
    }
}

/// Score-informed note detection from a mono stream: onsets by spectral flux (Bello et al.
/// 2005), then, at each onset, which keys began to sound, by iterative harmonic-sum estimation
/// with spectral-smoothness cancellation (Klapuri 2006) over the spectrum that is *new* since
/// just before the onset, so notes still ringing are not heard again. The score's expected keys
/// are accepted at a lower threshold than others, which is where knowing the lesson helps.
/// docs/LISTENING.md says why this method and what it cannot do.
///
/// Owned by one thread (the capture thread or an offline loop): push samples, read notes.
public final class NoteListener {
    public let sampleRate: Int
    public var profile: ListeningProfile
    /// The keys the lesson expects at a moment (seconds on the listener's timeline): the awaited
    /// chord in wait mode, the notes due around then in play mode; empty when nothing is known.
    public var expectedAt: (Double) -> Set<Int> = { _ in [] }
    /// Of those keys, the ones already heard for the note due then (a judge that counts the
    /// score's notes knows; live, none): such a key heard again is taken for what still rings,
    /// as a key not expected is, unless it was struck again.
    public var alreadyHeardAt: (Double) -> Set<Int> = { _ in [] }
    /// The same keys, each with the seconds from that moment to its nearest due time (negative:
    /// due before it); nil when only `expectedAt` is known (then each of its keys counts as due
    /// now). A key due now counts more than one due 300 ms later: after a hard bass note, its
    /// octave the score wants a beat on is that note's sound, not the later key played early
    /// (issue 41). Set beside `expectedAt` (the same keys), which it refines.
    public var dueAt: ((Double) -> [Int: Double])?
    /// Seconds from its due time within which an expected key is due now (`dueAt`): the judge's
    /// on-time band and more, under the shortest gap between a fast melody's notes.
    static let dueNow = ProcessInfo.processInfo.environment["LISTEN_DUE_NOW"].flatMap(Double.init) ?? 0.1
    /// Seconds after a key was heard within which a key the score wants only later, wholly on
    /// its partials, is that key's sound still growing (a hard bass note's octave, 150 ms on).
    static let grownLater = ProcessInfo.processInfo.environment["LISTEN_GROWN_LATER"].flatMap(Double.init) ?? 0.25

    /// The keys expected at `time`, those of them due now (all of them without due times: no
    /// `dueAt`, or it knows none then), and whether the due times are known.
    func expectation(_ time: Double) -> (keys: Set<Int>, now: Set<Int>, timed: Bool) {
        let keys = expectedAt(time)
        guard let due = dueAt?(time), !due.isEmpty else { return (keys, keys, false) }
        return (keys, keys.filter { due[$0].map { abs($0) <= Self.dueNow } ?? true }, true)
    }
    /// The keys something other than the learner began at a moment (Etude's own sound in the
    /// room): cancelled before the learner's notes are looked for, never reported.
    /// Each with the seconds between its start and that moment.
    public var othersAt: (Double) -> [Int: Double] = { _ in [:] }

    /// Onset frames: short for timing.
    let onsetFFT = FFT(size: 2048)
    /// Pitch frames: long for resolution in the bass.
    let pitchFFT = FFT(size: 8192)
    let hop: Int

    private var buffer: [Float] = []
    /// Absolute sample index of `buffer[0]`.
    private var bufferStart = 0
    private var samplesSeen = 0
    private var nextFrame = 0
    private var previous: [Double]?
    private var odf: [Double] = []
    /// Per `odf` value: whether its window held any sound (not digital silence).
    private var odfSounding: [Bool] = []
    private var odfStart = 0
    private var lastOnsetFrame = -1_000
    private var pending: [(frame: Int, strength: Double)] = []
    private var recentRMS: [Double] = []
    private var lastHeard: [Int: (time: Double, strength: Double)] = [:]
    /// The last onset that heard two keys or more: when, what the score expected then, what was heard.
    private var lastChord: (time: Double, expected: Set<Int>, heard: Set<Int>)?
    private var clippedSamples = 0
    /// How strong the last notes heard were (the learner's playing, for `HarmonicEstimator.notes`).
    private var recentStrengths: [Double] = []
    /// Each key's even-to-odd partial ratio the last times it was heard with no octave over it
    /// (`octavesStruck`): what its own sound gives its even partials, on this piano in this room.
    private var aloneRatios: [Int: [Double]] = [:]
    private var lastClipSample = -1_000_000
    /// Keys per onset when the score expects fewer than four: a chord of four and a wrong extra
    /// key. When it expects more (up to ten), that many and one more.
    public var maxNotesPerOnset = 5
    /// Whether expected keys the one-at-a-time search missed are looked for by a fit of all the
    /// expected keys and their neighbours at once (`HarmonicEstimator.rescued`).
    public var rescue = ProcessInfo.processInfo.environment["LISTEN_NO_RESCUE"] == nil

    /// The highest frequency the recording holds (Hz; nil: half the sample rate): a recording
    /// made below 22 kHz and heard at 48 kHz has nothing above its own half rate but images.
    public var bandLimit: Double?

    /// The room's noise in the pitch window, bin by bin (the mean magnitude over a stretch where
    /// nobody played; nil: not measured): taken off every spectrum before keys are looked for, so
    /// a bass key is not heard in the noise's low bins nor a soft note lost under a background
    /// averaged over the whole band (`hearRoom`).
    public private(set) var roomNoise: [Double]?

    /// Sees each onset's spectrum before the decision (calibration measures partials with it).
    var onOnset: ((Double, HarmonicEstimator) -> Void)?
    let debugODF = ProcessInfo.processInfo.environment["LISTEN_ODF"] != nil
    public init(sampleRate: Int, profile: ListeningProfile = ListeningProfile()) {
        self.sampleRate = max(8_000, sampleRate)
        self.profile = profile
        hop = max(1, self.sampleRate / 100)
    }

    /// How many times its mean magnitude each bin's noise is taken off: a noise bin's magnitude
    /// scatters (Rayleigh) about its mean, and a partial's peak is the largest of a few bins.
    static let noiseMargin = ProcessInfo.processInfo.environment["LISTEN_NOISE_MARGIN"].flatMap(Double.init) ?? 2.0

    /// Measures the room's noise from samples where nobody played (a recording's first quiet
    /// second, at this listener's rate): each pitch-window bin's mean magnitude over windows a
    /// quarter apart. Fewer samples than one window measure nothing.
    public func hearRoom(_ quiet: [Float]) {
        let size = pitchFFT.size
        guard quiet.count >= size else { return }
        var sum = [Double](repeating: 0, count: size / 2)
        var frames = 0
        var start = 0
        while start + size <= quiet.count {
            let mags = pitchFFT.magnitudes(quiet, start: start)
            for k in 0..<min(sum.count, mags.count) { sum[k] += mags[k] }
            frames += 1
            start += size / 4
        }
        roomNoise = sum.map { $0 / Double(frames) }
    }

    /// Seconds of audio pushed so far.
    public var seconds: Double { Double(samplesSeen) / Double(sampleRate) }

    /// The signal over the last seconds, for the header: clipped in the last second; too noisy
    /// when the quietest 10 ms of the last second is near a played note's level (and, calibrated,
    /// 20 dB over the room measured); too quiet when something sounded in the last three seconds
    /// (an attack 10 dB over the quietest moment) but never reached `tooQuietLevel`.
    public var signal: SignalState {
        if samplesSeen - lastClipSample < sampleRate { return .clipped }
        guard !recentRMS.isEmpty else { return .silent }
        let lastSecond = recentRMS.suffix(100)
        let loud = recentRMS.max() ?? 0
        let quiet = lastSecond.min() ?? 0
        let quietest = recentRMS.min() ?? 0
        if loud < 1e-5 { return .silent }
        if quiet > max(profile.playedLevel * 0.5, 0.02) && (!profile.isMeasured || quiet > profile.noiseFloor * 10) { return .noisy }
        if loud < profile.tooQuietLevel && loud > quietest * 3 { return .tooQuiet }
        return .ok
    }

    /// Appends mono samples (−1…1) and returns the notes decided since the last call, in time
    /// order. Decisions lag the sound by about 120 ms (the pitch window after the onset).
    public func push(_ samples: [Float]) -> [HeardNote] {
        buffer.append(contentsOf: samples)
        for (i, s) in samples.enumerated() where abs(s) >= Self.clipLevel {
            clippedSamples += 1
            lastClipSample = samplesSeen + i
        }
        samplesSeen += samples.count
        var heard: [HeardNote] = []
        // Onset detection function, one value per hop, as far as the samples reach.
        while nextFrame * hop + onsetFFT.size <= samplesSeen {
            let start = nextFrame * hop
            let mags = onsetFFT.magnitudes(buffer, start: start - bufferStart)
            var rms = 0.0
            for j in 0..<onsetFFT.size {
                let v = Double(buffer[start - bufferStart + j])
                rms += v * v
            }
            rms = (rms / Double(onsetFFT.size)).squareRoot()
            recentRMS.append(rms)
            if recentRMS.count > 300 { recentRMS.removeFirst(recentRMS.count - 300) }
            let compressed = mags.map { log(1 + Self.compression * $0) }
            var flux = 0.0
            if let previous {
                // Up to ~6 kHz: above it a piano adds little but noise does.
                let top = min(compressed.count, Int(min(6_000, (bandLimit ?? 6_000) * 0.9)) * onsetFFT.size / sampleRate)
                for k in 1..<top { flux += max(0, compressed[k] - previous[k]) }
            }
            previous = compressed
            odf.append(flux)
            odfSounding.append(rms >= Self.digitalSilence)
            if debugODF { print(String(format: "odf %.3f %.1f", Double(nextFrame * hop + onsetFFT.size / 2) / Double(sampleRate), flux)) }
            nextFrame += 1
            pickPeak()
        }
        // Decide pitches for onsets whose pitch window is complete.
        // (Once an onset inside its pitch window would have been picked too: see `decide`.)
        while let first = pending.first, pitchWindowEnd(first.frame) + sampleRate / 20 <= samplesSeen {
            pending.removeFirst()
            heard += decide(onsetFrame: first.frame, strength: first.strength)
        }
        trim()
        return heard
    }

    /// Decides what is left (end of a recording): onsets whose pitch window runs past the end
    /// are analysed with silence after it.
    public func flush() -> [HeardNote] {
        var heard: [HeardNote] = []
        while let first = pending.first {
            pending.removeFirst()
            heard += decide(onsetFrame: first.frame, strength: first.strength)
        }
        return heard
    }

    /// A sample this near full scale is clipped: a converter, a resampler or a sound server
    /// between the microphone and Etude rounds the flat top a little below 1.
    static let clipLevel: Float = 0.98

    /// RMS under which an onset window is digital silence (−80 dBFS: under any microphone's
    /// own noise, above a 16-bit file's dither at −90 dBFS).
    static let digitalSilence = 1e-4

    /// Part of its last strength a key the score does not expect now, heard in the last two
    /// seconds, must come back with to be struck again rather than still ringing.
    static let ringingRatio = ProcessInfo.processInfo.environment["LISTEN_RINGING"].flatMap(Double.init) ?? 0.6

    /// Part of what sounds at a key's first partials that is new at an onset above which the key
    /// was struck again (`HarmonicEstimator.newness`): a key that only rings on shows 0.15–0.4.
    static let struckAgain = ProcessInfo.processInfo.environment["LISTEN_STRUCK"].flatMap(Double.init) ?? 0.55

    /// Seconds after an onset within which another hears the first one's keys growing: under
    /// the fastest run the listener follows (seven notes a second).
    static let sameSound = ProcessInfo.processInfo.environment["LISTEN_SAME_SOUND"].flatMap(Double.init) ?? 0.14

    /// Part new above which a key heard lately was struck again even when much weaker than it
    /// was (`HarmonicEstimator.newness`; what only rings shows 0.15–0.4).
    static let allNew = ProcessInfo.processInfo.environment["LISTEN_ALL_NEW"].flatMap(Double.init) ?? 0.75
    /// Salience over the background (× the room and what rings) of a key clearly struck: a hard
    /// bass note's stray partials show 5–8 at a key that rang a second before, a key struck again 35–60.
    static let clearNote = 15.0

    /// How much a key's partials must have risen since just before an onset (`HarmonicEstimator.rise`)
    /// to be struck again when nothing else was heard there: ringing falls (0.6–0.95 measured).
    static let risen = ProcessInfo.processInfo.environment["LISTEN_RISEN"].flatMap(Double.init) ?? 1.0

    /// λ of the log compression log(1 + λ|X|): small enough that noise stays near zero.
    static let compression = 1.0
    private static let lookahead = 2
    /// The rise over the recent median an onset needs while the score expects a key.
    static let dueRise = ProcessInfo.processInfo.environment["LISTEN_DUE"].flatMap(Double.init) ?? 1.25
    private static let history = 30

    /// Peak picking with a causal moving median plus a floor set by the room's noise: the frame
    /// `lookahead` frames back is an onset when it is the local maximum and stands above both.
    private func pickPeak() {
        let t = nextFrame - 1 - Self.lookahead
        guard t >= 1 else { return }
        let i = t - odfStart
        let value = odf[i]
        let lo = max(0, i - Self.lookahead), hi = i + Self.lookahead
        guard hi < odf.count else { return }
        for j in lo...hi where j != i && odf[j] > value { return }
        // Digital silence (a digital piano's own output between notes) says nothing about the
        // level a new onset must beat: counted in, its zeros held the median at 0 for the first
        // 100–300 ms of a note after it, so that note's own later flux was taken for a ghost
        // onset (which then stole the next note, timed early). Nor do the frames rising into
        // this very peak count.
        let pastFrames = max(0, i - Self.history)..<max(0, i - Self.lookahead)
        let past = pastFrames.filter { odfSounding[$0] }.map { odf[$0] }.sorted()
        let median = past.isEmpty ? 0 : past[past.count / 2]
        let floor = fluxFloor
        // No onset before the window just before it holds sound (the stream's first moments).
        // When the score expects a key now, a smaller rise counts: a key struck again while it
        // rings under the pedal adds little flux over what rings.
        // (Not for keys heard in the last quarter second: that is their own sound growing.)
        let now = Double(t * hop + onsetFFT.size / 2) / Double(sampleRate)
        let due = expectedAt(now).contains { key in lastHeard[key].map { now - $0.time > 0.25 } ?? true }
        let full = value > median * 1.5 + floor
        let givesWay = full && t - lastOnsetFrame < 10 && gaveWay(to: value)
        guard value > median * (due ? Self.dueRise : 1.5) + floor, t - lastOnsetFrame >= 10 || givesWay,
              t * hop + onsetFFT.size / 2 >= pitchFFT.size + sampleRate / 50 else { return }
        if givesWay { pending.removeLast() }
        lowerRiseOnset = full ? nil : (t, value)
        lastOnsetFrame = t
        pending.append((t, value / max(floor, 1e-9)))
    }

    /// The last onset, while it is the last, when only the lower rise a due key allows let it
    /// through: its frame and flux.
    private var lowerRiseOnset: (frame: Int, value: Double)?

    /// Whether an onset the lower rise let through, still pending, gives way to a stronger full
    /// onset within the 100 ms in which no other may be picked (`value`: the new peak's flux).
    /// Under the pedal with pink noise 20 dB under, one frame of the room's noise 130–140 ms
    /// after a note passed that lower rise, and the key then played 60–80 ms later, its own
    /// onset refused, was heard at it, early: a right note called wrong, a wrong key missed
    /// (issue 41). The key due is heard in the full onset's window instead.
    private func gaveWay(to value: Double) -> Bool {
        guard Self.giveWay, let weak = lowerRiseOnset, weak.frame == lastOnsetFrame, value > weak.value,
              pending.last?.frame == weak.frame else { return false }
        return true
    }

    /// Whether `gaveWay` applies (LISTEN_NO_GIVE_WAY: not, to measure without it).
    static let giveWay = ProcessInfo.processInfo.environment["LISTEN_NO_GIVE_WAY"] == nil

    /// What a new note's flux must exceed beyond 1.5 × the recent median (which follows the
    /// room's noise and the ringing of earlier notes): a quiet re-struck key still passes.
    private var fluxFloor: Double { 1.0 }

    private func pitchWindowStart(_ frame: Int) -> Int { frame * hop + onsetFFT.size / 2 + sampleRate / 100 }
    private func pitchWindowEnd(_ frame: Int) -> Int { pitchWindowStart(frame) + pitchFFT.size }

    private func trim() {
        // Keep what the oldest pending onset's "before" window and the next onset frame need.
        let oldestPending = pending.first.map { $0.frame * hop + onsetFFT.size / 2 - pitchFFT.size - sampleRate / 50 } ?? Int.max
        let keep = min(oldestPending, nextFrame * hop - pitchFFT.size - sampleRate / 50)
        if keep - bufferStart > sampleRate {
            let drop = keep - bufferStart
            buffer.removeFirst(drop)
            bufferStart += drop
        }
        if odf.count > 400 {
            let drop = odf.count - 200
            odf.removeFirst(drop)
            odfSounding.removeFirst(drop)
            odfStart += drop
        }
    }

    /// RMS of the buffered samples from absolute sample `start` for `seconds` (silence past the end).
    func rms(from start: Int, seconds: Double) -> Double {
        let count = max(1, Int(seconds * Double(sampleRate)))
        var sum = 0.0
        for i in start..<(start + count) {
            let j = i - bufferStart
            if j >= 0 && j < buffer.count { sum += Double(buffer[j]) * Double(buffer[j]) }
        }
        return (sum / Double(count)).squareRoot()
    }

    /// Whether a key found at an onset that the score does not expect, not heard in the last two
    /// seconds (what rings is judged above) and beside no expected key missing here (so not a
    /// wrong key played instead of it), is no key struck: its partials rose less than three times
    /// what the band did since just before the onset. A struck key's partials rise from nothing
    /// (8–35 times measured for wrong keys in the room); under the pedal the octave of the key
    /// just struck, fed by it and a ringing bass note's third partial (A4 over A3 and D3: 0.9),
    /// or a semitone beside a ringing key in the room's noise (A♯3 beside A3: 1.8) are not
    /// (issue 41: those were the pedalled Prelude's right notes called wrong).
    private func unstruck(_ pitch: Int, expected: Set<Int>, heard: [Int], estimator: HarmonicEstimator, time: Double) -> Bool {
        guard !expected.isEmpty, !expected.contains(pitch), lastHeard[pitch].map({ time - $0.time >= 2 }) ?? true,
              !expected.contains(where: { abs($0 - pitch) <= 2 && !heard.contains($0) }), let rise = estimator.rise(pitch) else { return false }
        return rise < max(1, estimator.bandRise ?? 1) * Self.struckRise
    }

    /// How many times the band's rise a key no one expected must have risen to be struck (`unstruck`).
    static let struckRise = ProcessInfo.processInfo.environment["LISTEN_STRUCK_RISE"].flatMap(Double.init) ?? 3.0

    /// Which keys began at this onset.
    private func decide(onsetFrame: Int, strength: Double) -> [HeardNote] {
        let attack = onsetFrame * hop + onsetFFT.size / 2
        // The pitch window ends before the next onset's attack (a run of 6–8 notes a second puts
        // the next note inside it, whose key was then heard here, early, and not at its own).
        var after: [Double]
        if let next = pending.first, next.frame * hop + onsetFFT.size / 2 < pitchWindowEnd(onsetFrame) {
            let from = pitchWindowStart(onsetFrame) - bufferStart
            let cut = max(0, next.frame * hop + onsetFFT.size / 2 - sampleRate / 200 - pitchWindowStart(onsetFrame))
            var window = [Float](repeating: 0, count: pitchFFT.size)
            for i in 0..<min(cut, pitchFFT.size) where from + i >= 0 && from + i < buffer.count { window[i] = buffer[from + i] }
            after = pitchFFT.magnitudes(window, start: 0)
            // The same level as a whole window would give (a Hann window's first part weighs less).
            let kept = (0..<min(cut, pitchFFT.size)).reduce(0.0) { $0 + pitchFFT.window[$1] }
            let whole = pitchFFT.window.reduce(0, +)
            if kept > whole * 0.05 { for k in after.indices { after[k] *= whole / kept } }
        } else {
            after = pitchFFT.magnitudes(buffer, start: pitchWindowStart(onsetFrame) - bufferStart)
        }
        var before = pitchFFT.magnitudes(buffer, start: attack - pitchFFT.size - sampleRate / 50 - bufferStart)
        if let noise = roomNoise {
            for k in 0..<min(noise.count, after.count) {
                after[k] = max(0, after[k] - Self.noiseMargin * noise[k])
                before[k] = max(0, before[k] - Self.noiseMargin * noise[k])
            }
        }
        var fresh = [Double](repeating: 0, count: after.count)
        for k in 0..<after.count { fresh[k] = max(0, after[k] - 0.7 * before[k]) }
        let time = Double(attack) / Double(sampleRate)
        // A calibrated room: a sound no louder than 6 dB over its noise is no note.
        if profile.isMeasured && rms(from: attack, seconds: 0.1) < profile.noteGate { return [] }
        let (expected, dueHere, timed) = expectation(time)
        // A chord's keys that speak late (a second onset moments after it) are due with it.
        let dueNow = dueHere.union(lastChord.map { c in
            time - c.time < Self.sameSound ? expected.filter { Self.speaksLate($0, in: c) && !c.heard.contains($0) } : [] } ?? [])
        let heardAlready = alreadyHeardAt(time)
        var estimator = HarmonicEstimator(spectrum: fresh, whole: after, fftSize: pitchFFT.size, sampleRate: sampleRate, templates: profile.templates,
                                          noiseFloor: profile.noiseFloor, band: bandLimit, roomNoise: roomNoise)
        estimator.previous = before
        onOnset?(time, estimator)
        let typical = recentStrengths.isEmpty ? 0 : recentStrengths.sorted()[recentStrengths.count / 2]
        // A chord of up to ten keys (both hands full), and one more: a wrong key beside it.
        let limit = min(11, max(maxNotesPerOnset, expected.count + 1))
        let known = othersAt(time)
        var picked = estimator.notes(expected: expected, later: timed ? expected.subtracting(dueNow) : [], known: known, typical: typical, limit: limit)
        if rescue {
            let fit = estimator.rescued(expected: expected, found: picked, known: known, limit: limit, dueNow: timed ? dueNow : nil)
            // Only keys due now are added for the fit's share (a key due 150 ms later took a share
            // of a neighbour's attack and was heard early: issue 41).
            picked = picked.filter { !fit.drop.contains($0.pitch) } + fit.add.filter { dueNow.contains($0.pitch) || !expected.contains($0.pitch) }
        }
        if timed { picked += octavesStruck(over: picked, expected: expected, dueNow: dueNow, estimator: estimator) }
        // Keys taken for what still rings whose partials nonetheless rose since just before the onset.
        var rising: [HarmonicEstimator.Found] = []
        var notes = picked.filter { found in
            // Where the score is known, a key it does not expect now that was heard in the last two seconds and still rings
            // (under the pedal, mostly) is what remains of it unless it came back near as strong.
            // (With the due times known, a key due only later is one the score does not expect now;
            // and one whose note there was heard already, heard again, is what rings of it.)
            if !expected.isEmpty, !(timed ? dueNow : expected).contains(found.pitch) || heardAlready.contains(found.pitch),
               let last = lastHeard[found.pitch], time - last.time < 2,
               found.salience < last.strength * Self.ringingRatio {
                // Unless most of what sounds at its partials is new and it is not a whisper of
                // what it was: struck again (a wrong key on the note just played, most often).
                let newness = estimator.newness(found.pitch)
                if HarmonicEstimator.debug { print(String(format: "ringing? %d newness %.2f rise %.2f band %.2f since %.2f salience %.1f last %.1f", found.pitch, newness, estimator.rise(found.pitch) ?? -1, estimator.bandRise ?? -1, time - last.time, found.salience, last.strength)) }
                // (Nearly all new and clear of the background, a twentieth of it is enough: its
                // last strength was measured against a quieter moment's background — Ode to Joy's
                // D4 struck again with a C3.)
                let renewed = newness >= Self.allNew && found.salience >= Self.clearNote
                if newness < Self.struckAgain || found.salience < last.strength * (renewed ? 0.05 : 0.15) {
                    // Risen more than the band as a whole: a cough or a knock raises every bin.
                    if time - last.time >= 0.2, let rise = estimator.rise(found.pitch), rise >= Self.risen, rise > (estimator.bandRise ?? 0) * 1.2,
                       found.salience >= last.strength * 0.15 {
                        rising.append(found)
                    }
                    return false
                }
            }
            // An onset moments after another (a bass string's attack still growing, the room's
            // first reflections) hears that onset's keys again in what is new, and with them
            // what lies wholly on their partials: the octave, the seventh partial of a bass
            // note — keys the score expects soon, which were then heard early and the wrong key
            // played on time judged extra. Such a key is the earlier one's sound unless the
            // earlier onset expected it (a chord's key that speaks late) or heard a chord of three
            // keys or more (it may be rolled: its later keys are struck, on its first ones' partials).
            // A key the score wants only later, wholly on the partials of one heard in the last
            // quarter second, is that key's sound too, not the later key played early (issue 41).
            if !dueNow.contains(found.pitch), expected.contains(found.pitch), grownFrom(found.pitch, at: time, estimator) { return false }
            // (Never a key due now and not at that onset, when the due times are known: a fast
            // melody's next note may lie on a bass note's tenth partial. Nor is a key the earlier
            // onset expected its own speaking late when a neighbour was heard there instead: the
            // learner played that neighbour.)
            if !(timed && dueNow.contains(found.pitch) && lastChord.map({ !$0.expected.contains(found.pitch) }) ?? true),
               let chord = lastChord, time - chord.time < Self.sameSound, !Self.speaksLate(found.pitch, in: chord), chord.heard.count < 3,
               lastHeard[found.pitch].map({ time - $0.time >= Self.sameSound }) ?? true {
                let growing = lastHeard.filter { $0.key != found.pitch && time - $0.value.time < Self.sameSound }.map(\.key)
                if HarmonicEstimator.debug { print("growing?", found.pitch, growing, growing.map { String(format: "%.2f", estimator.salience(found.pitch, besides: [$0]) / max(estimator.salience(found.pitch), 1e-9)) }) }
                if growing.contains(where: { estimator.salience(found.pitch, besides: [$0]) < estimator.salience(found.pitch) * 0.2 }) {
                    return false
                }
            }
            // A key heard moments ago whose sound is still growing into the analysis window is
            // the same note, unless it came back clearly (a re-struck key has a new attack).
            guard let last = lastHeard[found.pitch], time - last.time < 0.2 else { return true }
            return time - last.time >= 0.15 && found.salience > last.strength * 0.9
        }
        // An onset where the score expects keys and none is heard but one taken for ringing whose
        // partials rose (a ringing piano string only decays): that key was struck again — a wrong
        // key on the note just played, whose new sound is much like its old (issue 41: planted
        // 69 → 71 after a 71 in the Minuet, 37–48 % new, heard as nothing and the 69 missed).
        if notes.isEmpty, !expected.isEmpty, let again = rising.max(by: { $0.salience < $1.salience }) { notes = [again] }
        let heardNow = notes.map(\.pitch)
        notes.removeAll { unstruck($0.pitch, expected: expected, heard: heardNow, estimator: estimator, time: time) }
        notes += repeatedKeys(expected: expected.subtracting(heardAlready), found: picked, known: known, estimator: estimator, time: time)
        if HarmonicEstimator.debug { print(String(format: "onset %.3f expected %@ picked %@ kept %@", time, expected.sorted().description,
                                                  picked.map(\.pitch).description, notes.map(\.pitch).description)) }
        // A chord's keys that speak late (a bass string's slower attack, a loose roll) make a
        // second onset 100–115 ms after it: keys it expected and did not hear are its own.
        var at = [Int: Double]()
        if let chord = lastChord, time - chord.time < 0.115 {
            for n in notes where Self.speaksLate(n.pitch, in: chord) && !chord.heard.contains(n.pitch) { at[n.pitch] = chord.time }
        }
        if notes.count >= 2 || at.isEmpty {
            lastChord = (time, dueNow, Set(notes.map(\.pitch)))
        } else if var chord = lastChord {
            chord.heard.formUnion(notes.map(\.pitch))
            lastChord = chord
        }
        for n in notes { lastHeard[n.pitch] = (time, n.salience) }
        if timed { rememberAlone(notes.map(\.pitch), expected: expected, dueNow: dueNow, estimator: estimator) }
        recentStrengths += notes.map(\.salience)
        if recentStrengths.count > 8 { recentStrengths.removeFirst(recentStrengths.count - 8) }
        return notes.map { HeardNote(pitch: $0.pitch, time: at[$0.pitch] ?? time, strength: $0.salience, wasExpected: expected.contains($0.pitch)) }
    }
}

extension NoteListener {
    /// The keys due now an octave over a key found and due now (both hands in octaves: a fast
    /// run's right hand over its left), which lie wholly on that key's even partials and so take
    /// little or nothing of it one at a time or in the fit (issue 41: 6 % of the share, or none,
    /// for the B♭ scale's F5–C6 over F4–C5). Heard when the lower key's even partials stand out
    /// of its odd ones `HarmonicEstimator.octaveExcess` times more than when it (or a key within
    /// a tone of it) was last heard alone in this take — its own profile on this piano, learnt
    /// as it goes, since a general one varies more between registers and pianos than an octave
    /// adds. Not where a key beside the octave was heard that the score does not expect (a wrong
    /// key played instead of it), nor without such a reference.
    func octavesStruck(over picked: [HarmonicEstimator.Found], expected: Set<Int>, dueNow: Set<Int>,
                       estimator: HarmonicEstimator) -> [HarmonicEstimator.Found] {
        let heard = Set(picked.map(\.pitch))
        var out: [HarmonicEstimator.Found] = []
        for low in heard.sorted() where dueNow.contains(low) && dueNow.contains(low + 12) && !heard.contains(low + 12) {
            let upper = low + 12
            guard ![-2, -1, 1, 2].contains(where: { heard.contains(upper + $0) && !expected.contains(upper + $0) }) else { continue }
            let near = (low - 2...low + 2).flatMap { aloneRatios[$0] ?? [] }.sorted()
            guard !near.isEmpty, let found = estimator.octaveOver(low, alone: near[near.count / 2]) else { continue }
            out.append(found)
        }
        return out
    }

    /// Remembers the even-to-odd ratio of each key struck now with nothing expected or heard an
    /// octave over it (the reference `octavesStruck` compares with), the last six per key.
    func rememberAlone(_ heard: [Int], expected: Set<Int>, dueNow: Set<Int>, estimator: HarmonicEstimator) {
        for key in heard where dueNow.contains(key) && !expected.contains(key + 12) && !heard.contains(key + 12) {
            guard let ratio = estimator.evenOddRatio(key) else { continue }
            aloneRatios[key] = (aloneRatios[key] ?? []).suffix(5) + [ratio]
        }
    }

    /// Whether `pitch` may be a key of `chord` (an onset just before) speaking late: that onset
    /// expected it and heard no neighbour of it (a semitone or a tone away) played instead.
    static func speaksLate(_ pitch: Int, in chord: (time: Double, expected: Set<Int>, heard: Set<Int>)) -> Bool {
        chord.expected.contains(pitch) && !chord.heard.contains { $0 != pitch && abs($0 - pitch) <= 2 }
    }

    /// Whether `pitch` lies wholly on the partials of a key heard under `grownLater` before
    /// `time` (its octave, its twelfth): that key's sound still growing into this window.
    func grownFrom(_ pitch: Int, at time: Double, _ estimator: HarmonicEstimator) -> Bool {
        if let last = lastHeard[pitch], time - last.time < Self.grownLater { return false }
        let own = estimator.salience(pitch)
        if HarmonicEstimator.debug {
            print("grown?", pitch, lastHeard.filter { $0.key < pitch && time - $0.value.time < Self.grownLater }
                .map { String(format: "%d:%.2f", $0.key, estimator.salience(pitch, besides: [$0.key]) / max(own, 1e-9)) })
        }
        return lastHeard.contains { key, heard in
            key != pitch && key < pitch && time - heard.time < Self.grownLater && estimator.salience(pitch, besides: [key]) < own * 0.2
        }
    }

    /// Expected keys struck again, softer, that neither search heard (issue 41: a repeat 20–40
    /// velocity steps softer than the strike before). What is new at an onset is the window after
    /// it less 0.7 × the one before; a key struck again has its old sound damped, so when the new
    /// strike is much softer than the old one rang, that subtraction takes most of it away (its
    /// partials measured 0.3–0.6 of before), and with the other hand's octave below struck at
    /// once, louder (Ode to Joy's G4 again over G3), the fit gives it no share at all: every
    /// partial of it is the octave's. Heard still, when every key found here (kept or not: a key
    /// found and dropped as ringing says the onset is another's) is one it lies on (its octave
    /// or twelfth below) or there is none, the key is due now, not later in the window the score
    /// is asked about (`dueAt`; without it a key expected both 150 ms before and after the
    /// onset, `etude judge` asking ±300 ms: the Musette's E3 due 300 ms after an E2 lay on it), it was heard 0.2–3 s ago (`repeatWithin`), nothing was heard in the last 150 ms (an onset moments
    /// after another is that one's sound), and what is new at its partials stands `repeatRatio`
    /// × over the background: a key only ringing on measured 0.0–1.9 there, struck again softly
    /// 2.2–162 (the bench's renders, two pianos, dry and in a room). `expected` leaves out the
    /// keys whose every note due in the window was heard already (`alreadyHeardAt`). Never on the partials of a
    /// key Etude began at this onset (`known`): there what is new may be Etude's.
    func repeatedKeys(expected: Set<Int>, found: [HarmonicEstimator.Found], known: [Int: Double], estimator: HarmonicEstimator,
                      time: Double) -> [HarmonicEstimator.Found] {
        guard !expected.isEmpty, lastHeard.values.allSatisfy({ time - $0.time >= 0.15 }) else { return [] }
        // Due now: by the due times where they are known (`dueAt`), else as a key expected both
        // 150 ms before and after (the judge's window is ±300 ms).
        let wanted = expectation(time)
        let dueNow = wanted.timed ? wanted.now : expectedAt(time - 0.15).intersection(expectedAt(time + 0.15))
        var out: [HarmonicEstimator.Found] = []
        for e in expected.sorted() where dueNow.contains(e) && !found.contains(where: { $0.pitch == e }) {
            guard let last = lastHeard[e], time - last.time >= 0.2, time - last.time < Self.repeatWithin,
                  found.allSatisfy({ HarmonicEstimator.partialIntervals.contains(e - $0.pitch) }),
                  // Nor on a key Etude itself just began (its sound in the room, never the learner's).
                  !known.contains(where: { (-0.05...HarmonicEstimator.sameAttack).contains($0.value) && HarmonicEstimator.partialIntervals.contains(e - $0.key) })
            else { continue }
            let s = estimator.salience(e) / estimator.background
            if HarmonicEstimator.debug { print(String(format: "again? %d salience %.1f last %.1f since %.2f", e, s, last.strength, time - last.time)) }
            if s >= Self.repeatRatio { out.append(.init(pitch: e, salience: s)) }
        }
        return out
    }

    /// How long after it was heard a key may be struck again softly (`repeatedKeys`): a whole note
    /// at a slow tempo (Au clair de la lune's C4 again over C3, 2.4 s on, was missed at 2 s).
    static let repeatWithin = 3.0
    /// What is new at a key struck again (`repeatedKeys`) over the background.
    static let repeatRatio = ProcessInfo.processInfo.environment["LISTEN_REPEAT"].flatMap(Double.init) ?? 2.0

    /// The partial profile of one key from a recording of it struck alone (calibration): the
    /// first onset's partial amplitudes, normalised; nil when no onset was heard.
    public static func measureKey(_ pitch: Int, samples: [Float], sampleRate: Int) -> PartialTemplates.Key? {
        let listener = NoteListener(sampleRate: sampleRate)
        var partials: [Double]?
        listener.onOnset = { _, estimator in if partials == nil { partials = estimator.partials(pitch) } }
        _ = listener.push(samples)
        _ = listener.flush()
        guard let partials, partials.contains(where: { $0 > 0 }) else { return nil }
        return PartialTemplates.Key(pitch: pitch, partials: PartialTemplates.normalise(partials))
    }

    /// Listens with the room's noise as the calibration measured it in its quiet seconds (live,
    /// where no recording's quiet second is at hand), at this listener's rate: taken off every
    /// spectrum as `hearRoom(_ quiet:)` measured it from samples.
    public func hearRoom(_ room: RoomSpectrum) {
        roomNoise = room.magnitudes(at: sampleRate, bins: pitchFFT.size / 2)
    }

    /// Seconds from a note's onset to the listener's decision about it: the pitch window after
    /// the onset, which the judge adds to its offset like a MIDI keyboard's calibrated one.
    public var decisionDelay: Double { Double(pitchFFT.size + sampleRate / 100 + sampleRate / 20) / Double(sampleRate) }
}
