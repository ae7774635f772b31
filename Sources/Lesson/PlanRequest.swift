import Foundation

/// What a command asked of the practice plan before a lesson is known (`--hand`, `--other`,
/// `--tempo`/`--bpm`, `--repeat`, `--speed-trainer`, `--final-slow-pass`, the metronome):
/// the rules across these settings live here, once, so every front end (the command line's
/// `validate()`, routines, the browser) refuses the same combinations in the same words.
public struct PlanRequest: Equatable, Sendable {
    public var hands: PracticePlan.Hands = .both
    /// The other hand; nil: the command's own default.
    public var otherHand: PracticePlan.OtherHand?
    public var tempo: TempoPercent?
    /// Quarter-note BPM the lesson's first tempo becomes.
    public var bpm: Double?
    /// Passes to play; nil: the command's own default.
    public var repeatMode: PracticePlan.Repeat?
    public var speedTrainer: PracticePlan.SpeedTrainer?
    /// With a speed trainer: end with one pass at its start tempo.
    public var finalSlowPass = false
    public var metronome = false
    public var metronomeVolume: MetronomeVolume?

    public init(hands: PracticePlan.Hands = .both, otherHand: PracticePlan.OtherHand? = nil, tempo: TempoPercent? = nil,
                bpm: Double? = nil, repeatMode: PracticePlan.Repeat? = nil, speedTrainer: PracticePlan.SpeedTrainer? = nil,
                finalSlowPass: Bool = false, metronome: Bool = false, metronomeVolume: MetronomeVolume? = nil) {
        self.hands = hands
        self.otherHand = otherHand
        self.tempo = tempo
        self.bpm = bpm
        self.repeatMode = repeatMode
        self.speedTrainer = speedTrainer
        self.finalSlowPass = finalSlowPass
        self.metronome = metronome
        self.metronomeVolume = metronomeVolume
    }

    /// The rules across settings, checked before anything opens: one tempo at most, the speed
    /// trainer sets the tempo itself, a final slow pass only with a speed trainer.
    public func check() throws(PlanError) {
        if tempo != nil && bpm != nil {
            throw PlanError("--tempo and --bpm both given: use one of them")
        }
        if let speedTrainer, tempo != nil || bpm != nil {
            throw PlanError("--speed-trainer \(speedTrainer.text): the speed trainer sets the tempo itself; drop --tempo/--bpm")
        }
        if speedTrainer == nil && finalSlowPass {
            throw PlanError("--final-slow-pass: only works with --speed-trainer START:TARGET:STEP")
        }
    }

    /// The plan asked for; `defaultOther` and `defaultRepeat` are the command's. With `lesson`,
    /// bars are read as the lesson numbers them (a score's printed bars, `12-16@2` the second
    /// time through); without, as counted bars. The plan is checked against the lesson where
    /// it is used (`PracticePlan.validate(for:)`).
    public func plan(bars: BarsArgument?, lesson: Lesson? = nil, defaultOther: PracticePlan.OtherHand,
                     defaultRepeat: PracticePlan.Repeat) throws(PlanError) -> PracticePlan {
        try check()
        var plan = PracticePlan()
        plan.hands = hands
        plan.otherHand = otherHand ?? defaultOther
        if let bars { plan.bars = try PracticePlan.bars(bars, in: lesson) }
        if let tempo { plan.tempo = .percent(tempo.value) }
        if let bpm { plan.tempo = .bpm(bpm) }
        plan.repeatMode = repeatMode ?? defaultRepeat
        if var speedTrainer {
            speedTrainer.finalSlowPass = finalSlowPass
            plan.speedTrainer = speedTrainer
        }
        plan.metronome = PracticePlan.Metronome(enabled: metronome, volume: metronomeVolume?.fraction ?? 0.8)
        return plan
    }
}
