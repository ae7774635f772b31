#include "pulse_out.h"
#include "etude_mix.h"
#include <fluidsynth.h>
#include <pulse/pulseaudio.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct etude_pulse_out {
    pa_threaded_mainloop *loop;
    pa_context *context;
    pa_stream *stream;
    fluid_synth_t *synth;
    unsigned rate;
    float *scratch;          /* interleaved render buffer (mainloop thread only) */
    size_t scratch_frames;
    _Atomic uint32_t underruns;
    _Atomic uint64_t rendered;
    _Atomic unsigned granted;
    _Atomic int alive;
    int prio_tried;          /* mainloop thread only */
    char device[256];
};

#define FRAME_BYTES (2 * sizeof(float))

static void context_state(pa_context *c, void *userdata) {
    etude_pulse_out *p = userdata;
    pa_context_state_t st = pa_context_get_state(c);
    if (st == PA_CONTEXT_FAILED || st == PA_CONTEXT_TERMINATED) atomic_store(&p->alive, 0);
    pa_threaded_mainloop_signal(p->loop, 0);
}

static void stream_state(pa_stream *s, void *userdata) {
    etude_pulse_out *p = userdata;
    pa_stream_state_t st = pa_stream_get_state(s);
    if (st == PA_STREAM_FAILED || st == PA_STREAM_TERMINATED) atomic_store(&p->alive, 0);
    pa_threaded_mainloop_signal(p->loop, 0);
}

static void granted_attr(etude_pulse_out *p) {
    const pa_buffer_attr *a = pa_stream_get_buffer_attr(p->stream);
    if (a && a->tlength != (uint32_t)-1) atomic_store(&p->granted, (unsigned)(a->tlength / FRAME_BYTES));
}

/* The server wants `nbytes` more: render them through the synth. */
static void stream_write(pa_stream *s, size_t nbytes, void *userdata) {
    etude_pulse_out *p = userdata;
    if (!p->prio_tried) {
        /* As FluidSynth's own drivers do (audio.realtime-prio 60): real-time when allowed. */
        p->prio_tried = 1;
        struct sched_param sp = {.sched_priority = 60};
        (void)pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
    while (nbytes >= FRAME_BYTES) {
        size_t frames = nbytes / FRAME_BYTES;
        if (frames > p->scratch_frames) frames = p->scratch_frames;
        fluid_synth_write_float(p->synth, (int)frames, p->scratch, 0, 2, p->scratch, 1, 2);
        etude_mix_add(p->scratch, 2, p->scratch + 1, 2, (int)frames); /* a recording practised with */
        if (pa_stream_write(s, p->scratch, frames * FRAME_BYTES, NULL, 0, PA_SEEK_RELATIVE) < 0) return;
        atomic_fetch_add(&p->rendered, frames);
        nbytes -= frames * FRAME_BYTES;
    }
}

static void stream_underflow(pa_stream *s, void *userdata) {
    (void)s;
    etude_pulse_out *p = userdata;
    atomic_fetch_add(&p->underruns, 1);
}

static void stream_moved(pa_stream *s, void *userdata) {
    etude_pulse_out *p = userdata;
    const char *name = pa_stream_get_device_name(s);
    snprintf(p->device, sizeof p->device, "%s", name ? name : "");
    granted_attr(p);
}

static void attr_changed(pa_stream *s, void *userdata) {
    (void)s;
    granted_attr(userdata);
}

static void fail(char *err, int errlen, const char *what, int code) {
    if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s%s%s", what, code ? ": " : "", code ? pa_strerror(code) : "");
}

/* Waits on the locked mainloop until `ready` holds, the state failed, or the time is up. */
static int wait_ready(etude_pulse_out *p, int timeout_ms, int stream) {
    pa_usec_t deadline = pa_rtclock_now() + (pa_usec_t)timeout_ms * 1000;
    for (;;) {
        if (stream) {
            pa_stream_state_t st = pa_stream_get_state(p->stream);
            if (st == PA_STREAM_READY) return 1;
            if (!PA_STREAM_IS_GOOD(st)) return 0;
        } else {
            pa_context_state_t st = pa_context_get_state(p->context);
            if (st == PA_CONTEXT_READY) return 1;
            if (!PA_CONTEXT_IS_GOOD(st)) return 0;
        }
        if (pa_rtclock_now() >= deadline) return 0;
        /* Signals come from the callbacks; a short sleep keeps the timeout honest without one. */
        pa_threaded_mainloop_unlock(p->loop);
        usleep(1000);
        pa_threaded_mainloop_lock(p->loop);
    }
}

static pa_buffer_attr attr_for(unsigned buffer_frames, unsigned period_frames) {
    pa_buffer_attr a;
    a.maxlength = (uint32_t)-1;
    a.tlength = (uint32_t)(buffer_frames * FRAME_BYTES);
    a.prebuf = (uint32_t)-1;
    a.minreq = (uint32_t)(period_frames * FRAME_BYTES);
    a.fragsize = (uint32_t)-1;
    return a;
}

etude_pulse_out *etude_pulse_out_open(void *fluid_synth, unsigned rate, unsigned buffer_frames, unsigned period_frames,
                                      int timeout_ms, char *err, int errlen) {
    if (!fluid_synth || rate == 0 || buffer_frames == 0) { fail(err, errlen, "bad arguments", 0); return NULL; }
    etude_pulse_out *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->synth = fluid_synth;
    p->rate = rate;
    p->scratch_frames = 8192;
    p->scratch = calloc(p->scratch_frames * 2, sizeof(float));
    p->loop = pa_threaded_mainloop_new();
    if (!p->scratch || !p->loop) { fail(err, errlen, "out of memory", 0); etude_pulse_out_close(p); return NULL; }
    pa_proplist *props = pa_proplist_new();
    pa_proplist_sets(props, PA_PROP_APPLICATION_NAME, "etude");
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music");
    p->context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(p->loop), "etude", props);
    if (!p->context) { pa_proplist_free(props); fail(err, errlen, "no PulseAudio context", 0); etude_pulse_out_close(p); return NULL; }
    pa_context_set_state_callback(p->context, context_state, p);
    atomic_store(&p->alive, 1);
    if (pa_context_connect(p->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        pa_proplist_free(props);
        fail(err, errlen, "no PulseAudio server", pa_context_errno(p->context));
        etude_pulse_out_close(p);
        return NULL;
    }
    pa_threaded_mainloop_lock(p->loop);
    if (pa_threaded_mainloop_start(p->loop) < 0 || !wait_ready(p, timeout_ms, 0)) {
        fail(err, errlen, "no PulseAudio server answers", pa_context_errno(p->context));
        pa_threaded_mainloop_unlock(p->loop);
        pa_proplist_free(props);
        etude_pulse_out_close(p);
        return NULL;
    }
    pa_sample_spec spec = {.format = PA_SAMPLE_FLOAT32NE, .rate = rate, .channels = 2};
    p->stream = pa_stream_new_with_proplist(p->context, "lesson", &spec, NULL, props);
    pa_proplist_free(props);
    if (!p->stream) {
        fail(err, errlen, "the stream was refused", pa_context_errno(p->context));
        pa_threaded_mainloop_unlock(p->loop);
        etude_pulse_out_close(p);
        return NULL;
    }
    pa_stream_set_state_callback(p->stream, stream_state, p);
    pa_stream_set_write_callback(p->stream, stream_write, p);
    pa_stream_set_underflow_callback(p->stream, stream_underflow, p);
    pa_stream_set_moved_callback(p->stream, stream_moved, p);
    pa_stream_set_buffer_attr_callback(p->stream, attr_changed, p);
    pa_buffer_attr a = attr_for(buffer_frames, period_frames ? period_frames : buffer_frames / 3);
    pa_stream_flags_t flags = PA_STREAM_ADJUST_LATENCY | PA_STREAM_AUTO_TIMING_UPDATE | PA_STREAM_INTERPOLATE_TIMING;
    if (pa_stream_connect_playback(p->stream, NULL, &a, flags, NULL, NULL) < 0 || !wait_ready(p, timeout_ms, 1)) {
        fail(err, errlen, "the playback stream did not start", pa_context_errno(p->context));
        pa_threaded_mainloop_unlock(p->loop);
        etude_pulse_out_close(p);
        return NULL;
    }
    stream_moved(p->stream, p);
    pa_threaded_mainloop_unlock(p->loop);
    return p;
}

uint32_t etude_pulse_out_underruns(etude_pulse_out *p) { return atomic_load(&p->underruns); }
uint64_t etude_pulse_out_rendered(etude_pulse_out *p) { return atomic_load(&p->rendered); }
unsigned etude_pulse_out_buffer(etude_pulse_out *p) { return atomic_load(&p->granted); }
int etude_pulse_out_alive(etude_pulse_out *p) { return atomic_load(&p->alive); }

int etude_pulse_out_set_buffer(etude_pulse_out *p, unsigned buffer_frames, unsigned period_frames) {
    if (!p->stream || !atomic_load(&p->alive)) return -1;
    pa_threaded_mainloop_lock(p->loop);
    pa_buffer_attr a = attr_for(buffer_frames, period_frames ? period_frames : buffer_frames / 3);
    pa_operation *op = pa_stream_set_buffer_attr(p->stream, &a, NULL, NULL);
    if (op) pa_operation_unref(op);
    pa_threaded_mainloop_unlock(p->loop);
    return op ? 0 : -1;
}

uint64_t etude_pulse_out_latency_us(etude_pulse_out *p) {
    if (!p->stream || !atomic_load(&p->alive)) return 0;
    pa_usec_t us = 0;
    int negative = 0;
    pa_threaded_mainloop_lock(p->loop);
    int rc = pa_stream_get_latency(p->stream, &us, &negative);
    pa_threaded_mainloop_unlock(p->loop);
    return rc == 0 && !negative ? (uint64_t)us : 0;
}

void etude_pulse_out_device(etude_pulse_out *p, char *buf, int cap) {
    if (!buf || cap <= 0) return;
    if (p->loop) pa_threaded_mainloop_lock(p->loop);
    snprintf(buf, (size_t)cap, "%s", p->device);
    if (p->loop) pa_threaded_mainloop_unlock(p->loop);
}

void etude_pulse_out_close(etude_pulse_out *p) {
    if (!p) return;
    if (p->loop) pa_threaded_mainloop_stop(p->loop);  /* no callback runs after this */
    if (p->stream) {
        pa_stream_disconnect(p->stream);
        pa_stream_unref(p->stream);
    }
    if (p->context) {
        pa_context_disconnect(p->context);
        pa_context_unref(p->context);
    }
    if (p->loop) pa_threaded_mainloop_free(p->loop);
    free(p->scratch);
    free(p);
}
