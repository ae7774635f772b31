#include "etude_jack.h"
#include <jack/jack.h>
#include <jack/midiport.h>
#include <fluidsynth.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- lock-free single-producer / single-consumer ring ---- */

#define RING_SIZE 4096u /* a power of two */
#define PENDING_MAX 1024u /* lesson events held for a later cycle */

typedef struct {
    _Atomic uint32_t head; /* written by the producer */
    _Atomic uint32_t tail; /* written by the consumer */
    etude_jack_event slots[RING_SIZE];
} ring;

static int ring_push(ring *r, const etude_jack_event *e) {
    uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - t >= RING_SIZE) return 0;
    r->slots[h & (RING_SIZE - 1)] = *e;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return 1;
}

static int ring_pop(ring *r, etude_jack_event *e) {
    uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    if (t == h) return 0;
    *e = r->slots[t & (RING_SIZE - 1)];
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return 1;
}

/* ---- the library's messages, kept instead of printed ---- */

static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_error[256];

static void keep_error(const char *message) {
    pthread_mutex_lock(&error_lock);
    snprintf(last_error, sizeof last_error, "%s", message ? message : "");
    pthread_mutex_unlock(&error_lock);
}
static void drop_info(const char *message) { (void)message; }

size_t etude_jack_last_error(char *buf, size_t cap) {
    if (!buf || cap == 0) return 0;
    pthread_mutex_lock(&error_lock);
    snprintf(buf, cap, "%s", last_error);
    pthread_mutex_unlock(&error_lock);
    return strlen(buf);
}

static void quiet_once(void) {
    jack_set_error_function(keep_error);
    jack_set_info_function(drop_info);
}
static void quiet_library(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, quiet_once);
}

/* ---- the client ---- */

struct etude_jack {
    jack_client_t *client;
    jack_port_t *midi_in, *midi_out, *left, *right;
    _Atomic(fluid_synth_t *) synth;
    fluid_synth_t *last_synth;   /* callback only */
    uint64_t rendered;           /* callback only: frames rendered by the attached synth */
    _Atomic int alive;
    _Atomic int echo_channel;
    _Atomic int reporting;
    _Atomic uint32_t cycles, xruns, dropped, output_latency;
    _Atomic uint64_t muted[2];   /* keys never echoed (gesture keys), one bit a key */
    ring to_rt;
    ring from_rt;
    /* Lesson events taken from to_rt whose frame is in a later cycle (callback only), in the
     * order they were queued; `due` is this cycle's share, sorted by frame. */
    etude_jack_event pending[PENDING_MAX];
    uint32_t npending;
    etude_jack_event due[PENDING_MAX];
    /* A flood on midi_in (callback only but `flooding` and `floods`): events per window of
     * rate/4 frames; over `flood_limit` the callback stops reporting and echoing until a
     * whole second passes at a keyboard's rate. */
    uint32_t window_start, window_events, calm_windows;
    _Atomic uint32_t flood_limit;
    _Atomic int flooding;
    _Atomic uint32_t floods, flood_events;
    _Atomic uint32_t registrations; /* ports registered or unregistered on the server so far */
    /* The lesson's time → frame mapping (callback only): see frames_until. */
    uint64_t anchor_usecs;
    uint32_t anchor_frame;
    int anchored;
    _Atomic uint32_t reanchors;   /* times the lesson's mapping moved to the server's */
    _Atomic uint32_t late;        /* stamped lesson events that reached the callback after their frame */
    _Atomic uint32_t worst_usecs; /* the longest process callback so far, in microseconds */
    _Atomic(struct etude_mic *) mic; /* etude:mic, once opened (issue 30): see the end of this file */
};

static void mic_capture(etude_jack *j, jack_nframes_t n);

/* FluidSynth renders in blocks of this many frames: an event takes effect at a block start. */
#define SYNTH_BLOCK 64u

static void apply(fluid_synth_t *s, const uint8_t *b, int len, int channel) {
    if (len < 1) return;
    uint8_t status = b[0];
    if (status == ETUDE_JACK_ALL_OFF) {
        int channels = fluid_synth_count_midi_channels(s);
        for (int c = 0; c < channels; c++) {
            fluid_synth_cc(s, c, 64, 0);
            fluid_synth_cc(s, c, 123, 0);
        }
        fluid_synth_all_notes_off(s, -1);
        return;
    }
    if (status < 0x80 || status >= 0xF0) return;
    int ch = channel >= 0 ? channel : (status & 0x0F);
    int d1 = len > 1 ? (b[1] & 0x7F) : 0, d2 = len > 2 ? (b[2] & 0x7F) : 0;
    switch (status & 0xF0) {
    case 0x80: fluid_synth_noteoff(s, ch, d1); break;
    case 0x90: if (d2) fluid_synth_noteon(s, ch, d1, d2); else fluid_synth_noteoff(s, ch, d1); break;
    case 0xA0: fluid_synth_key_pressure(s, ch, d1, d2); break;
    case 0xB0: fluid_synth_cc(s, ch, d1, d2); break;
    case 0xC0: fluid_synth_program_change(s, ch, d1); break;
    case 0xD0: fluid_synth_channel_pressure(s, ch, d1); break;
    case 0xE0: fluid_synth_pitch_bend(s, ch, d1 | (d2 << 7)); break;
    }
}

static void render(etude_jack *j, fluid_synth_t *s, float *l, float *r, uint32_t from, uint32_t to) {
    if (to <= from) return;
    if (s) {
        fluid_synth_write_float(s, (int)(to - from), l, (int)from, 1, r, (int)from, 1);
        j->rendered += to - from;
    } else {
        memset(l + from, 0, sizeof(float) * (to - from));
        memset(r + from, 0, sizeof(float) * (to - from));
    }
}

static void write_out(void *out, uint32_t frame, const uint8_t *b, int len) {
    if (b[0] == ETUDE_JACK_ALL_OFF) {
        for (uint8_t c = 0; c < 16; c++) {
            uint8_t sustain[3] = {(uint8_t)(0xB0 | c), 64, 0}, off[3] = {(uint8_t)(0xB0 | c), 123, 0};
            jack_midi_event_write(out, frame, sustain, 3);
            jack_midi_event_write(out, frame, off, 3);
        }
        return;
    }
    jack_midi_event_write(out, frame, b, (size_t)len);
}

/* A note or key pressure on a muted key (a gesture key): never echoed. Two atomic loads, no lock. */
static int muted_key(etude_jack *j, const uint8_t *b, size_t len) {
    uint8_t kind = b[0] & 0xF0;
    if (len < 2 || b[0] < 0x80 || (kind != 0x80 && kind != 0x90 && kind != 0xA0)) return 0;
    uint8_t key = b[1] & 0x7F;
    uint64_t bits = atomic_load_explicit(&j->muted[key >> 6], memory_order_relaxed);
    return (int)((bits >> (key & 63)) & 1u);
}

void etude_jack_set_muted_keys(etude_jack *j, uint64_t low, uint64_t high) {
    atomic_store_explicit(&j->muted[0], low, memory_order_relaxed);
    atomic_store_explicit(&j->muted[1], high, memory_order_relaxed);
}

/* Takes what the app queued and returns this cycle's lesson events in `j->due`, sorted by
 * frame: an event stamped for a frame inside the cycle at that frame, one stamped for a frame
 * already past (it came late) at frame 0, an unstamped one at frame 0; one stamped for a later
 * cycle stays pending. An unstamped all-notes-off drops what was queued before it and not yet
 * played for the same destination (a pause or stop must not be followed by the notes it ended). */
/* Frames from this cycle's start to JACK time `usecs` (negative: already past), on a mapping
 * anchored at one event and the nominal rate: successive events keep their gaps to the frame
 * however the server's own time estimate jitters (tens of microseconds, a frame being 21 µs
 * at 48 kHz; milliseconds on a loaded machine's dummy server). The anchor moves to the
 * server's mapping when the two drift apart by more than ANCHOR_SLIP_US (a pause, a stall, or
 * a sound card's clock drifting from the system's). */
#define ANCHOR_SLIP_US 5000.0
static int64_t frames_until(etude_jack *j, uint64_t usecs, jack_nframes_t start) {
    double rate = (double)jack_get_sample_rate(j->client);
    jack_nframes_t server = jack_time_to_frames(j->client, (jack_time_t)usecs);
    if (j->anchored) {
        double predicted = (double)j->anchor_frame + ((double)usecs - (double)j->anchor_usecs) * rate / 1e6;
        double actual = (double)j->anchor_frame + (double)(int32_t)(server - (jack_nframes_t)j->anchor_frame);
        if (fabs(predicted - actual) * 1e6 / rate <= ANCHOR_SLIP_US)
            return (int64_t)floor(predicted + 0.5) - (int64_t)j->anchor_frame + (int64_t)(int32_t)((jack_nframes_t)j->anchor_frame - start);
    }
    if (j->anchored) atomic_fetch_add_explicit(&j->reanchors, 1, memory_order_relaxed);
    j->anchored = 1;
    j->anchor_usecs = usecs;
    j->anchor_frame = server;
    return (int64_t)(int32_t)(server - start);
}

static uint32_t take_due(etude_jack *j, jack_nframes_t start, jack_nframes_t n) {
    etude_jack_event e;
    while (j->npending < PENDING_MAX && ring_pop(&j->to_rt, &e)) j->pending[j->npending++] = e;
    uint32_t kept = 0, ndue = 0;
    for (uint32_t i = 0; i < j->npending; i++) {
        e = j->pending[i];
        int32_t at = 0;
        if (e.usecs) {
            int64_t d = frames_until(j, e.usecs, start);
            if (d >= (int64_t)n) { j->pending[kept++] = e; continue; }
            if (d < 0) { atomic_fetch_add_explicit(&j->late, 1, memory_order_relaxed); d = 0; }
            at = (int32_t)d;
        } else if (e.bytes[0] == ETUDE_JACK_ALL_OFF) {
            /* Everything queued before it for its destination is silenced by it: drop it. */
            uint32_t k = 0;
            for (uint32_t h = 0; h < kept; h++) {
                j->pending[h].dest &= (uint8_t)~e.dest;
                if (j->pending[h].dest) j->pending[k++] = j->pending[h];
            }
            kept = k;
        }
        e.frame = (uint32_t)at;
        /* Insertion by frame, stable: equal frames keep their queued order. */
        uint32_t k = ndue;
        while (k > 0 && j->due[k - 1].frame > e.frame) { j->due[k] = j->due[k - 1]; k--; }
        j->due[k] = e;
        ndue++;
    }
    j->npending = kept;
    return ndue;
}

/* The synth block (FluidSynth's 64 frames) that frame `at` of the cycle falls in starts here:
 * an event applied before rendering it takes effect at that block's first frame. */
static uint32_t block_start(etude_jack *j, uint32_t at) {
    uint32_t into_block = (uint32_t)((j->rendered + at) % SYNTH_BLOCK);
    return at >= into_block ? at - into_block : 0;
}

/* Counts midi_in's events per quarter second of frames: more than a keyboard can send starts a
 * flood (the learner's echo channel silenced once, nothing reported or echoed from then on);
 * four quarters in a row at a keyboard's rate end it. Returns 1 while flooding. */
static int flood_check(etude_jack *j, fluid_synth_t *s, int echo, jack_nframes_t start, uint32_t count) {
    uint32_t window = jack_get_sample_rate(j->client) / 4;
    uint32_t limit = atomic_load_explicit(&j->flood_limit, memory_order_relaxed);
    int flooding = atomic_load_explicit(&j->flooding, memory_order_relaxed);
    if ((uint32_t)(start - j->window_start) >= window) {
        if (flooding && j->window_events <= limit) {
            if (++j->calm_windows >= 4) { flooding = 0; atomic_store_explicit(&j->flooding, 0, memory_order_release); }
        } else {
            j->calm_windows = 0;
        }
        j->window_start = start;
        j->window_events = 0;
    }
    j->window_events += count;
    if (limit && !flooding && j->window_events > limit) {
        flooding = 1;
        j->calm_windows = 0;
        atomic_fetch_add_explicit(&j->floods, 1, memory_order_release);
        atomic_store_explicit(&j->flooding, 1, memory_order_release);
        if (s && echo >= 0) fluid_synth_all_notes_off(s, echo);
    }
    if (flooding) atomic_fetch_add_explicit(&j->flood_events, count, memory_order_relaxed);
    return flooding;
}

static uint64_t now_usecs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no system call, no lock */
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int process(jack_nframes_t n, void *arg) {
    etude_jack *j = arg;
    uint64_t began = now_usecs();
    float *l = jack_port_get_buffer(j->left, n), *r = jack_port_get_buffer(j->right, n);
    void *in = jack_port_get_buffer(j->midi_in, n);
    void *out = jack_port_get_buffer(j->midi_out, n);
    jack_midi_clear_buffer(out);
    fluid_synth_t *s = atomic_load_explicit(&j->synth, memory_order_acquire);
    if (s != j->last_synth) { j->last_synth = s; j->rendered = 0; }
    jack_nframes_t start = jack_last_frame_time(j->client);
    /* The lesson's events at their frames (midi_out exactly, the synth at the start of the
     * block the frame falls in) merged with the learner's keys by frame (each at the start of
     * its synth block). */
    uint32_t ndue = take_due(j, start, n);
    int echo = atomic_load_explicit(&j->echo_channel, memory_order_relaxed);
    int reporting = atomic_load_explicit(&j->reporting, memory_order_relaxed);
    uint32_t pos = 0, next_due = 0;
    uint32_t count = jack_midi_get_event_count(in);
    int flooded = flood_check(j, s, echo, start, count);
    if (flooded) { reporting = 0; echo = -1; }
    for (uint32_t i = 0; i <= count; i++) {
        jack_midi_event_t m;
        uint32_t at = n;
        int have = 0;
        if (i < count) {
            if (jack_midi_event_get(&m, in, i) != 0 || m.size == 0 || m.size > 3) continue;
            at = m.time < n ? m.time : n - 1;
            have = 1;
        }
        /* The lesson's events up to this key's frame first (all of them after the last key). */
        for (; next_due < ndue && (j->due[next_due].frame <= at || !have); next_due++) {
            etude_jack_event *e = &j->due[next_due];
            if ((e->dest & 1) && s) {
                uint32_t b = block_start(j, e->frame);
                if (b > pos) { render(j, s, l, r, pos, b); pos = b; }
                apply(s, e->bytes, e->len, -1);
            }
            if (e->dest & 2) write_out(out, e->frame, e->bytes, e->len);
        }
        if (!have) break;
        if (reporting) {
            etude_jack_event p = {0};
            p.frame = start + at;
            p.usecs = (uint64_t)jack_frames_to_time(j->client, start + at);
            p.len = (uint8_t)m.size;
            memcpy(p.bytes, m.buffer, m.size);
            if (!ring_push(&j->from_rt, &p)) atomic_fetch_add_explicit(&j->dropped, 1, memory_order_relaxed);
        }
        if (echo >= 0 && s && !muted_key(j, m.buffer, m.size) && m.buffer[0] >= 0x80 && m.buffer[0] < 0xF0 && (m.buffer[0] & 0xF0) != 0xC0) {
            uint32_t b = block_start(j, at);
            if (b > pos) { render(j, s, l, r, pos, b); pos = b; }
            apply(s, m.buffer, (int)m.size, echo);
        }
    }
    render(j, s, l, r, pos, n);
    mic_capture(j, n);
    atomic_fetch_add_explicit(&j->cycles, 1, memory_order_release);
    uint64_t took = now_usecs() - began;
    uint32_t worst = atomic_load_explicit(&j->worst_usecs, memory_order_relaxed);
    if (took > worst) atomic_store_explicit(&j->worst_usecs, (uint32_t)took, memory_order_relaxed);
    return 0;
}

static int on_xrun(void *arg) {
    etude_jack *j = arg;
    atomic_fetch_add_explicit(&j->xruns, 1, memory_order_relaxed);
    return 0;
}

static void on_latency(jack_latency_callback_mode_t mode, void *arg) {
    etude_jack *j = arg;
    if (mode != JackPlaybackLatency) return;
    jack_latency_range_t range;
    jack_port_get_latency_range(j->left, JackPlaybackLatency, &range);
    atomic_store_explicit(&j->output_latency, range.max, memory_order_relaxed);
}

static void on_registration(jack_port_id_t port, int registered, void *arg) {
    (void)port; (void)registered;
    etude_jack *j = arg;
    atomic_fetch_add_explicit(&j->registrations, 1, memory_order_release);
}

static void on_shutdown(jack_status_t code, const char *reason, void *arg) {
    (void)code; (void)reason;
    etude_jack *j = arg;
    atomic_store_explicit(&j->alive, 0, memory_order_release);
}

etude_jack *etude_jack_open(const char *name, int *status) {
    quiet_library();
    int dummy;
    if (!status) status = &dummy;
    jack_status_t st = 0;
    jack_client_t *c = jack_client_open(name && *name ? name : "etude", JackNoStartServer, &st);
    if (!c) { *status = (st & JackServerFailed) || (st & JackServerError) ? 1 : 2; return NULL; }
    etude_jack *j = calloc(1, sizeof(etude_jack));
    if (!j) { jack_client_close(c); *status = 2; return NULL; }
    j->client = c;
    atomic_store(&j->alive, 1);
    atomic_store(&j->echo_channel, -1);
    j->midi_in = jack_port_register(c, "midi_in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
    j->midi_out = jack_port_register(c, "midi_out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
    j->left = jack_port_register(c, "left", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    j->right = jack_port_register(c, "right", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!j->midi_in || !j->midi_out || !j->left || !j->right) {
        jack_client_close(c); free(j); *status = 3; return NULL;
    }
    jack_set_process_callback(c, process, j);
    jack_set_xrun_callback(c, on_xrun, j);
    jack_set_latency_callback(c, on_latency, j);
    jack_on_info_shutdown(c, on_shutdown, j);
    jack_set_port_registration_callback(c, on_registration, j);
    if (jack_activate(c) != 0) { jack_client_close(c); free(j); *status = 4; return NULL; }
    *status = 0;
    return j;
}

void etude_jack_close(etude_jack *j) {
    if (!j) return;
    etude_jack_attach_synth(j, NULL);
    if (atomic_load(&j->alive)) jack_deactivate(j->client);
    jack_client_close(j->client);
    free(j);
}

const char *etude_jack_name(etude_jack *j) { return jack_get_client_name(j->client); }
unsigned etude_jack_rate(etude_jack *j) { return jack_get_sample_rate(j->client); }
unsigned etude_jack_period(etude_jack *j) { return jack_get_buffer_size(j->client); }
int etude_jack_alive(etude_jack *j) { return atomic_load_explicit(&j->alive, memory_order_acquire); }
uint32_t etude_jack_cycles(etude_jack *j) { return atomic_load(&j->cycles); }
uint32_t etude_jack_xruns(etude_jack *j) { return atomic_load(&j->xruns); }
uint32_t etude_jack_dropped(etude_jack *j) { return atomic_load(&j->dropped); }
void etude_jack_set_flood_limit(etude_jack *j, uint32_t events) { atomic_store(&j->flood_limit, events); }
int etude_jack_flooding(etude_jack *j) { return atomic_load_explicit(&j->flooding, memory_order_acquire); }
uint32_t etude_jack_floods(etude_jack *j) { return atomic_load(&j->floods); }
uint32_t etude_jack_flood_events(etude_jack *j) { return atomic_load(&j->flood_events); }
uint32_t etude_jack_registrations(etude_jack *j) { return atomic_load_explicit(&j->registrations, memory_order_acquire); }
int etude_jack_port_exists(etude_jack *j, const char *name) {
    return atomic_load(&j->alive) && jack_port_by_name(j->client, name) != NULL;
}
/* JACK's NULL-ended list of port names into `buf`, one a line (as many as fit), freed; the count. */
static int take_port_names(const char **names, char *buf, size_t cap) {
    if (!names) return 0;
    int count = 0;
    size_t used = 0;
    for (; names[count]; count++) {
        size_t len = strlen(names[count]);
        if (buf && used + len + 2 <= cap) {
            memcpy(buf + used, names[count], len);
            used += len;
            buf[used++] = '\n';
            buf[used] = 0;
        }
    }
    jack_free(names);
    return count;
}

int etude_jack_connections(etude_jack *j, char *buf, size_t cap) {
    /* The ports connected to midi_in, one a line (the instrument the learner plugged in). */
    if (buf && cap) buf[0] = 0;
    if (!atomic_load(&j->alive)) return 0;
    const char **names = jack_port_get_all_connections(j->client, j->midi_in);
    return take_port_names(names, buf, cap);
}
uint32_t etude_jack_late(etude_jack *j) { return atomic_load(&j->late); }
uint32_t etude_jack_reanchors(etude_jack *j) { return atomic_load(&j->reanchors); }
uint32_t etude_jack_worst_usecs(etude_jack *j, int reset) {
    return reset ? atomic_exchange(&j->worst_usecs, 0) : atomic_load(&j->worst_usecs);
}
uint64_t etude_jack_now_usecs(void) { return (uint64_t)jack_get_time(); }

uint32_t etude_jack_output_latency(etude_jack *j) {
    jack_latency_range_t range = {0, 0};
    if (atomic_load(&j->alive)) jack_port_get_latency_range(j->left, JackPlaybackLatency, &range);
    uint32_t seen = atomic_load(&j->output_latency);
    return range.max > seen ? range.max : seen;
}

void etude_jack_attach_synth(etude_jack *j, void *fluid_synth) {
    fluid_synth_t *old = atomic_exchange(&j->synth, (fluid_synth_t *)fluid_synth);
    if (!old || old == fluid_synth) return;
    /* Wait until the callback has started two cycles since: it no longer holds `old`. */
    uint32_t seen = atomic_load(&j->cycles);
    for (int waited = 0; waited < 200 && atomic_load(&j->alive); waited++) {
        if (atomic_load(&j->cycles) - seen >= 2) break;
        usleep(1000);
    }
}

int etude_jack_has_synth(etude_jack *j) { return atomic_load(&j->synth) != NULL; }
void etude_jack_set_echo(etude_jack *j, int channel) { atomic_store(&j->echo_channel, channel >= 0 && channel < 16 ? channel : -1); }
void etude_jack_set_reporting(etude_jack *j, int on) { atomic_store(&j->reporting, on ? 1 : 0); }
int etude_jack_send(etude_jack *j, const etude_jack_event *event) { return ring_push(&j->to_rt, event); }
int etude_jack_take(etude_jack *j, etude_jack_event *event) { return ring_pop(&j->from_rt, event); }

int etude_jack_connect(etude_jack *j, const char *source, const char *destination) {
    if (!jack_port_by_name(j->client, source)) return 1;
    if (!jack_port_by_name(j->client, destination)) return 2;
    int rc = jack_connect(j->client, source, destination);
    return rc == 0 || rc == EEXIST ? 0 : 3;
}

int etude_jack_ports(etude_jack *j, int midi, int output, int physical, char *buf, size_t cap) {
    unsigned long flags = (output ? JackPortIsOutput : JackPortIsInput) | (physical ? JackPortIsPhysical : 0);
    const char **names = jack_get_ports(j->client, NULL, midi ? JACK_DEFAULT_MIDI_TYPE : JACK_DEFAULT_AUDIO_TYPE, flags);
    if (buf && cap) buf[0] = 0;
    return take_port_names(names, buf, cap);
}

/* ---- etude:mic: an acoustic piano's microphone on the one client (issue 30) ----
 * An audio input port registered on demand; the callback copies each cycle's samples into a
 * lock-free single-producer/single-consumer float ring that the listener's thread drains. The
 * port and its ring stay until the client closes (a callback may be reading them). */

#define MIC_RING 131072u /* samples, a power of two: 2.7 s at 48 kHz */

struct etude_mic {
    jack_port_t *port;
    _Atomic uint32_t head, tail, overruns;
    float samples[MIC_RING];
};

static void mic_capture(etude_jack *j, jack_nframes_t n) {
    struct etude_mic *m = atomic_load_explicit(&j->mic, memory_order_acquire);
    if (!m) return;
    const float *in = jack_port_get_buffer(m->port, n);
    uint32_t h = atomic_load_explicit(&m->head, memory_order_relaxed);
    uint32_t t = atomic_load_explicit(&m->tail, memory_order_acquire);
    if (MIC_RING - (h - t) < n) { atomic_fetch_add_explicit(&m->overruns, 1, memory_order_relaxed); return; }
    for (jack_nframes_t i = 0; i < n; i++) m->samples[(h + i) & (MIC_RING - 1)] = in[i];
    atomic_store_explicit(&m->head, h + n, memory_order_release);
}

int etude_jack_mic_open(etude_jack *j) {
    if (!j) return -1;
    if (atomic_load_explicit(&j->mic, memory_order_acquire)) return 0;
    struct etude_mic *m = calloc(1, sizeof(struct etude_mic));
    if (!m) return -1;
    m->port = jack_port_register(j->client, "mic", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!m->port) { free(m); return -1; }
    atomic_store_explicit(&j->mic, m, memory_order_release);
    return 0;
}

int etude_jack_mic_read(etude_jack *j, float *out, int max) {
    struct etude_mic *m = j ? atomic_load_explicit(&j->mic, memory_order_acquire) : NULL;
    if (!m || !out || max <= 0) return 0;
    uint32_t t = atomic_load_explicit(&m->tail, memory_order_relaxed);
    uint32_t h = atomic_load_explicit(&m->head, memory_order_acquire);
    uint32_t count = h - t < (uint32_t)max ? h - t : (uint32_t)max;
    for (uint32_t i = 0; i < count; i++) out[i] = m->samples[(t + i) & (MIC_RING - 1)];
    atomic_store_explicit(&m->tail, t + count, memory_order_release);
    return (int)count;
}

void etude_jack_mic_flush(etude_jack *j) {
    struct etude_mic *m = j ? atomic_load_explicit(&j->mic, memory_order_acquire) : NULL;
    if (m) atomic_store_explicit(&m->tail, atomic_load_explicit(&m->head, memory_order_acquire), memory_order_release);
}

uint32_t etude_jack_mic_latency(etude_jack *j) {
    struct etude_mic *m = j ? atomic_load_explicit(&j->mic, memory_order_acquire) : NULL;
    if (!m) return 0;
    jack_latency_range_t range;
    jack_port_get_latency_range(m->port, JackCaptureLatency, &range);
    return range.max;
}
