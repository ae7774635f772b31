// Fits HandModel's weights on the hand-split test set (see README.md beside ../hands).
//
//   .venv-peers/bin/python Tests/LessonTests/Fixtures/fit-hand-model/dump-set.py > /tmp/hand-set.txt
//   swiftc -O Tests/LessonTests/Fixtures/fit-hand-model/{main,shim}.swift Sources/Lesson/HandModel.swift -o /tmp/fit
//   /tmp/fit /tmp/hand-set.txt                 wrong-hand figures with the current weights
//   /tmp/fit /tmp/hand-set.txt --pieces        … and per piece
//   /tmp/fit /tmp/hand-set.txt --fit 400       (1+1) evolution strategy on the share of wrong notes
//   /tmp/fit /tmp/hand-set.txt --fit 400 --half   fitted on every other piece, tested on the rest
//   name=value …                               start from other weights (names: HandModel.Features.names)
import Foundation

struct Piece {
    var name: String
    var style: String
    var tpq: Int
    var notes: [HandModel.Note] = []
    var truth: [Hand?] = []
}

let args = CommandLine.arguments
guard args.count > 1, let text = try? String(contentsOfFile: args[1], encoding: .utf8) else {
    print("usage: fit SET.txt [--pieces] [--fit N [--half]] [name=value…]")
    exit(2)
}
var pieces: [Piece] = []
for line in text.split(separator: "\n") {
    let f = line.split(separator: " ")
    if f.first == "#", f.count >= 4 {
        pieces.append(Piece(name: String(f[1]), style: String(f[2]), tpq: Int(f[3]) ?? 480))
    } else if f.count == 4, !pieces.isEmpty {
        let v = f.compactMap { Int($0) }
        guard v.count == 4 else { continue }
        pieces[pieces.count - 1].notes.append(HandModel.Note(start: v[0], end: v[1], pitch: v[2]))
        pieces[pieces.count - 1].truth.append(v[3] == 0 ? .right : .left)
    }
}
var weights = HandModel.Features.weights
for a in args where a.contains("=") {
    let kv = a.split(separator: "=")
    guard kv.count == 2, let i = HandModel.Features.names.firstIndex(of: String(kv[0])), let v = Double(kv[1]) else {
        print("unknown weight \(a)"); exit(2)
    }
    weights.values[i] = v
}

/// Notes in the wrong hand, matched by onset and key (as HandSplitCheck does).
func wrong(_ p: Piece, _ w: HandModel.Features) -> Int {
    var work = HandModel.Work()
    let hands = HandModel.split(p.notes, ticksPerQuarter: p.tpq, weights: w, work: &work).hands
    var expected: [Int: [Hand?]] = [:]
    for (n, h) in zip(p.notes, p.truth) { expected[n.start &* 128 &+ n.pitch, default: []].append(h) }
    var bad = 0
    for (n, h) in zip(p.notes, hands) {
        let key = n.start &* 128 &+ n.pitch
        if let i = expected[key]?.firstIndex(where: { $0 == h }) { expected[key]?.remove(at: i) } else { bad += 1 }
    }
    return bad
}

func report(_ set: [Piece], _ w: HandModel.Features, label: String, pieces showPieces: Bool = false) {
    var byStyle: [String: (notes: Int, wrong: Int)] = [:]
    for p in set {
        let bad = wrong(p, w)
        byStyle[p.style, default: (0, 0)].notes += p.notes.count
        byStyle[p.style, default: (0, 0)].wrong += bad
        if showPieces, p.style != "curriculum" {
            print(String(format: "  %@ (%@): %d of %d, %.2f %%", p.name, p.style, bad, p.notes.count, 100 * Double(bad) / Double(p.notes.count)))
        }
    }
    for (s, v) in byStyle.sorted(by: { $0.key < $1.key }) {
        print(String(format: "  %@: %d of %d, %.2f %%", s, v.wrong, v.notes, 100 * Double(v.wrong) / Double(max(1, v.notes))))
    }
    let all = byStyle.values.reduce((notes: 0, wrong: 0)) { ($0.notes + $1.notes, $0.wrong + $1.wrong) }
    print(String(format: "%@: %d of %d notes in the wrong hand, %.2f %%", label, all.wrong, all.notes, 100 * Double(all.wrong) / Double(max(1, all.notes))))
}

if let at = args.firstIndex(of: "--fit"), at + 1 < args.count, let iterations = Int(args[at + 1]) {
    let half = args.contains("--half")
    let train = half ? pieces.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) : pieces
    let test = half ? pieces.enumerated().filter { $0.offset % 2 == 1 }.map(\.element) : []
    let frozen: Set<String> = ["voiceSwitch", "dropped"]  // parts shared out only: not on this set
    func errors(_ w: HandModel.Features) -> Int { train.reduce(0) { $0 + wrong($1, w) } }
    var best = errors(weights)
    print("start: \(best) wrong")
    var rng = SystemRandomNumberGenerator()
    for it in 0..<iterations {
        var v = weights.values
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let i = Int.random(in: 0..<v.count, using: &rng)
            guard !frozen.contains(HandModel.Features.names[i]) else { continue }
            if v[i] == 0 {
                v[i] = [0.05, 0.2, 1, 4].randomElement(using: &rng) ?? 1
            } else if Double.random(in: 0..<1, using: &rng) < 0.1 {
                v[i] = 0
            } else {
                let u = Double.random(in: 1e-9..<1, using: &rng), t = Double.random(in: 0..<1, using: &rng)
                v[i] *= exp(0.5 * (-2 * log(u)).squareRoot() * cos(2 * .pi * t))
            }
        }
        var candidate = weights
        candidate.values = v
        let e = errors(candidate)
        if e < best || (e == best && Bool.random(using: &rng)) {
            if e < best { print("iteration \(it): \(e) wrong") }
            best = e
            weights = candidate
        }
    }
    print(zip(HandModel.Features.names, weights.values).map { "\($0)=\(String(format: "%.3g", $1))" }.joined(separator: " "))
    report(train, weights, label: half ? "fitted half" : "whole set")
    if half { report(test, weights, label: "other half", pieces: true) }
} else {
    report(pieces, weights, label: "whole set", pieces: args.contains("--pieces"))
}
