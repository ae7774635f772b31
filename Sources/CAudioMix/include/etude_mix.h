#ifndef ETUDE_MIX_H
#define ETUDE_MIX_H
/* A recording mixed into the live synth's sound (etude practice --recording): one process-wide
 * single-producer / single-consumer ring of stereo frames. The producer is Etude's stretching
 * worker (Swift, RecordingVoice); the consumer is whichever audio callback renders the synth —
 * the JACK client's process(), FluidSynth's driver callback, Etude's PulseAudio stream — which
 * adds the frames to the synth's after rendering it. The callback side takes no lock, allocates
 * nothing and never waits: atomics only. The ring lives for the process (never freed), so a
 * callback can never read freed memory. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frames the ring holds (a power of two): 2.7 s at 48 kHz, far more than the worker keeps queued. */
#define ETUDE_MIX_CAPACITY 131072u

/* Consumer (audio callback): adds up to `n` queued frames to l[i*lstride], r[i*rstride]. Nothing
 * happens unless the producer made the ring active; a paused ring adds nothing and keeps its frames;
 * a flush fades out what was queued over a few milliseconds and drops the rest. An active, playing
 * ring with fewer frames than asked counts one underrun. */
void etude_mix_add(float *l, int lstride, float *r, int rstride, int n);

/* Producer (one thread). */
/* Turns the mix on or off (off: the callbacks skip it entirely). */
void etude_mix_set_active(int on);
/* Held (1): the callbacks fade out and add nothing, keeping what is queued for when it goes on (0). */
void etude_mix_set_paused(int paused);
/* Frames queued and not yet played (after any flush asked for). */
uint32_t etude_mix_queued(void);
/* Copies `n` frames in; returns the frames written (fewer when the ring is full). */
uint32_t etude_mix_write(const float *l, const float *r, uint32_t n);
/* Drops everything queued (faded out by the callback), so what is written next plays next. */
void etude_mix_flush(void);
/* Underruns counted while active and playing, and frames the callbacks consumed. */
uint64_t etude_mix_underruns(void);
uint64_t etude_mix_consumed(void);
/* A consumer callback ran within the last `usecs` microseconds (1), else 0: nothing is pulling. */
int etude_mix_pulled_within(uint64_t usecs);

#ifdef __cplusplus
}
#endif
#endif
