#ifndef ETUDE_PLAYBACK_H
#define ETUDE_PLAYBACK_H
/* A recording played through FluidSynth's audio drivers (the same drivers the live synth
 * opens: PipeWire, PulseAudio, ALSA, JACK): the driver's callback copies the next frames of two
 * channels the caller owns and advances an atomic position. No lock, no allocation in it. */
typedef struct etude_playback etude_playback;

/* Opens the first driver of `drivers` that works at `rate` Hz, playing `frames` frames of
 * `left`/`right` (kept alive by the caller until etude_playback_close). NULL when none opens;
 * `opened` gets the index of the driver that did. */
etude_playback *etude_playback_open(const char *const *drivers, int count, double rate,
                          const float *left, const float *right, long frames, int *opened);
/* Frames the driver has pulled so far. */
long etude_playback_position(etude_playback *p);
void etude_playback_close(etude_playback *p);
#endif
