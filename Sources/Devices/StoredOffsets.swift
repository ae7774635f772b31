import Foundation
import Judge
import LessonLibrary
import MIDIInput
import Reports
import Store
import Terminal

/// The input offsets `etude calibrate` measured, as the library keeps them: stored when
/// trusted, listed (`--show`, with the microphones' set-ups), forgotten (`--reset`).
public enum StoredOffsets {
    /// Stores a trusted result for the device.
    public static func store(_ result: CalibrationResult, device: String, library: Library) throws {
        guard result.verdict == .trusted, let offset = result.offsetMs else { return }
        try library.withStore(scan: false) { s in
            try s.saveInputOffset(InputOffset(device: device, offsetMs: offset, spreadMs: result.spreadMs, taps: result.taps))
        }
    }

    // MARK: Stored offsets

    /// `etude calibrate --show`: every stored offset, one line each.
    public static func show(library: Library) throws -> String {
        let offsets = try library.withStore(scan: false) { try $0.inputOffsets() }
        let microphones = try AudioSetup.showLines(library: library)
        guard !offsets.isEmpty || !microphones.isEmpty else {
            return "No input calibrated yet: `etude calibrate` measures the computer keyboard, `etude calibrate --input midi` a MIDI keyboard, `etude calibrate --input audio` sets up a microphone.\n"
        }
        let rows = offsets.map { o in
            (InputDevice.description(o.device), "offset \(Int(saturating: o.offsetMs.rounded())) ms, spread \(Int(saturating: o.spreadMs.rounded())) ms", o.calibratedAt)
        } + microphones
        let width = min(48, rows.map { CellBuffer.width(of: $0.0) }.max() ?? 0)
        var out = ""
        for (name, text, date) in rows {
            let pad = String(repeating: " ", count: max(0, width - CellBuffer.width(of: name)))
            out += "\(name)\(pad)  \(text)  (\(Listing.date(date)))\n"
        }
        return out
    }

    /// `etude calibrate --reset [INPUT]`: forgets one device's offset; the line saying so.
    /// `target` is a device as `--show` prints it or as stored, or an input as `--input` names
    /// it; without one, `input`'s device.
    public static func reset(_ target: String?, input: InputSpec, library: Library) throws -> String {
        let reference = target ?? input.description
        let named = target.map { InputDeviceID.named($0) } ?? input.deviceID
        return try library.withStore(scan: false) { s in
            // A microphone's set-up, by its source as --input or --show names it.
            if let mic = try s.audioCalibrations().first(where: { $0.device == reference || InputDevice.description($0.device) == reference
                || $0.device == named }), try s.deleteAudioCalibration(device: mic.device) {
                return "cleared the set-up of \(InputDevice.description(mic.device))\n"
            }
            let stored = try s.inputOffsets()
            // A name as --show prints it or as stored, else what --input TEXT would open.
            let device = stored.first(where: { $0.device == reference || InputDevice.description($0.device) == reference })?.device
                ?? named
            // Nothing calibrated at all is already the state asked for; a name that matches none
            // of several stored offsets is more likely a typo, so it is refused with the names.
            if stored.isEmpty { return "nothing to clear: no input is calibrated yet\n" }
            guard let device, let old = stored.first(where: { $0.device == device }) else {
                let names = stored.map { InputDevice.description($0.device) }
                throw EtudeFailure("--reset \(safe(reference)): no offset is stored for it (stored: \(names.joined(separator: ", ")))")
            }
            try s.deleteInputOffset(device: device)
            return "cleared the offset of \(InputDevice.description(device)) (was \(Int(saturating: old.offsetMs.rounded())) ms)\n"
        }
    }
}
