# Reads swift-testing run logs and prints how many tests were skipped and why, one line:
#   skipped: 3 — tmux is not installed (apt-get install tmux) ×2, no ALSA sequencer here (…)
# or `skipped: none`. A skipped test's line ends in `skipped: "reason"` (or `skipped.`).
/ Test .* skipped(: ".*")?\.?$/ {
    reason = "no reason given"
    if (match($0, /skipped: ".*"$/)) reason = substr($0, RSTART + 10, RLENGTH - 11)
    n++
    if (!(reason in count)) order[++kinds] = reason
    count[reason]++
}
END {
    if (n == 0) { print "skipped: none"; exit }
    line = "skipped: " n " —"
    for (i = 1; i <= kinds; i++) {
        r = order[i]
        line = line (i > 1 ? "," : "") " " r (count[r] > 1 ? " ×" count[r] : "")
    }
    print line
}
