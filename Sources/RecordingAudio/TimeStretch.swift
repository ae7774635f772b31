import CRubberBand
import Foundation

/// A passage made slower or faster without its pitch changing, by the Rubber Band library:
/// its R3 ("finer") engine where the library has it, else R2. Offline (the whole passage is
/// studied first), which is what `etude render --recording` writes.
public enum TimeStretch {
    public enum Engine: String, Sendable {
        case r3 = "Rubber Band R3 (finer)"
        case r2 = "Rubber Band R2 (faster)"
    }

    /// The passage at `tempo` (0.7 = 70 %: 1/0.7 times as long), and the engine that did it.
    public static func stretch(_ channels: [[Float]], sampleRate: Int, tempo: Double) -> (channels: [[Float]], engine: Engine) {
        let count = channels.first?.count ?? 0
        guard count > 0, tempo > 0, tempo.isFinite else { return (channels, .r3) }
        let options = Int32(RubberBandOptionProcessOffline.rawValue | RubberBandOptionEngineFiner.rawValue)
        guard let rb = rubberband_new(UInt32(sampleRate), UInt32(channels.count), options, 1 / tempo, 1) else {
            return (channels, .r2)
        }
        defer { rubberband_delete(rb) }
        let engine: Engine = rubberband_get_engine_version(rb) >= 3 ? .r3 : .r2
        rubberband_set_expected_input_duration(rb, UInt32(count))
        let block = 4096
        rubberband_set_max_process_size(rb, UInt32(block))
        // Blocks copied into buffers Etude owns, so no pointer outlives the array it points into.
        let inputs = channels.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        let outputs = channels.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { (inputs + outputs).forEach { $0.deallocate() } }
        let inputList = inputs.map { UnsafePointer<Float>?(UnsafePointer($0)) }
        let outputList = outputs.map { Optional($0) }
        func feed(_ body: (UnsafePointer<UnsafePointer<Float>?>, UInt32, Int32) -> Void) {
            var at = 0
            while at < count {
                let n = min(block, count - at)
                for c in channels.indices {
                    channels[c].withUnsafeBufferPointer { src in inputs[c].update(from: src.baseAddress! + at, count: n) }
                }
                inputList.withUnsafeBufferPointer { body($0.baseAddress!, UInt32(n), at + n >= count ? 1 : 0) }
                at += n
            }
        }
        feed { p, n, last in rubberband_study(rb, p, n, last) }
        var out = [[Float]](repeating: [], count: channels.count)
        let expected = Int((Double(count) / tempo).rounded())
        for c in out.indices { out[c].reserveCapacity(expected + block) }
        func drain() {
            while true {
                let available = Int(rubberband_available(rb))
                guard available > 0 else { return }
                let got = Int(outputList.withUnsafeBufferPointer { rubberband_retrieve(rb, $0.baseAddress!, UInt32(min(available, block))) })
                if got == 0 { return }
                for c in out.indices { out[c].append(contentsOf: UnsafeBufferPointer(start: outputs[c], count: got)) }
            }
        }
        feed { p, n, last in
            rubberband_process(rb, p, n, last)
            drain()
        }
        drain()
        return (out, engine)
    }
}
