/* The meter: two small JACK clients that measure key → sound in frames. `NAME-key` plays a note
 * at a random frame of its cycle once the ear has heard silence for a few cycles; `NAME-ear`
 * finds the first frame above the threshold. Used by the JACK tests and `make bench`, against
 * Etude and against `fluidsynth -a jack -m jack` in the same run. */
#include "etude_jack.h"
#include <jack/jack.h>
#include <jack/midiport.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { IDLE = 0, WAIT_QUIET = 1, SENT = 2 };
#define NO_ONSET INT64_MIN
#define QUIET_CYCLES 4

#define HEARD_SIZE 8192u /* a power of two */

struct etude_jack_meter {
    jack_client_t *key, *ear;
    jack_port_t *out, *in, *midi;
    /* MIDI the ear received (a listener on etude:midi_out): a single-producer ring. */
    _Atomic uint32_t heard_head, heard_tail;
    uint8_t heard[HEARD_SIZE][4];
    uint32_t heard_frame[HEARD_SIZE];
    /* Onsets the ear heard on `in` (a sample above onset_threshold after onset_quiet frames
     * below it): a single-producer ring of absolute frames; onset_threshold 0 = off. */
    _Atomic float onset_threshold;
    _Atomic uint32_t onset_quiet;
    uint32_t below;          /* ear callback only: frames below the onset threshold so far */
    _Atomic uint32_t onset_head, onset_tail;
    uint32_t onsets[HEARD_SIZE];
    /* The robot: notes lit on `robot_channel` of the ear's MIDI are played by the key. */
    _Atomic int robot_channel;
    _Atomic uint32_t robot_head, robot_tail;
    uint8_t robot[HEARD_SIZE][3];
    char key_port[320], ear_port[320];
    _Atomic int phase;
    _Atomic int quiet;
    _Atomic int64_t sent_frame;
    _Atomic int64_t onset_frame;
    _Atomic int done;
    _Atomic uint32_t peak_bits;
    int wanted, note, timeout_ms;
    _Atomic float threshold;  /* set by run() on the test's thread, read by the ear's callback */
    uint32_t rng;
    int32_t *results;
    unsigned char raw[3];
    int raw_len;
    _Atomic int raw_repeat;
    _Atomic int stall_usecs;
};

static uint32_t next_random(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void finish_note(etude_jack_meter *m, void *out, int32_t result) {
    int d = atomic_load(&m->done);
    if (d < m->wanted) m->results[d] = result;
    atomic_store(&m->done, d + 1);
    unsigned char silence[3] = {0xB0, 120, 0}, off[3] = {0x80, (unsigned char)m->note, 0};
    jack_midi_event_write(out, 0, silence, 3);
    jack_midi_event_write(out, 0, off, 3);
    atomic_store(&m->quiet, 0);
    atomic_store(&m->phase, d + 1 >= m->wanted ? IDLE : WAIT_QUIET);
}

static int key_process(jack_nframes_t n, void *arg) {
    etude_jack_meter *m = arg;
    /* A test's stalled client: one cycle far past its deadline (the server counts an xrun). */
    int stall = atomic_exchange(&m->stall_usecs, 0);
    if (stall > 0) usleep((useconds_t)stall);
    void *out = jack_port_get_buffer(m->out, n);
    jack_midi_clear_buffer(out);
    /* The robot plays what lit up (a cycle later: the ear heard it after the key ran). */
    uint32_t rt = atomic_load_explicit(&m->robot_tail, memory_order_relaxed);
    uint32_t rh = atomic_load_explicit(&m->robot_head, memory_order_acquire);
    for (; rt != rh; rt++) jack_midi_event_write(out, 0, m->robot[rt & (HEARD_SIZE - 1)], 3);
    atomic_store_explicit(&m->robot_tail, rt, memory_order_release);
    int repeat = atomic_exchange(&m->raw_repeat, 0);
    for (int i = 0; i < repeat; i++) {
        if (jack_midi_event_write(out, 0, m->raw, (size_t)m->raw_len) != 0) break;
    }
    int phase = atomic_load(&m->phase);
    jack_nframes_t start = jack_last_frame_time(m->key);
    if (phase == WAIT_QUIET && atomic_load(&m->quiet) >= QUIET_CYCLES) {
        /* No reverb or chorus on the measured channel: silence comes back at once. */
        unsigned char reverb[3] = {0xB0, 91, 0}, chorus[3] = {0xB0, 93, 0};
        jack_midi_event_write(out, 0, reverb, 3);
        jack_midi_event_write(out, 0, chorus, 3);
        uint32_t at = next_random(&m->rng) % n;
        unsigned char on[3] = {0x90, (unsigned char)m->note, 100};
        jack_midi_event_write(out, at, on, 3);
        atomic_store(&m->onset_frame, NO_ONSET);
        atomic_store(&m->sent_frame, (int64_t)start + at);
        atomic_store(&m->phase, SENT);
    } else if (phase == SENT) {
        int64_t onset = atomic_load(&m->onset_frame);
        int64_t sent = atomic_load(&m->sent_frame);
        if (onset != NO_ONSET) {
            finish_note(m, out, (int32_t)(onset - sent));
        } else if ((int64_t)start - sent > (int64_t)m->timeout_ms * jack_get_sample_rate(m->key) / 1000) {
            finish_note(m, out, INT32_MIN);
        }
    }
    return 0;
}

static int ear_process(jack_nframes_t n, void *arg) {
    etude_jack_meter *m = arg;
    void *midi = jack_port_get_buffer(m->midi, n);
    uint32_t count = jack_midi_get_event_count(midi);
    int robot = atomic_load(&m->robot_channel);
    for (uint32_t i = 0; i < count; i++) {
        jack_midi_event_t e;
        if (jack_midi_event_get(&e, midi, i) != 0 || e.size == 0 || e.size > 3) continue;
        uint32_t h = atomic_load_explicit(&m->heard_head, memory_order_relaxed);
        if (h - atomic_load_explicit(&m->heard_tail, memory_order_acquire) < HEARD_SIZE) {
            uint8_t *slot = m->heard[h & (HEARD_SIZE - 1)];
            memset(slot, 0, 4);
            slot[0] = (uint8_t)e.size;
            memcpy(slot + 1, e.buffer, e.size);
            m->heard_frame[h & (HEARD_SIZE - 1)] = jack_last_frame_time(m->ear) + e.time;
            atomic_store_explicit(&m->heard_head, h + 1, memory_order_release);
        }
        uint8_t status = e.buffer[0];
        if (robot >= 0 && e.size == 3 && (status & 0x0F) == robot && ((status & 0xF0) == 0x90 || (status & 0xF0) == 0x80)) {
            uint32_t rh = atomic_load_explicit(&m->robot_head, memory_order_relaxed);
            if (rh - atomic_load_explicit(&m->robot_tail, memory_order_acquire) < HEARD_SIZE) {
                uint8_t *slot = m->robot[rh & (HEARD_SIZE - 1)];
                int on = (status & 0xF0) == 0x90 && e.buffer[2] > 0;
                slot[0] = on ? 0x90 : 0x80;
                slot[1] = e.buffer[1];
                slot[2] = on ? 80 : 0;
                atomic_store_explicit(&m->robot_head, rh + 1, memory_order_release);
            }
        }
    }
    const float *in = jack_port_get_buffer(m->in, n);
    const float threshold = atomic_load_explicit(&m->threshold, memory_order_relaxed);
    float loudest = 0;
    int64_t first = NO_ONSET;
    for (jack_nframes_t i = 0; i < n; i++) {
        float a = fabsf(in[i]);
        if (a > loudest) loudest = a;
        if (first == NO_ONSET && a > threshold) first = i;
    }
    float onset = atomic_load_explicit(&m->onset_threshold, memory_order_relaxed);
    if (onset > 0) {
        uint32_t quiet = atomic_load_explicit(&m->onset_quiet, memory_order_relaxed);
        jack_nframes_t base = jack_last_frame_time(m->ear);
        for (jack_nframes_t i = 0; i < n; i++) {
            if (fabsf(in[i]) <= onset) { if (m->below < UINT32_MAX) m->below++; continue; }
            if (m->below >= quiet) {
                uint32_t h = atomic_load_explicit(&m->onset_head, memory_order_relaxed);
                if (h - atomic_load_explicit(&m->onset_tail, memory_order_acquire) < HEARD_SIZE) {
                    m->onsets[h & (HEARD_SIZE - 1)] = base + i;
                    atomic_store_explicit(&m->onset_head, h + 1, memory_order_release);
                }
            }
            m->below = 0;
        }
    }
    if (atomic_load(&m->phase) == SENT && first != NO_ONSET && atomic_load(&m->onset_frame) == NO_ONSET) {
        atomic_store(&m->onset_frame, (int64_t)jack_last_frame_time(m->ear) + first);
    }
    if (loudest < threshold) atomic_fetch_add(&m->quiet, 1); else atomic_store(&m->quiet, 0);
    uint32_t bits;
    memcpy(&bits, &loudest, sizeof bits);
    uint32_t seen = atomic_load(&m->peak_bits);
    float seen_f;
    memcpy(&seen_f, &seen, sizeof seen_f);
    if (loudest > seen_f) atomic_store(&m->peak_bits, bits);
    return 0;
}

etude_jack_meter *etude_jack_meter_open(const char *name, const char *server) {
    etude_jack_meter *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    char key_name[128], ear_name[128];
    snprintf(key_name, sizeof key_name, "%s-key", name);
    snprintf(ear_name, sizeof ear_name, "%s-ear", name);
    jack_status_t st;
    jack_options_t options = JackNoStartServer | JackUseExactName | (server ? JackServerName : 0);
    m->key = server ? jack_client_open(key_name, options, &st, server) : jack_client_open(key_name, options, &st);
    m->ear = !m->key ? NULL : server ? jack_client_open(ear_name, options, &st, server) : jack_client_open(ear_name, options, &st);
    if (!m->key || !m->ear) { etude_jack_meter_close(m); return NULL; }
    m->out = jack_port_register(m->key, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
    m->in = jack_port_register(m->ear, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    m->midi = jack_port_register(m->ear, "midi", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
    if (!m->out || !m->in || !m->midi) { etude_jack_meter_close(m); return NULL; }
    atomic_store(&m->robot_channel, -1);
    snprintf(m->key_port, sizeof m->key_port, "%s", jack_port_name(m->out));
    snprintf(m->ear_port, sizeof m->ear_port, "%s", jack_port_name(m->in));
    m->note = 60;
    m->threshold = 1e-4f;
    atomic_store(&m->onset_frame, NO_ONSET);
    jack_set_process_callback(m->key, key_process, m);
    jack_set_process_callback(m->ear, ear_process, m);
    if (jack_activate(m->key) != 0 || jack_activate(m->ear) != 0) { etude_jack_meter_close(m); return NULL; }
    return m;
}

int etude_jack_meter_connect(etude_jack_meter *m, const char *midi_port, const char *audio_port) {
    int a = jack_connect(m->key, m->key_port, midi_port);
    int b = jack_connect(m->ear, audio_port, m->ear_port);
    return (a == 0 || a == EEXIST) && (b == 0 || b == EEXIST) ? 0 : 1;
}

int etude_jack_meter_run(etude_jack_meter *m, int count, int key, float threshold, uint32_t seed, int timeout_ms,
                         int32_t *frames) {
    if (count <= 0 || !frames) return 0;
    m->results = frames;
    m->wanted = count;
    m->note = key & 0x7F;
    m->threshold = threshold > 0 ? threshold : 1e-4f;
    m->timeout_ms = timeout_ms > 0 ? timeout_ms : 1000;
    m->rng = seed ? seed : 1;
    atomic_store(&m->done, 0);
    atomic_store(&m->quiet, 0);
    atomic_store(&m->phase, WAIT_QUIET);
    long limit_ms = (long)count * (m->timeout_ms + 500) + 2000;
    for (long waited = 0; waited < limit_ms && atomic_load(&m->phase) != IDLE; waited++) usleep(1000);
    atomic_store(&m->phase, IDLE);
    usleep(20000);
    int done = atomic_load(&m->done);
    return done < count ? done : count;
}

float etude_jack_meter_peak(etude_jack_meter *m) {
    uint32_t bits = atomic_exchange(&m->peak_bits, 0);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int etude_jack_meter_send(etude_jack_meter *m, const unsigned char *bytes, int len, int repeat) {
    if (len < 1 || len > 3 || atomic_load(&m->raw_repeat) != 0) return 0;
    memcpy(m->raw, bytes, (size_t)len);
    m->raw_len = len;
    atomic_store(&m->raw_repeat, repeat > 0 ? repeat : 1);
    return 1;
}

int etude_jack_meter_take_midi(etude_jack_meter *m, unsigned char *bytes) {
    return etude_jack_meter_take_midi_at(m, bytes, NULL);
}

int etude_jack_meter_take_midi_at(etude_jack_meter *m, unsigned char *bytes, uint32_t *frame) {
    uint32_t t = atomic_load_explicit(&m->heard_tail, memory_order_relaxed);
    if (t == atomic_load_explicit(&m->heard_head, memory_order_acquire)) return 0;
    uint8_t *slot = m->heard[t & (HEARD_SIZE - 1)];
    int len = slot[0];
    memcpy(bytes, slot + 1, 3);
    if (frame) *frame = m->heard_frame[t & (HEARD_SIZE - 1)];
    atomic_store_explicit(&m->heard_tail, t + 1, memory_order_release);
    return len;
}

void etude_jack_meter_onsets(etude_jack_meter *m, float threshold, uint32_t quiet_frames) {
    atomic_store(&m->onset_quiet, quiet_frames);
    atomic_store(&m->onset_threshold, threshold > 0 ? threshold : 0);
}

int etude_jack_meter_take_onset(etude_jack_meter *m, uint32_t *frame) {
    uint32_t t = atomic_load_explicit(&m->onset_tail, memory_order_relaxed);
    if (t == atomic_load_explicit(&m->onset_head, memory_order_acquire)) return 0;
    *frame = m->onsets[t & (HEARD_SIZE - 1)];
    atomic_store_explicit(&m->onset_tail, t + 1, memory_order_release);
    return 1;
}

void etude_jack_meter_stall(etude_jack_meter *m, int usecs) { atomic_store(&m->stall_usecs, usecs); }

void etude_jack_meter_robot(etude_jack_meter *m, int channel) {
    atomic_store(&m->robot_channel, channel >= 0 && channel < 16 ? channel : -1);
}

unsigned etude_jack_meter_rate(etude_jack_meter *m) { return jack_get_sample_rate(m->key); }
unsigned etude_jack_meter_period(etude_jack_meter *m) { return jack_get_buffer_size(m->key); }

void etude_jack_meter_close(etude_jack_meter *m) {
    if (!m) return;
    if (m->ear) jack_client_close(m->ear);
    if (m->key) jack_client_close(m->key);
    free(m);
}
