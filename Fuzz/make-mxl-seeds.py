#!/usr/bin/env python3
"""Writes Fuzz/mxl-seeds/: small .mxl archives for the MXL fuzz target (Fuzz/FuzzMXL.swift),
whole ones (deflated, stored, data descriptors) and damaged ones (end record, directory, local
headers and data cut or pointing past the end). Run from the repository root; deterministic."""
import io, struct, zipfile, pathlib

out = pathlib.Path("Fuzz/mxl-seeds")
out.mkdir(parents=True, exist_ok=True)
score = pathlib.Path("Fuzz/musicxml-seeds/timewise.musicxml").read_bytes()
score2 = pathlib.Path("Fuzz/musicxml-seeds/pickup-endings-ties.musicxml").read_bytes()
container = (b'<?xml version="1.0" encoding="UTF-8"?>\n<container><rootfiles>'
             b'<rootfile full-path="score.musicxml" media-type="application/vnd.recordare.musicxml+xml"/>'
             b'</rootfiles></container>')

def archive(entries, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return bytearray(buf.getvalue())

def streamed(entries):
    # Entries written through a stream: sizes in a data descriptor after the data (flag 0x08).
    class Pipe(io.RawIOBase):
        def __init__(self): self.b = bytearray()
        def writable(self): return True
        def write(self, d): self.b += d; return len(d)
    pipe = Pipe()
    with zipfile.ZipFile(pipe, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w") as f:
                f.write(data)
    return bytearray(pipe.b)

mime = ("mimetype", b"application/vnd.recordare.musicxml")
good = archive([mime, ("META-INF/container.xml", container), ("score.musicxml", score)])
seeds = {
    "whole-deflated": good,
    "whole-stored": archive([mime, ("META-INF/container.xml", container), ("score.musicxml", score)], zipfile.ZIP_STORED),
    "whole-longer": archive([("META-INF/container.xml", container), ("score.musicxml", score2)]),
    "whole-descriptors": streamed([("META-INF/container.xml", container), ("score.musicxml", score)]),
    "no-container": archive([("score.musicxml", score)]),
    "no-rootfile": archive([("META-INF/container.xml", b"<container><rootfiles/></container>"), ("score.musicxml", score)]),
    "rootfile-missing": archive([("META-INF/container.xml", container)]),
}

def end_of_directory(b):
    return bytes(b).rfind(b"PK\x05\x06")

def damaged(name, f):
    b = bytearray(good)
    f(b)
    seeds[name] = b

e = end_of_directory(good)
damaged("directory-past-end", lambda b: struct.pack_into("<I", b, e + 16, len(b) + 1000))
damaged("directory-size-past-end", lambda b: struct.pack_into("<I", b, e + 12, len(b)))
damaged("entries-too-many", lambda b: (struct.pack_into("<H", b, e + 8, 200), struct.pack_into("<H", b, e + 10, 200)))
damaged("comment-past-end", lambda b: struct.pack_into("<H", b, e + 20, 500))
directory = struct.unpack_from("<I", good, e + 16)[0]
damaged("local-past-end", lambda b: struct.pack_into("<I", b, directory + 42, len(b) + 10))
damaged("compressed-size-huge", lambda b: struct.pack_into("<I", b, directory + 20, 0x7FFFFFFF))
damaged("name-length-huge", lambda b: struct.pack_into("<H", b, directory + 28, 0xFFF0))
damaged("zip64-marker", lambda b: struct.pack_into("<I", b, e + 16, 0xFFFFFFFF))
seeds["cut-short"] = good[: len(good) // 2]
seeds["end-only"] = good[e:]
seeds["deflate-garbled"] = good[:60] + bytes(x ^ 0x5A for x in good[60:120]) + good[120:]
for name, data in seeds.items():
    (out / f"{name}.mxl").write_bytes(bytes(data))
print(f"{len(seeds)} seeds in {out}")
