import Foundation

/// Multiple-pitch estimation on one magnitude spectrum by summing harmonic amplitudes and
/// cancelling each found note's harmonics with spectral smoothness (Klapuri 2006), so an
/// octave above a found note is only heard when its own harmonics stand out. Piano strings are
/// slightly inharmonic (partials sharpen with their number), which the harmonic positions
/// follow with a typical coefficient.
public struct HarmonicEstimator: Sendable {
    public struct Found: Equatable, Sendable {
        public var pitch: Int
        public var salience: Double
    }

    /// The keys considered: a piano's 88.
    public static let keys = 21...108
    /// Relative salience a key the score expects must reach (of the strongest note found).
    public static let expectedRatio = 0.10
    /// Relative salience any other key must reach: higher, since a wrong note has to be clear.
    public static let otherRatio = 0.30
    /// Relative salience of an expected key that sits on a found note's partials (an octave).
    public static let octaveRatio = 0.2
    /// The same against a note of Etude's own heard in the room, whose partials are only
    /// roughly cancelled (its level at the microphone is unknown): half of it.
    public static let knownOctaveRatio = 0.5
    /// Seconds after Etude sent a note within which an onset heard is that note's attack: the
    /// sound's way out (the synth's buffer, the speakers, the room) and back in (the microphone's
    /// buffer) takes 50–200 ms.
    public static let sameAttack = 0.25
    /// Seconds from Etude's sending a note to an onset heard that is that note's own attack
    /// (its sound's way out and back in, as the clocks line them up): a tighter window than
    /// `sameAttack`, since within it the onset is taken for Etude's even when its key is not heard.
    public static let ownAttack = -0.05...0.08
    /// Semitones from a key to those of its first partials that land on keys: the unison, the
    /// octave, the twelfth, two octaves, the seventeenth, the nineteenth, three octaves.
    static let partialIntervals: Set<Int> = [0, 12, 19, 24, 28, 31, 36]
    /// Part of the learner's typical strength below which a key on Etude's own attack is Etude's.
    public static let ownAttackRatio = 0.4
    /// Part of what sounds now (new or ringing) a note must be to be new.
    public static let levelRatio = 0.1
    /// Salience over the background (median of all keys) the first note must reach.
    public static let backgroundRatio = 3.0

    var spectrum: [Double]
    /// The spectrum after the onset, new or still ringing.
    let whole: [Double]
    /// The level a key would sum from noise alone.
    let background: Double
    /// The strongest key's salience in the whole spectrum after the onset: what sounds now,
    /// new or still ringing. A note that began here is a fair part of it.
    private(set) var level: Double
    let binHz: Double
    let nyquist: Double

    /// `spectrum` is what is new since just before the onset; `whole` is the spectrum after it,
    /// whose median between 50 Hz and 5 kHz (the room and what still rings) is the background.
    /// The piano's own partial profiles when calibrated (`PartialTemplates`), else nil.
    let templates: PartialTemplates?

    /// `noiseFloor` is the calibrated room's RMS (0: unknown): the background is never taken
    /// below what that noise gives a key's partial peaks in this window.
    /// `band` is the highest frequency the recording holds (nil: half the sample rate): a
    /// recording sampled below 22 kHz and heard upsampled has only images above its own half rate.
    public init(spectrum: [Double], whole: [Double], fftSize: Int, sampleRate: Int, templates: PartialTemplates? = nil, noiseFloor: Double = 0,
                band bandLimit: Double? = nil, roomNoise: [Double]? = nil) {
        self.spectrum = spectrum
        self.templates = templates
        binHz = Double(sampleRate) / Double(fftSize)
        nyquist = min(Double(sampleRate) / 2, bandLimit ?? .infinity)
        let lo = min(whole.count - 1, Int(50 / binHz)), hi = max(lo, min(whole.count - 1, Int(min(5_000, nyquist * 0.9) / binHz)))
        let band = whole[lo...hi].sorted()
        // Twice the median, for taking the maximum of a few bins per partial.
        // White noise of RMS σ gives a Hann-windowed bin σ·√(0.375 N) on average; the maximum of
        // a partial's few bins about twice that.
        let room = noiseFloor * (0.375 * Double(fftSize)).squareRoot() * 2
        // With the room's noise measured bin by bin (and taken off the spectra), what is left of
        // it is a fraction of its median over the band: the background is never taken below that.
        var measured = 0.0
        if let roomNoise, roomNoise.count > hi {
            let noiseBand = roomNoise[lo...hi].sorted()
            measured = noiseBand[noiseBand.count / 2] * Self.noiseResidue
        }
        background = max(band[band.count / 2] * 2, room, measured, 1e-9)
        self.whole = whole
        level = 0
        var all = self
        all.spectrum = whole
        level = Self.keys.reduce(0) { max($0, all.salience($1)) }
    }

    /// Part of the room's median noise magnitude that stays a floor once the noise is taken off.
    static let noiseResidue = ProcessInfo.processInfo.environment["LISTEN_NOISE_RESIDUE"].flatMap(Double.init) ?? 1.0

    static func frequency(_ pitch: Int) -> Double { 440 * pow(2, Double(pitch - 69) / 12) }

    /// Bin ranges of the first harmonics of `pitch` (within a third of a semitone, at least the
    /// nearest bins), with piano inharmonicity.
    func harmonicBins(_ pitch: Int) -> [ClosedRange<Int>] {
        let f0 = Self.frequency(pitch)
        let count = pitch < 48 ? 12 : pitch < 72 ? 8 : 5
        let b = 0.0004 * pow(2, Double(pitch - 60) / 24)
        var out: [ClosedRange<Int>] = []
        for h in 1...count {
            let f = Double(h) * f0 * (1 + b * Double(h * h)).squareRoot()
            guard f < min(nyquist * 0.9, 8_000) else { break }
            let lo = Int((f * pow(2, -0.25 / 12) / binHz).rounded())
            let hi = Int((f * pow(2, 0.25 / 12) / binHz).rounded())
            out.append(max(1, lo)...min(spectrum.count - 1, max(hi, lo)))
        }
        return out
    }

    func peaks(_ bins: [ClosedRange<Int>]) -> [Double] {
        bins.map { r in r.clamped(to: 0...(spectrum.count - 1)).reduce(0) { max($0, spectrum[$1]) } }
    }

    /// The harmonic sum of `pitch`; partials falling on a partial of a key in `besides` count
    /// nothing (a key no one expected must show energy of its own, not borrowed from a note
    /// already heard — an octave or a twelfth above it, mostly).
    func salience(_ pitch: Int, besides: [Int] = []) -> Double {
        let bins = harmonicBins(pitch)
        var p = peaks(bins)
        if !besides.isEmpty {
            let taken = besides.flatMap { harmonicBins($0) }
            for (i, r) in bins.enumerated() where taken.contains(where: { $0.overlaps(r) }) { p[i] = 0 }
        }
        // A weighted mean, so a treble key with five partials below 8 kHz and a bass key with
        // twelve are measured alike against the background.
        var s = 0.0, weight = 0.0
        for (i, a) in p.enumerated() {
            s += a / pow(Double(i + 1), 0.5)
            weight += 1 / pow(Double(i + 1), 0.5)
        }
        s /= max(weight, 1e-9)
        // A note whose fundamental (or second partial) is absent is more likely a neighbour's
        // harmonic: weigh the first two partials in.
        let low = (p.first ?? 0) + (p.count > 1 ? p[1] : 0)
        if low <= 0 { s *= 0.5 }
        // The octave below a sounding key collects that key's partials at its even ones; its own
        // odd partials are what tell it really sounds.
        if p.count >= 4 {
            var odd = 0.0, even = 0.0
            for (i, a) in p.prefix(6).enumerated() { if i % 2 == 0 { odd += a } else { even += a } }
            if odd < 0.3 * even { s *= 0.3 }
        }
        return s
    }

    /// The keys that began at this onset, strongest first, at most `limit`. `known` are keys
    /// sounding that are not the learner's (Etude's own notes heard in the room), each with the
    /// seconds since it began: those really heard are cancelled first and never reported, so
    /// their octaves are not taken for the learner's — and a key on the partials of one that
    /// began in this very attack is taken for Etude's (with speakers, a learner's octave of
    /// Etude's note struck at the same instant cannot be told apart; hence headphones).
    ///
    /// `typical` is how strong (salience over the background) the learner's notes were lately
    /// (0: unknown): a key on the partials of a note Etude began at this very onset is taken for
    /// Etude's when it is much weaker than that — from speakers its bass may arrive with a weak
    /// fundamental, its octave on the learner's key — and for the learner's when it is as strong
    /// as their playing (their octave struck with it, heard as in headphones).
    ///
    /// `later` are the expected keys due only later than now (150–300 ms on): one of them on a
    /// sounding key's partials is that key's sound unless it stands out as a wrong key would.
    public func notes(expected: Set<Int>, later: Set<Int> = [], known: [Int: Double] = [:], typical: Double = 0, limit: Int) -> [Found] {
        // Knowing the score: a wrong key is looked for near the keys expected (a learner's
        // wrong notes are neighbours, a slipped hand an octave at most), never across the piano.
        let candidates: ClosedRange<Int>
        if let lo = expected.min(), let hi = expected.max() {
            candidates = max(Self.keys.lowerBound, lo - 12)...min(Self.keys.upperBound, hi + 12)
        } else {
            candidates = Self.keys
        }
        var work = self
        var present: [(pitch: Int, salience: Double)] = []
        var sameAttack: [Int] = []
        for k in known.keys.sorted() where Self.keys.contains(k) && work.soundsItself(k) {
            let s = work.salience(k)
            if s > background * Self.backgroundRatio {
                present.append((k, s))
                if (-0.05...Self.sameAttack).contains(known[k] ?? 1) { sameAttack.append(k) }
                work.cancel(k)
            }
        }
        // Keys Etude began at this very onset (it is their attack), heard or not: from speakers a
        // bass note may reach the microphone with a weak fundamental, so only its upper partials
        // sound — on the learner's keys an octave or a twelfth above. What lies wholly on them
        // is Etude's, not the learner's.
        let ownAttack = known.filter { Self.ownAttack.contains($0.value) }.map(\.key)
        var found: [Found] = []
        var strongest = 0.0
        while found.count < limit {
            let sounding = present.map(\.pitch) + found.map(\.pitch)
            var best: (pitch: Int, value: Double, score: Double, expected: Bool)?
            for p in candidates where !sounding.contains(p) {
                // A key due only later that lies on the partials of a key sounding or due now
                // below it (its octave) is looked for as a key no one expected: that key's
                // sound, unless it shows its own.
                let under = later.contains(p) ? sounding + expected.filter { $0 < p && !later.contains($0) } : []
                let expects = expected.contains(p) && !(!under.isEmpty && work.salience(p, besides: under) < work.salience(p) * 0.2)
                let s = expects ? work.salience(p) : work.salience(p, besides: sounding)
                // Expected keys are preferred among near-equals: the score says they are likely.
                let score = expects ? s * 1.15 : s
                if best == nil || score > best!.score { best = (p, s, score, expects) }
            }
            // Above the room's noise, and a fair part of what sounds now: a moment where nothing
            // began (the decay of earlier notes) hears nothing new.
            guard let pick = best, pick.value > background * Self.backgroundRatio, pick.value > level * Self.levelRatio else { break }
            // An expected key all of whose partials lie on a sounding note's (its octave above)
            // gets energy from that note anyway: it must show more than leakage.
            let borrowed = !sounding.isEmpty && work.salience(pick.pitch, besides: sounding) < pick.value * 0.2
            // So does a key a semitone or a tone from a sounding one (their partials' main lobes
            // touch in the bass): a wrong neighbour played must not also count as the right key.
            let neighbour = (present.map { ($0.pitch, $0.salience / background) } + found.map { ($0.pitch, $0.salience) })
                .filter { abs($0.0 - pick.pitch) <= 2 }.map(\.1).max()
            // Measured against the strongest note the learner played here and, for a key no one
            // expected or one on a sounding note's partials, against the other sound too.
            let others = present.map(\.salience).max() ?? 0
            if !ownAttack.isEmpty, pick.value / background < typical * Self.ownAttackRatio,
               ownAttack.contains(where: { Self.partialIntervals.contains(pick.pitch - $0) }) { break }
            if !pick.expected {
                guard pick.value > max(strongest, others) * Self.otherRatio else { break }
            } else if borrowed {
                if !sameAttack.isEmpty && work.salience(pick.pitch, besides: sameAttack) < pick.value * 0.2 { break }
                guard pick.value > max(strongest * Self.octaveRatio, others * Self.knownOctaveRatio) else { break }
            } else {
                guard pick.value > strongest * Self.expectedRatio else { break }
            }
            guard pick.value / background > (neighbour ?? 0) * 0.5 else { break }
            if found.isEmpty { strongest = pick.value }
            found.append(Found(pitch: pick.pitch, salience: pick.value / background))
            work.cancel(pick.pitch)
        }
        return found
    }

    /// Expected keys the one-at-a-time search left out that a fit of the whole moment still
    /// asks for: in a chord or under the other hand, a key's partials are shared with its
    /// neighbours' (a bass note's weak fundamental, the octave's every partial), and taking the
    /// strongest key first then cancelling it by a guessed shape takes their energy too. Here
    /// every expected key, every key found, and the semitone and tone beside each expected key (a
    /// learner's wrong key) get a harmonic comb (with the piano's inharmonicity; the calibrated
    /// partial profile where there is one) and the spectrum new at this onset is explained by all
    /// of them at once, non-negatively (NNLS by multiplicative updates, as the activations of
    /// NMF with the templates held fixed: Smaragdis & Brown 2003; score-informed as in Ewert &
    /// Müller 2012), with a flat term for the room's noise. An expected key is added when its
    /// share is a fair part of the strongest note found and more than a neighbour's: a wrong key
    /// played instead takes the share itself, so it is not heard as right.
    ///
    /// The same fit says which keys found one at a time that no one expected are an expected
    /// neighbour's energy (a semitone or a tone from it, in the mass of what rings under the
    /// pedal): those whose share is under half that neighbour's are returned in `drop`.
    /// `known` as for `notes`: a key on the partials of one Etude began at this very onset is
    /// never added (it is Etude's attack, as there).
    /// `dueNow`: the keys due at this very onset, when the due times are known (else all of
    /// `expected`): only they can have been played wrong here, and a chord of four or more is
    /// told from notes due around it.
    public func rescued(expected: Set<Int>, found: [Found], known: [Int: Double] = [:], limit: Int, dueNow: Set<Int>? = nil) -> (add: [Found], drop: Set<Int>) {
        let ownAttack = known.filter { Self.ownAttack.contains($0.value) || (-0.05...Self.sameAttack).contains($0.value) }.map(\.key)
        let missing = expected.filter { e in
            Self.keys.contains(e) && !found.contains { $0.pitch == e } && !ownAttack.contains { Self.partialIntervals.contains(e - $0) }
        }
        let doubtful = found.filter { f in !expected.contains(f.pitch) && expected.contains { abs($0 - f.pitch) <= 2 } }
        guard !missing.isEmpty || !doubtful.isEmpty else { return ([], []) }
        var keys = expected.union(found.map(\.pitch))
        for e in expected { for d in [-2, -1, 1, 2] where Self.keys.contains(e + d) { keys.insert(e + d) } }
        let candidates = keys.filter { Self.keys.contains($0) }.sorted()
        let top = min(spectrum.count - 1, Int(min(5_000, nyquist * 0.9) / binHz))
        guard top > 8 else { return ([], []) }
        // Sparse unit-norm templates: each partial at the strongest bin of its range, its lobe ±1.
        var templates: [[(bin: Int, weight: Double)]] = []
        for p in candidates {
            let bins = harmonicBins(p)
            let shape = self.templates?.shape(for: p, count: bins.count) ?? (0..<bins.count).map { 1 / pow(Double($0 + 1), 0.8) }
            var t: [Int: Double] = [:]
            for (h, r) in bins.enumerated() where r.lowerBound <= top && shape[h] > 0 {
                let range = r.clamped(to: 1...top)
                let peak = range.max { spectrum[$0] < spectrum[$1] } ?? range.lowerBound
                for (k, w) in [(peak - 1, 0.5), (peak, 1.0), (peak + 1, 0.5)] where k >= 1 && k <= top {
                    t[k, default: 0] += w * shape[h]
                }
            }
            let norm = t.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
            templates.append(norm > 0 ? t.map { ($0.key, $0.value / norm) } : [])
        }
        // The room: a flat term over the band.
        let flat = 1 / Double(top).squareRoot()
        let n = candidates.count
        var dense = [[Double]](repeating: [Double](repeating: 0, count: top + 1), count: n)
        for (i, t) in templates.enumerated() { for (k, w) in t { dense[i][k] = w } }
        // Wᵀv and WᵀW, the flat term last.
        var wv = [Double](repeating: 0, count: n + 1)
        var gram = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n + 1)
        var total = 0.0
        for k in 1...top { total += spectrum[k] }
        for i in 0..<n {
            wv[i] = templates[i].reduce(0) { $0 + $1.weight * spectrum[$1.bin] }
            let sum = templates[i].reduce(0) { $0 + $1.weight }
            gram[i][n] = sum * flat
            gram[n][i] = sum * flat
            for j in i..<n {
                var g = 0.0
                for (k, w) in templates[j] { g += w * dense[i][k] }
                gram[i][j] = g
                gram[j][i] = g
            }
        }
        wv[n] = total * flat
        gram[n][n] = 1
        let m = n + 1
        let flatGram = gram.flatMap { $0 }
        var h = wv.map { max($0, 1e-12) }
        flatGram.withUnsafeBufferPointer { g in
            h.withUnsafeMutableBufferPointer { h in
                for _ in 0..<100 {
                    for i in 0..<m {
                        var gh = 0.0
                        for j in 0..<m { gh += g[i * m + j] * h[j] }
                        h[i] *= wv[i] / max(gh, 1e-12)
                    }
                }
            }
        }
        let share = Dictionary(uniqueKeysWithValues: zip(candidates, h))
        if Self.debug { print("shares", candidates.map { String(format: "%d:%.1f", $0, share[$0] ?? 0) }.joined(separator: " "), String(format: "flat %.1f", h[n])) }
        // Nothing found one at a time (a key struck again while it rings under the pedal adds
        // less than is taken away as ringing): the expected key must then be the fit's strongest.
        let strongest = found.isEmpty ? (share.values.max() ?? 0) / Self.rescueRatio * 0.5 : found.compactMap { share[$0.pitch] }.max() ?? 0
        guard strongest > 0 else { return ([], []) }
        var drop = Set<Int>()
        for f in doubtful {
            let mine = share[f.pitch] ?? 0
            let theirs = expected.filter { abs($0 - f.pitch) <= 2 }.compactMap { share[$0] }.max() ?? 0
            if mine < theirs * 0.5 { drop.insert(f.pitch) }
        }
        var out: [Found] = []
        for e in missing.sorted(by: { (share[$0] ?? 0) > (share[$1] ?? 0) }) where found.count - drop.count + out.count < limit {
            let a = share[e] ?? 0
            let beside = [-2, -1, 1, 2].filter { !expected.contains(e + $0) }.compactMap { share[e + $0] }.max() ?? 0
            let s = salience(e)
            if Self.debug { print(String(format: "rescue %d share %.4f strongest %.4f beside %.4f salience %.2f", e, a, strongest, beside, s / background)) }
            guard a >= strongest * Self.rescueRatio, a > beside * 1.5, s > background * Self.backgroundRatio else { continue }
            out.append(Found(pitch: e, salience: s / background))
        }
        // A wrong key played instead of an expected one on a sounding key's partials (the octave
        // above the other hand's note, mostly) was cancelled with it one key at a time, so it was
        // never found; in the fit it takes the share itself. Heard as the wrong key it is.
        let sounding = Set(found.map(\.pitch)).subtracting(drop).union(out.map(\.pitch))
        let struck = dueNow ?? expected
        for e in missing.sorted() where struck.contains(e) && !sounding.contains(e) && found.count - drop.count + out.count < limit {
            let a = share[e] ?? 0
            var best: (pitch: Int, share: Double)?
            for k in [e - 2, e - 1, e + 1, e + 2] where !expected.contains(k) && !sounding.contains(k) && !out.contains(where: { $0.pitch == k }) {
                if let b = share[k], b > (best?.share ?? 0) { best = (k, b) }
            }
            guard let (n, b) = best else { continue }
            let s = salience(n)
            if Self.debug { print(String(format: "instead of %d: %d share %.4f (its %.4f) strongest %.4f salience %.2f", e, n, b, a, strongest, s / background)) }
            // Only there: elsewhere the one-at-a-time search would have found it itself, and a
            // neighbour's share beside a missing key is more often the mass of what rings. Nor in
            // a chord of four keys or more, whose partials cover one another's neighbours (the
            // keys due at this onset: a bass and a melody note with two more due 300 ms either
            // side are no chord — the Minuet's A4 played over its A3 for G4 was missed so; and a
            // key due later is not one played wrong now — the Musette's B4 on its E2's sixth
            // partial was taken for its C♯5 due 300 ms on, played wrong).
            let onPartials = sounding.contains { Self.partialIntervals.contains(n - $0) && n != $0 }
            guard onPartials, struck.count <= 3, b >= strongest * Self.insteadRatio, b > a * 3, s > background * Self.backgroundRatio,
                  !ownAttack.contains(where: { Self.partialIntervals.contains(n - $0) }) else { continue }
            out.append(Found(pitch: n, salience: s / background))
        }
        return (out, drop)
    }

    static let debug = ProcessInfo.processInfo.environment["LISTEN_RESCUE"] != nil
    /// Share of the strongest note found that an expected key's fit must reach to be added.
    public static let rescueRatio = 0.08
    /// Share of the strongest note found that a key beside a missing expected one must reach in
    /// the fit to be heard as played instead of it.
    public static let insteadRatio = ProcessInfo.processInfo.environment["LISTEN_INSTEAD"].flatMap(Double.init) ?? 0.15

    /// True when `pitch`'s own odd partials sound (not only the even ones an octave above
    /// would give it): the test that a note of Etude's is really heard in the room.
    func soundsItself(_ pitch: Int) -> Bool {
        let p = peaks(harmonicBins(pitch))
        guard p.count >= 4 else { return true }
        var odd = 0.0, even = 0.0
        for (i, a) in p.prefix(6).enumerated() { if i % 2 == 0 { odd += a } else { even += a } }
        return odd >= 0.3 * even
    }

    /// How much of what sounds at `pitch`'s first partials is new at this onset (0–1): little
    /// for a key that only rings on (most of the window before the onset, where it sounded as
    /// loud, is taken off), most for a key struck again.
    public func newness(_ pitch: Int) -> Double {
        var fresh = 0.0, all = 0.0
        for r in harmonicBins(pitch).prefix(4) {
            let range = r.clamped(to: 0...(spectrum.count - 1))
            fresh += range.reduce(0) { max($0, spectrum[$1]) }
            all += range.reduce(0) { max($0, whole[$1]) }
        }
        return all > 0 ? fresh / all : 0
    }

    /// The spectrum of the window just before the onset (nil: not given), for `rise`.
    public var previous: [Double]?

    /// How what sounds at `pitch`'s first partials after the onset compares with the window just
    /// before it (nil without that window): a key that only rings on decays (under 1; a piano's
    /// partials only fall once struck), a key struck again rises.
    public func rise(_ pitch: Int) -> Double? {
        guard let previous, previous.count == whole.count else { return nil }
        var now = 0.0, then = 0.0
        for r in harmonicBins(pitch).prefix(4) {
            let range = r.clamped(to: 0...(whole.count - 1))
            now += range.reduce(0) { max($0, whole[$1]) }
            then += range.reduce(0) { max($0, previous[$1]) }
        }
        return then > 0 ? now / then : nil
    }

    /// How the whole band (50 Hz–5 kHz) compares with the window just before the onset: what a
    /// broadband sound (a cough, a knock) raises everywhere, not at one key's partials.
    public var bandRise: Double? {
        guard let previous, previous.count == whole.count else { return nil }
        let lo = min(whole.count - 1, Int(50 / binHz)), hi = max(lo, min(whole.count - 1, Int(min(5_000, nyquist * 0.9) / binHz)))
        let then = previous[lo...hi].reduce(0, +)
        return then > 0 ? whole[lo...hi].reduce(0, +) / then : nil
    }

    /// The partial amplitudes of `pitch` as found at this onset (for calibration).
    public func partials(_ pitch: Int) -> [Double] { peaks(harmonicBins(pitch)) }

    /// Removes a found note's partials. With the piano's templates, each partial as tall as the
    /// template scaled to the note (the scale from the partials least raised by other notes);
    /// without, at most as tall as the smoothed envelope of its neighbours (Klapuri 2006). Either
    /// way a coinciding partial of another note survives.
    mutating func cancel(_ pitch: Int) {
        let bins = harmonicBins(pitch)
        let p = peaks(bins)
        var expectedHeights: [Double]?
        if let shape = templates?.shape(for: pitch, count: p.count) {
            let ratios = zip(p, shape).filter { $0.1 >= 0.15 }.map { $0.0 / $0.1 }.sorted()
            if ratios.count >= 2 {
                let scale = ratios[ratios.count / 4]
                expectedHeights = shape.map { $0 * scale * 1.2 }
            }
        }
        for (h, r) in bins.enumerated() {
            let smooth: Double
            if let expectedHeights {
                smooth = min(p[h], expectedHeights[h])
            } else {
                let prev = h > 0 ? p[h - 1] : p[h]
                let next = h + 1 < p.count ? p[h + 1] : p[h]
                smooth = min(p[h], (prev + p[h] + next) / 3)
            }
            // Widen by the Hann main lobe (±2 bins) around the range.
            let lo = max(0, r.lowerBound - 2), hi = min(spectrum.count - 1, r.upperBound + 2)
            for k in lo...hi { spectrum[k] = max(0, spectrum[k] - smooth) }
        }
    }
}

extension HarmonicEstimator {
    /// How loud `pitch`'s 2nd and 4th partials are against its 1st and 3rd in what is new at this
    /// onset: the octave over it, struck with it, lies wholly on the even ones. Nil with fewer
    /// than four partials in the band or nothing at the odd ones.
    public func evenOddRatio(_ pitch: Int) -> Double? {
        let p = peaks(harmonicBins(pitch))
        guard p.count >= 4, p[0] + p[2] > 0 else { return nil }
        return (p[1] + p[3]) / (p[0] + p[2])
    }

    /// The key an octave over `lower` when `lower`'s even partials stand out of its odd ones
    /// `octaveExcess` times more than `alone` (its ratio heard with no octave over it) and that
    /// key is clear of the background; else nil.
    public func octaveOver(_ lower: Int, alone: Double) -> Found? {
        guard Self.keys.contains(lower + 12), let ratio = evenOddRatio(lower), ratio >= alone * Self.octaveExcess else { return nil }
        let s = salience(lower + 12)
        if Self.debug { print(String(format: "octave over %d: even/odd %.2f alone %.2f salience %.2f", lower, ratio, alone, s / background)) }
        guard s > background * Self.backgroundRatio else { return nil }
        return Found(pitch: lower + 12, salience: s / background)
    }

    /// How many times its ratio alone a key's even-to-odd partial ratio must reach for the
    /// octave over it to be heard struck (`octaveOver`).
    public static let octaveExcess = ProcessInfo.processInfo.environment["LISTEN_OCTAVE_EXCESS"].flatMap(Double.init) ?? 2.0
}

/// A piano's partial profiles, measured by `etude calibrate --input audio` from a few keys across
/// its range: relative amplitudes of each key's partials at its onset. Cancelling a found note by
/// its own profile (rather than a smooth guess) is what keeps its octave from being heard.
public struct PartialTemplates: Equatable, Sendable, Codable {
    public struct Key: Equatable, Sendable, Codable {
        public var pitch: Int
        /// Partial amplitudes relative to the strongest (1).
        public var partials: [Double]
        public init(pitch: Int, partials: [Double]) {
            self.pitch = pitch
            self.partials = partials
        }
    }
    public var keys: [Key]

    public init(keys: [Key]) { self.keys = keys.sorted { $0.pitch < $1.pitch } }

    /// The profile of the calibrated key nearest `pitch`, `count` partials long (missing ones
    /// count as absent), or nil when that key is more than a fifth away.
    public func shape(for pitch: Int, count: Int) -> [Double]? {
        guard let near = keys.min(by: { abs($0.pitch - pitch) < abs($1.pitch - pitch) }), abs(near.pitch - pitch) <= 7 else { return nil }
        return (0..<count).map { $0 < near.partials.count ? near.partials[$0] : 0 }
    }

    /// A profile from partial amplitudes as measured (normalised to the strongest).
    public static func normalise(_ amplitudes: [Double]) -> [Double] {
        let top = amplitudes.max() ?? 0
        return top > 0 ? amplitudes.map { $0 / top } : amplitudes
    }
}
