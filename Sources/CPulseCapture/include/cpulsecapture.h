#ifndef CPULSECAPTURE_H
#define CPULSECAPTURE_H
// Plain C over PulseAudio's simple API (PipeWire serves it too): a mono float recording
// stream from a source, read in blocking fragments on the caller's thread.

/// Opens a recording of `source` (NULL: the default source) at `rate`, mono float. Returns a
/// handle, or NULL with a message in `err`.
void *etude_capture_open(const char *source, int rate, int fragment_frames, char *err, int errlen);
/// Reads exactly `frames` samples (blocks about that long). 0 on success, -1 with `err`.
int etude_capture_read(void *handle, float *buffer, int frames, char *err, int errlen);
/// Microseconds of audio between the microphone and this program (the server's report).
long long etude_capture_latency_us(void *handle);
void etude_capture_close(void *handle);

#endif
