import Foundation

// etude-bench: speed and memory figures for `make bench` (release builds only).
// Each subcommand prints one JSON object; scripts/bench.sh adds the peers' figures and ratios.
let args = Array(CommandLine.arguments.dropFirst())
let usage = """
usage: etude-bench parse PATH… [--passes N]     MIDI parsing throughput
       etude-bench gen-stress OUT.mid [--notes N] generate the stress file
       etude-bench gen-corpus DIR               generate the real-size parse corpus
       etude-bench input                        input → note-on latency
       etude-bench store                        10,000-lesson catalogue: search, rescan
       etude-bench render [SOUNDFONT]           render speed and onsets vs fluidsynth -F
       etude-bench jitter [SECONDS]             live dispatch jitter
       etude-bench screen                       frame build + diff time, bytes per frame (keyboard and staff views)
       etude-bench lesson [--notes N]           building a lesson from pathological files
       etude-bench abc [--kb N | --notes N]     ABC import time of one big tune (1 MB)
       etude-bench musicxml [--notes N] [--write PATH]  opening a generated N-note MusicXML score
       etude-bench listen SOUNDFONT LESSON.mid…   the microphone listener on rendered performances (found, false wrongs, CPU)
       etude-bench practice-open FILE --etude P first frame, frame gaps and peak RSS of `etude practice FILE`
       etude-bench judge [--notes N]            judging a recorded performance (onsets, releases, loudness)
       etude-bench follow LESSON.mid… [--write DIR]  the score follower: alignment accuracy on perturbed performances, work per key
       etude-bench history --etude P [--passes N]  today/next/stats on a history of N passes (default 1,000,000) vs SQLite's full sum
       etude-bench jack-latency --etude P --soundfont SF2 [--notes N]  key → sound frames on JACK vs fluidsynth
       etude-bench pulse-latency --etude P --soundfont SF2 --sink NAME [--notes N] [--settle S]  key → sound ms on PulseAudio vs fluidsynth
       etude-bench recording-material OUT LESSON.mid… [--minutes M]  tempo-curved performances and their bar starts (etude align's bench)
       etude-bench listen-material OUT KIND LESSON.mid…  performances (right, both, pedal, chords, planted) for the listener beside basic-pitch
"""
switch args.first {
case "parse": print(ParseBench.run(Array(args.dropFirst())))
case "gen-stress": print(StressFile.run(Array(args.dropFirst())))
case "gen-corpus": print(RealSizeCorpus.run(Array(args.dropFirst())))
case "input": print(InputBench.run())
case "store":
    do { try StoreBench.run() } catch {
        FileHandle.standardError.write(Data("etude-bench store: \(error)\n".utf8))
        exit(1)
    }
case "render": exit(renderBenchmark(arguments: Array(args.dropFirst())))
case "jitter": exit(dispatchJitterBenchmark(arguments: Array(args.dropFirst())))
case "screen": runScreenBench(arguments: Array(args.dropFirst()))
case "lesson": print(LessonBench.run(Array(args.dropFirst())))
case "abc": print(ABCBench.run(Array(args.dropFirst())))
case "musicxml": print(MusicXMLBench.run(Array(args.dropFirst())))
case "practice-open": print(OpenBench.run(Array(args.dropFirst())))
case "listen": exit(ListenBench.run(Array(args.dropFirst())))
case "judge": print(JudgeBench.run(Array(args.dropFirst())))
case "follow": print(FollowBench.run(Array(args.dropFirst())))
case "history":
    do { print(try HistoryBench.run(Array(args.dropFirst()))) } catch {
        FileHandle.standardError.write(Data("etude-bench history: \(error)\n".utf8))
        exit(1)
    }
case "jack-latency": print(JackBench.run(Array(args.dropFirst())))
case "pulse-latency": print(PulseBench.run(Array(args.dropFirst())))
case "recording-material": exit(RecordingBench.run(Array(args.dropFirst())))
case "listen-material": exit(ListenMaterialBench.run(Array(args.dropFirst())))
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
