#ifndef ETUDE_PULSE_OUT_H
#define ETUDE_PULSE_OUT_H
// Etude's own PulseAudio playback stream (PipeWire's pulse server answers it too) rendering a
// FluidSynth synth in the stream's write callback. Unlike FluidSynth's pulseaudio driver
// (pa_simple), it counts the server's underflows and can change its buffer while playing, so
// the live synth can settle on the smallest buffer that plays without gaps here.

#include <stdint.h>

typedef struct etude_pulse_out etude_pulse_out;

/// Opens a stereo float stream at `rate` on the default sink, asking for `buffer_frames` of
/// buffer requested `period_frames` at a time, rendering `fluid_synth` (a fluid_synth_t).
/// NULL when no server answers within `timeout_ms` or the stream fails (`err` says why).
etude_pulse_out *etude_pulse_out_open(void *fluid_synth, unsigned rate, unsigned buffer_frames, unsigned period_frames,
                                      int timeout_ms, char *err, int errlen);
/// Underflows the server reported since the stream opened (each one a gap in the sound).
uint32_t etude_pulse_out_underruns(etude_pulse_out *p);
/// Frames rendered so far.
uint64_t etude_pulse_out_rendered(etude_pulse_out *p);
/// Asks the server for a new buffer (frames) while playing. 0 on success.
int etude_pulse_out_set_buffer(etude_pulse_out *p, unsigned buffer_frames, unsigned period_frames);
/// The buffer the server granted (frames; 0 before it said).
unsigned etude_pulse_out_buffer(etude_pulse_out *p);
/// Microseconds from a note rendered now to the speakers, as the server reports it (0 unknown).
uint64_t etude_pulse_out_latency_us(etude_pulse_out *p);
/// 0 once the server went away.
int etude_pulse_out_alive(etude_pulse_out *p);
/// The default sink's name (the device a chosen buffer belongs to), "" when unknown.
void etude_pulse_out_device(etude_pulse_out *p, char *buf, int cap);
/// Stops the stream (the synth is no longer touched afterwards) and frees it.
void etude_pulse_out_close(etude_pulse_out *p);

#endif
