#include "playback.h"
#include <fluidsynth.h>
#include <stdlib.h>

struct etude_playback {
    fluid_settings_t *settings;
    fluid_audio_driver_t *driver;
    const float *left;
    const float *right;
    long frames;
    long position; /* atomic */
};

static int pcm_callback(void *data, int len, int nfx, float **fx, int nout, float **out) {
    (void)nfx; (void)fx;
    struct etude_playback *p = data;
    long at = __atomic_load_n(&p->position, __ATOMIC_RELAXED);
    for (int i = 0; i < len; i++) {
        long k = at + i;
        float l = k < p->frames ? p->left[k] : 0.0f;
        float r = k < p->frames ? p->right[k] : 0.0f;
        if (nout > 0) out[0][i] = l;
        if (nout > 1) out[1][i] = r;
    }
    for (int c = 2; c < nout; c++) for (int i = 0; i < len; i++) out[c][i] = 0.0f;
    __atomic_store_n(&p->position, at + len, __ATOMIC_RELAXED);
    return FLUID_OK;
}

etude_playback *etude_playback_open(const char *const *drivers, int count, double rate,
                          const float *left, const float *right, long frames, int *opened) {
    struct etude_playback *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->settings = new_fluid_settings();
    if (!p->settings) { free(p); return NULL; }
    fluid_settings_setnum(p->settings, "synth.sample-rate", rate);
    fluid_settings_setint(p->settings, "audio.jack.autoconnect", 1);
    p->left = left;
    p->right = right;
    p->frames = frames;
    for (int i = 0; i < count; i++) {
        if (fluid_settings_setstr(p->settings, "audio.driver", drivers[i]) != FLUID_OK) continue;
        p->driver = new_fluid_audio_driver2(p->settings, pcm_callback, p);
        if (p->driver) { if (opened) *opened = i; return p; }
    }
    delete_fluid_settings(p->settings);
    free(p);
    return NULL;
}

long etude_playback_position(etude_playback *p) { return p ? __atomic_load_n(&p->position, __ATOMIC_RELAXED) : 0; }

void etude_playback_close(etude_playback *p) {
    if (!p) return;
    if (p->driver) delete_fluid_audio_driver(p->driver);
    delete_fluid_settings(p->settings);
    free(p);
}
