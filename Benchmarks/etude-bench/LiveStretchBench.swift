import CAudioMix
import Foundation
import RecordingAudio
import Synchronization

/// `etude-bench recording-loop RECORDING --from S --to S [--tempo P] [--seconds N] [--rate HZ]
/// [--period FRAMES]`: a passage of a recording looped live at P % as `etude practice
/// --recording --bars` loops it — `RecordingVoice`'s worker stretching it with Rubber Band's
/// real-time stretcher into the ring — while a consumer thread pulls the ring as an audio
/// callback does, one period at a time at the default buffer (640-frame periods at 48 kHz, 3 of
/// them: 40 ms), for N seconds of real time. Prints the underruns (periods the ring could not
/// fill), the loop joins, the jumps and the engine, as JSON. The peer, timed by the script in
/// the same run, is the `rubberband` command's own real-time mode on the same passage.
enum LiveStretchBench {
    static func run(_ args: [String]) -> Int32 {
        var path: String?
        var from = 0.0, to = 0.0, tempo = 70.0, seconds = 300.0, givenRate = 48_000, givenPeriod = 640
        var i = 0
        while i < args.count {
            let value = i + 1 < args.count ? args[i + 1] : ""
            switch args[i] {
            case "--from": from = Double(value) ?? 0; i += 2
            case "--to": to = Double(value) ?? 0; i += 2
            case "--tempo": tempo = Double(value) ?? 70; i += 2
            case "--seconds": seconds = Double(value) ?? 300; i += 2
            case "--rate": givenRate = Int(value) ?? 48_000; i += 2
            case "--period": givenPeriod = Int(value) ?? 640; i += 2
            default: path = args[i]; i += 1
            }
        }
        guard let path, to > from, let file = try? RecordingFile(path: path) else {
            FileHandle.standardError.write(Data("usage: etude-bench recording-loop RECORDING --from S --to S [--tempo P] [--seconds N]\n".utf8))
            return 2
        }
        let (rate, period) = (givenRate, givenPeriod)
        let started = MonotonicSeconds.now()
        let speed = tempo / 100
        // The music as the session would publish it: playing from `from` since `started`, looping.
        let target = RecordingVoice.Target(playing: true, position: from, wall: started, speed: speed, loop: from...to, end: to)
        let voice = RecordingVoice(file: file, outputRate: rate, outputLatency: Double(period * 3) / Double(rate)) { target }
        let stop = StopFlag()
        let consumer = Thread {
            // As an audio callback's thread is (FluidSynth's drivers ask for 60; JACK's is higher).
            var param = sched_param()
            param.sched_priority = 70
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
            var l = [Float](repeating: 0, count: period), r = l
            let step = Double(period) / Double(rate)
            var due = MonotonicSeconds.now()
            while !stop.value.load(ordering: .relaxed) {
                l.withUnsafeMutableBufferPointer { lp in
                    r.withUnsafeMutableBufferPointer { rp in
                        for k in 0..<period { lp[k] = 0; rp[k] = 0 }
                        etude_mix_add(lp.baseAddress, 1, rp.baseAddress, 1, Int32(period))
                    }
                }
                due += step
                let wait = due - MonotonicSeconds.now()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            }
        }
        consumer.start()
        voice.start()
        let begun = MonotonicSeconds.now()
        while MonotonicSeconds.now() - begun < seconds { usleep(100_000) }
        let figures = voice.figures
        voice.stop()
        stop.value.store(true, ordering: .relaxed)
        usleep(50_000)
        let passage = (to - from) / speed
        print("{\"seconds\": \(Int(seconds)), \"rate\": \(rate), \"period\": \(period), \"tempo\": \(tempo), \"passageSeconds\": \(String(format: "%.2f", passage)), "
              + "\"engine\": \"\(voice.engine.rawValue)\", \"underruns\": \(figures.underruns), \"loopJoins\": \(figures.loopJoins), \"jumps\": \(figures.jumps)}")
        return 0
    }
}

/// The monotonic clock in seconds (the bench has no Clocks dependency here).
enum MonotonicSeconds {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The consumer's stop flag.
final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
