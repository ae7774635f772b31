import Jack
import MIDIInput
import Synth
import Testing

/// The pure rules behind the JACK path's dropouts, floods and xruns (issues 38 and 40), on
/// virtual times and made-up servers: what is said, once, and when.
@Suite struct InputWatchTests {
    @Test func aFloodStartsPastAKeyboardsRateAndEndsAfterACalmSecond() {
        var guardian = FloodGuard()
        // A keyboard's rate (200 events a second) passes, for ten seconds.
        var t = 0.0
        for _ in 0..<2000 {
            #expect(guardian.step(at: t) == .pass)
            t += 0.005
        }
        // 100 k events a second: the first window's share passes, then the flood is said once.
        var steps: [FloodGuard.Step] = []
        for _ in 0..<50_000 {
            steps.append(guardian.step(at: t))
            t += 0.00001
        }
        #expect(steps.filter { $0 == .started }.count == 1)
        #expect(steps.filter { $0 == .pass }.count <= FloodGuard.maxEvents, "bounded: at most a window's share gets through")
        #expect(steps.last == .dropped)
        // Calm again (a key every 0.1 s): dropped until a whole second passed, then said once.
        var after: [FloodGuard.Step] = []
        for _ in 0..<30 {
            t += 0.1
            after.append(guardian.step(at: t))
        }
        #expect(after.filter { $0 == .ended }.count == 1, "\(after)")
        #expect(after.prefix(while: { $0 == .dropped }).count <= 11, "\(after)")
        #expect(after.last == .pass)
        #expect(!guardian.flooding)
        // A long silence ends a flood at once.
        var quiet = FloodGuard()
        for i in 0...FloodGuard.maxEvents { _ = quiet.step(at: Double(i) * 1e-6) }
        #expect(quiet.flooding)
        #expect(quiet.step(at: 60) == .ended)
    }

    @Test func floodLinesFitEightyColumns() {
        let name = "a2j:Some Very Long Digital Piano Name [24] (capture): MIDI 1"
        #expect(FloodGuard.startedLine(name).count <= InputWatchText.budget, "\(FloodGuard.startedLine(name))")
        #expect(FloodGuard.endedLine(name).count <= InputWatchText.budget)
        #expect(FloodGuard.startedLine("piano-key:out") == "MIDI flood on piano-key:out (>2728/s): ignored")
    }

    @Test func aPortThatDisappearsIsSaidOnceAndReconnectedByNameWhenItReturns() {
        var present: Set<String> = ["piano:out", "other:out"]
        var watch = JackPortWatch(connected: ["piano:out"], at: 0)
        #expect(watch.observe(connections: ["piano:out"], exists: present.contains, at: 1).isEmpty)
        // Its client exits: the server disconnects the port, then (a moment later) unregisters it.
        #expect(watch.observe(connections: [], exists: present.contains, at: 1.2).isEmpty)
        present.remove("piano:out")
        #expect(watch.observe(connections: [], exists: present.contains, at: 1.4) == [.gone("piano:out")])
        #expect(watch.isWaiting && watch.missing == ["piano:out"])
        #expect(watch.observe(connections: [], exists: present.contains, at: 2).isEmpty, "said once")
        present.insert("piano:out")
        #expect(watch.observe(connections: [], exists: present.contains, at: 9) == [.back("piano:out")])
        watch.reconnected("piano:out", at: 9)
        #expect(!watch.isWaiting)
        #expect(watch.observe(connections: ["piano:out"], exists: present.contains, at: 10).isEmpty)
        // Disconnected by hand (the port still exists): forgotten after the grace, not awaited.
        #expect(watch.observe(connections: [], exists: present.contains, at: 13).isEmpty)
        present.remove("piano:out")
        #expect(watch.observe(connections: [], exists: present.contains, at: 14).isEmpty)
        let long = JackPortWatch.line(.gone("a2j:Some Very Long Digital Piano Name [24] (capture): MIDI 1"))
        #expect(long.count <= InputWatchText.budget, "\(long)")
        #expect(JackPortWatch.line(.back("piano:out")) == "Keyboard piano:out is back: reconnected")
    }

    @Test func xrunsAreSaidWithTheFixAtMostEveryTenSeconds() {
        var notice = XrunNotice(seen: 3)
        #expect(notice.observe(total: 3, at: 0, period: 64) == nil, "the server's start-up xruns are not the learner's")
        #expect(notice.observe(total: 5, at: 1, period: 64) == nil, "two xruns: a client joining, not yet a line")
        #expect(notice.observe(total: 6, at: 2, period: 64) == "3 JACK xruns: use a larger period (jackd -p 128)")
        #expect(notice.observe(total: 10, at: 5, period: 64) == nil, "at most every ten seconds")
        #expect(notice.observe(total: 11, at: 13, period: 64) == "5 JACK xruns: use a larger period (jackd -p 128)")
        #expect(XrunNotice.line(count: 100_000, period: 4096).count <= InputWatchText.budget)
    }

    @Test func theServerStoppingSaysWhatWasLostInOneLineThatFits() {
        #expect(JackStopLine.line(sound: JackStopLine.sound(movedTo: nil), input: "etude:midi_in")
            == "JACK server gone: silent; no notes from etude:midi_in")
        #expect(JackStopLine.line(sound: JackStopLine.sound(movedTo: "pulseaudio"), input: nil)
            == "JACK server gone: sound via pulseaudio")
        let long = JackStopLine.line(sound: JackStopLine.sound(movedTo: "pulseaudio"),
                                     input: "a2j:Some Very Long Digital Piano Name [24] (capture): MIDI 1")
        #expect(long.count <= InputWatchText.budget, "\(long)")
    }
}
