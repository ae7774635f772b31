import App
import Judge
import Testing

/// `etude judge`'s text: no line about a note is printed without what went wrong with it.
@Suite struct JudgeLineTests {
    @Test func aNoteStruckRightAfterAWrongKeySaysSo() {
        var n = NoteVerdict(id: 0, bar: "1", beat: 1, pitch: 60, hand: "right", onset: .hit)
        n.wrongKeyFirst = true
        #expect(n.isFault)
        #expect(PerformanceJudge.line(n) == "bar 1 beat 1  C4  RH  \(VerdictMark.wrongKeyFirst.word)")
        let wrong = NoteVerdict(id: 1, bar: "2", beat: 3, pitch: 64, hand: "left", onset: .wrong)
        #expect(PerformanceJudge.line(wrong) == "bar 2 beat 3  E4  LH  \(VerdictMark.wrong.word)")
    }
}
