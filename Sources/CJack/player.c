// A JACK client that plays a buffer of samples once into an audio port: the tests' learner at
// etude:mic (issue 30), as paplay is through PulseAudio.
#include "etude_jack.h"
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct etude_jack_player {
    jack_client_t *client;
    jack_port_t *out;
    float *samples;
    size_t count;
    _Atomic size_t position;
    _Atomic int playing;
};

static int player_process(jack_nframes_t n, void *arg) {
    struct etude_jack_player *p = arg;
    float *out = jack_port_get_buffer(p->out, n);
    memset(out, 0, sizeof(float) * n);
    if (!atomic_load_explicit(&p->playing, memory_order_acquire)) return 0;
    size_t pos = atomic_load_explicit(&p->position, memory_order_relaxed);
    size_t left = pos < p->count ? p->count - pos : 0;
    size_t take = left < n ? left : n;
    if (take) memcpy(out, p->samples + pos, sizeof(float) * take);
    atomic_store_explicit(&p->position, pos + take, memory_order_release);
    return 0;
}

etude_jack_player *etude_jack_player_open(const char *name, const float *samples, size_t count) {
    jack_status_t st = 0;
    jack_client_t *c = jack_client_open(name && *name ? name : "etude-player", JackNoStartServer, &st);
    if (!c) return NULL;
    struct etude_jack_player *p = calloc(1, sizeof *p);
    if (!p) { jack_client_close(c); return NULL; }
    p->client = c;
    p->samples = malloc(sizeof(float) * (count ? count : 1));
    if (!p->samples) { jack_client_close(c); free(p); return NULL; }
    if (count) memcpy(p->samples, samples, sizeof(float) * count);
    p->count = count;
    p->out = jack_port_register(c, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    jack_set_process_callback(c, player_process, p);
    if (!p->out || jack_activate(c) != 0) { jack_client_close(c); free(p->samples); free(p); return NULL; }
    return p;
}

int etude_jack_player_connect(etude_jack_player *p, const char *destination) {
    if (!p || !destination) return -1;
    return jack_connect(p->client, jack_port_name(p->out), destination);
}

void etude_jack_player_start(etude_jack_player *p) {
    if (p) atomic_store_explicit(&p->playing, 1, memory_order_release);
}

int etude_jack_player_done(etude_jack_player *p) {
    return p && atomic_load_explicit(&p->position, memory_order_acquire) >= p->count;
}

void etude_jack_player_close(etude_jack_player *p) {
    if (!p) return;
    jack_deactivate(p->client);
    jack_client_close(p->client);
    free(p->samples);
    free(p);
}
