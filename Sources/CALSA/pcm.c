// ALSA PCM capture for `--input audio:alsa:DEVICE` (issue 30): a mono 16-bit stream at the
// asked rate (ALSA's plug layer converts when the device needs it), read in blocking fragments.
#include "shim.h"
#include <alsa/asoundlib.h>
#include <stdio.h>
#include <stdlib.h>

struct etude_pcm {
    snd_pcm_t *pcm;
    short *scratch;
    int capacity;
};

/* alsa-lib's own diagnostics would scribble over the screen: Etude says each failure as one line. */
static void quiet_pcm_errors(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void *etude_pcm_open(const char *device, int rate, char *err, int errlen) {
    snd_lib_error_set_handler(quiet_pcm_errors);
    snd_pcm_t *pcm = NULL;
    int rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0);
    if (rc < 0) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s", snd_strerror(rc));
        return NULL;
    }
    rc = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, (unsigned)rate, 1, 100000);
    if (rc < 0) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "it cannot record mono 16-bit at %d Hz (%s)", rate, snd_strerror(rc));
        snd_pcm_close(pcm);
        return NULL;
    }
    struct etude_pcm *p = calloc(1, sizeof *p);
    if (!p) { snd_pcm_close(pcm); return NULL; }
    p->pcm = pcm;
    return p;
}

int etude_pcm_read(void *handle, float *out, int frames, char *err, int errlen) {
    struct etude_pcm *p = handle;
    if (!p || frames <= 0) return -1;
    if (p->capacity < frames) {
        short *grown = realloc(p->scratch, sizeof(short) * (size_t)frames);
        if (!grown) return -1;
        p->scratch = grown;
        p->capacity = frames;
    }
    int done = 0, retries = 0;
    while (done < frames) {
        snd_pcm_sframes_t n = snd_pcm_readi(p->pcm, p->scratch + done, (snd_pcm_uframes_t)(frames - done));
        if (n < 0) {
            /* An overrun (the reader was late) or a suspend: recover and go on, a few times. */
            if (++retries > 8 || snd_pcm_recover(p->pcm, (int)n, 1) < 0) {
                if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s", snd_strerror((int)n));
                return -1;
            }
            continue;
        }
        done += (int)n;
    }
    for (int i = 0; i < frames; i++) out[i] = (float)p->scratch[i] / 32768.0f;
    return 0;
}

long long etude_pcm_delay_frames(void *handle) {
    struct etude_pcm *p = handle;
    snd_pcm_sframes_t d = 0;
    if (!p || snd_pcm_delay(p->pcm, &d) < 0 || d < 0) return 0;
    return (long long)d;
}

void etude_pcm_close(void *handle) {
    struct etude_pcm *p = handle;
    if (!p) return;
    snd_pcm_close(p->pcm);
    free(p->scratch);
    free(p);
}
