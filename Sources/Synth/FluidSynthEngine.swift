import Clocks
import CFluidSynth
import Foundation
import MIDIFile

/// What went wrong in the sound layer, as one line a user can act on.
public struct SynthError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One FluidSynth instance (settings + synth + loaded SoundFont) behind Swift methods.
///
/// FluidSynth's public API is thread-safe by default (`synth.threadsafe-api`), so the engine
/// may be driven from the dispatcher thread while the audio driver renders on its own.
public final class FluidSynthEngine: @unchecked Sendable {
    let handle: OpaquePointer
    public let sampleRate: Double
    public private(set) var soundFontPath: String?

    /// Settings are applied by name before the synth is created (e.g. `synth.reverb.active`).
    public init(sampleRate: Double, settings: [String: SettingValue] = [:]) throws(SynthError) {
        guard let h = etude_fs_new() else { throw SynthError("FluidSynth could not allocate its settings") }
        handle = h
        self.sampleRate = sampleRate
        _ = etude_fs_set_num(h, "synth.sample-rate", sampleRate)
        for (name, value) in settings {
            let ok: Int32
            switch value {
            case .int(let v): ok = etude_fs_set_int(h, name, Int32(clamping: v))
            case .number(let v): ok = etude_fs_set_num(h, name, v)
            case .string(let v): ok = etude_fs_set_str(h, name, v)
            }
            // No etude_fs_free here: every property is set, so deinit frees the handle (freeing it
            // here too was a double free that crashed on a refused setting).
            if ok == 0 {
                throw SynthError("FluidSynth rejected setting \(name)=\(value)")
            }
        }
        guard etude_fs_start_synth(h) != 0 else {
            throw SynthError("FluidSynth could not create a synthesizer (see --verbose)")
        }
    }

    deinit { etude_fs_free(handle) }

    public enum SettingValue: Sendable, CustomStringConvertible {
        case int(Int), number(Double), string(String)
        public var description: String {
            switch self {
            case .int(let v): return String(v)
            case .number(let v): return String(v)
            case .string(let v): return v
            }
        }
    }

    /// Loads the font; `onSlow` is called every ~0.25 s with elapsed seconds once loading has
    /// taken longer than half a second (large fonts), so the caller can show progress.
    public func loadSoundFont(_ path: String, onSlow: (@Sendable (Double) -> Void)? = nil) throws(SynthError) {
        let started = MonotonicClock.seconds()
        let done = LoadFlag()
        var watcher: Thread?
        if let onSlow {
            let t = Thread {
                var next = 0.5
                while !done.isSet {
                    usleep(50_000)
                    let elapsed = MonotonicClock.seconds() - started
                    if elapsed >= next && !done.isSet {
                        onSlow(elapsed)
                        next = elapsed + 0.25
                    }
                }
            }
            t.start()
            watcher = t
        }
        let id = etude_fs_load_soundfont(handle, path)
        done.set()
        _ = watcher
        guard id >= 0 else {
            throw SynthError("\(path): not a usable SoundFont (FluidSynth could not load it)")
        }
        soundFontPath = path
    }

    /// Sends one message as it appears in the file. Bank select travels as CC 0/32 and is
    /// honoured by FluidSynth at the next program change; channel 10 is the GM drum channel.
    public func send(_ message: MIDIEvent.Kind) {
        switch message {
        case .noteOn(let c, let k, let v): etude_fs_note_on(handle, Int32(c), Int32(k), Int32(v))
        case .noteOff(let c, let k, _): etude_fs_note_off(handle, Int32(c), Int32(k))
        case .controlChange(let c, let n, let v): etude_fs_control_change(handle, Int32(c), Int32(n), Int32(v))
        case .programChange(let c, let p): etude_fs_program_change(handle, Int32(c), Int32(p))
        case .pitchBend(let c, let v): etude_fs_pitch_bend(handle, Int32(c), Int32(v))
        case .channelPressure(let c, let v): etude_fs_channel_pressure(handle, Int32(c), Int32(v))
        case .polyPressure(let c, let k, let v): etude_fs_key_pressure(handle, Int32(c), Int32(k), Int32(v))
        case .sysex(let data):
            var body = data
            if body.first == 0xF0 { body.removeFirst() }
            if body.last == 0xF7 { body.removeLast() }
            guard !body.isEmpty else { return }
            body.withUnsafeBufferPointer { etude_fs_sysex(handle, $0.baseAddress, Int32($0.count)) }
        case .meta, .escape:
            return
        }
    }

    /// Explicit bank + program (bank 128 selects the drum kits in GM SoundFonts).
    @discardableResult
    public func selectProgram(channel: Int, bank: Int, program: Int) -> Bool {
        etude_fs_bank_program(handle, Int32(channel), Int32(bank), Int32(program)) != 0
    }

    public func allNotesOff() { etude_fs_all_notes_off(handle) }
    public func allSoundsOff() { etude_fs_all_sounds_off(handle) }
    public var activeVoices: Int { Int(etude_fs_active_voices(handle)) }

    /// Renders `frames` stereo frames into the two buffers (which must hold that many).
    public func render(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        _ = etude_fs_render(handle, Int32(frames), left, right)
    }

    /// Opens the first driver of `drivers` that works; returns its name, or nil (silent).
    public func startAudio(drivers: [String]) -> String? {
        var cStrings = drivers.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let index = cStrings.withUnsafeMutableBufferPointer { buf -> Int32 in
            buf.withMemoryRebound(to: UnsafePointer<CChar>?.self) { etude_fs_start_audio(handle, $0.baseAddress, Int32($0.count)) }
        }
        return index >= 0 && Int(index) < drivers.count ? drivers[Int(index)] : nil
    }

    /// FluidSynth's `fluid_synth_t`, for Etude's JACK client to render in its callback.
    public var synthPointer: UnsafeMutableRawPointer? { etude_fs_synth_pointer(handle) }

    /// Frames rendered so far; it advances once a live driver really pulls audio.
    public var renderedFrames: UInt32 { UInt32(etude_fs_ticks(handle)) }

    public func stopAudio() { etude_fs_stop_audio(handle) }

    public func settingNumber(_ name: String) -> Double { etude_fs_get_num(handle, name) }
    public func settingInt(_ name: String) -> Int { Int(etude_fs_get_int(handle, name)) }
}

/// FluidSynth's own log lines, captured instead of printed; shown with `--verbose`.
public enum FluidSynthLog {
    /// Starts capturing (also done by every engine); call before anything else touches FluidSynth.
    public static func capture() { etude_fs_capture_log() }

    /// The captured lines since the last call, then cleared.
    public static func take() -> String {
        var buf = [CChar](repeating: 0, count: 1 << 16)
        let n = etude_fs_log_take(&buf, buf.count)
        guard n > 0 else { return "" }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private final class LoadFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
