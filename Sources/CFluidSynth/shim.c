#include "shim.h"
#include "etude_mix.h"
#include <fluidsynth.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct etude_fs {
    fluid_settings_t *settings;
    fluid_synth_t *synth;
    fluid_audio_driver_t *driver;
    /* Frames pulled by the live driver, counted in our own audio callback. */
    volatile unsigned long long rendered;
};

/* ---- log capture ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_buf = NULL;
static size_t log_len = 0, log_cap = 0;

static void log_append(int level, const char *message, void *data) {
    (void)data;
    static const char *names[] = {"panic", "error", "warning", "info", "debug"};
    const char *name = (level >= 0 && level < 5) ? names[level] : "log";
    if (message == NULL) return;
    size_t need = strlen(name) + strlen(message) + 16;
    pthread_mutex_lock(&log_lock);
    if (log_len + need > log_cap && log_len + need < (1u << 20)) {
        size_t cap = (log_cap == 0) ? 4096 : log_cap;
        while (cap < log_len + need) cap *= 2;
        char *grown = realloc(log_buf, cap);
        if (grown) { log_buf = grown; log_cap = cap; }
    }
    if (log_buf && log_len + need <= log_cap) {
        size_t n = strlen(name);
        memcpy(log_buf + log_len, "fluidsynth ", 11); log_len += 11;
        memcpy(log_buf + log_len, name, n); log_len += n;
        log_buf[log_len++] = ':'; log_buf[log_len++] = ' ';
        n = strlen(message);
        memcpy(log_buf + log_len, message, n); log_len += n;
        log_buf[log_len++] = '\n';
        log_buf[log_len] = 0;
    }
    pthread_mutex_unlock(&log_lock);
}

static void etude_fs_capture_log_once(void);

/* ALSA's library prints its own errors (e.g. "Unknown PCM default") to stderr; route them
 * into the buffer as well. Declared here so the shim needs no ALSA headers. */
typedef void (*etude_alsa_error_handler)(const char *file, int line, const char *function, int err, const char *fmt, ...);
extern int snd_lib_error_set_handler(etude_alsa_error_handler handler);

static void alsa_append(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)err;
    char text[512];
    int used = snprintf(text, sizeof text, "ALSA %s: ", function ? function : "");
    if (used < 0 || (size_t)used >= sizeof text) used = 0;
    va_list args;
    va_start(args, fmt);
    vsnprintf(text + used, sizeof text - (size_t)used, fmt ? fmt : "", args);
    va_end(args);
    log_append(FLUID_WARN, text, NULL);
}

/* GLib (used by FluidSynth and libinstpatch for SoundFont parsing) logs straight to stderr;
 * route it into the same buffer. Declared here to avoid pulling glib.h into the shim. */
typedef void (*etude_glog_func)(const char *domain, int flags, const char *message, void *data);
typedef etude_glog_func (*etude_glog_setter)(etude_glog_func func, void *data);

static void glog_append(const char *domain, int flags, const char *message, void *data) {
    (void)domain;
    /* GLib levels: 1<<2 error, 1<<3 critical, 1<<4 warning, 1<<5 message, 1<<6 info, 1<<7 debug */
    int level = (flags & (1 << 2)) ? FLUID_PANIC : (flags & ((1 << 3) | (1 << 4))) ? FLUID_WARN
              : (flags & (1 << 7)) ? FLUID_DBG : FLUID_INFO;
    log_append(level, message, data);
}

void etude_fs_capture_log(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, etude_fs_capture_log_once);
}

size_t etude_fs_log_take(char *buf, size_t cap) {
    if (buf == NULL || cap == 0) return 0;
    pthread_mutex_lock(&log_lock);
    size_t n = log_len < cap - 1 ? log_len : cap - 1;
    if (n > 0) memcpy(buf, log_buf, n);
    buf[n] = 0;
    log_len = 0;
    if (log_buf) log_buf[0] = 0;
    pthread_mutex_unlock(&log_lock);
    return n;
}

static void etude_fs_capture_log_once(void) {
    for (int level = FLUID_PANIC; level <= FLUID_DBG; level++) {
        fluid_set_log_function(level, log_append, NULL);
    }
    /* GLib is loaded with libfluidsynth; look it up at run time so no glib -dev package or
     * link flag is needed. */
    etude_glog_setter set_handler = (etude_glog_setter)dlsym(RTLD_DEFAULT, "g_log_set_default_handler");
    if (set_handler) set_handler(glog_append, NULL);
    snd_lib_error_set_handler(alsa_append);
}

/* ---- lifecycle ---- */

etude_fs *etude_fs_new(void) {
    etude_fs_capture_log();
    etude_fs *fs = calloc(1, sizeof(etude_fs));
    if (!fs) return NULL;
    fs->settings = new_fluid_settings();
    if (!fs->settings) { free(fs); return NULL; }
    return fs;
}

int etude_fs_set_num(etude_fs *fs, const char *name, double value) {
    return fluid_settings_setnum(fs->settings, name, value) == FLUID_OK;
}
int etude_fs_set_int(etude_fs *fs, const char *name, int value) {
    return fluid_settings_setint(fs->settings, name, value) == FLUID_OK;
}
int etude_fs_set_str(etude_fs *fs, const char *name, const char *value) {
    return fluid_settings_setstr(fs->settings, name, value) == FLUID_OK;
}
double etude_fs_get_num(etude_fs *fs, const char *name) {
    double v = 0;
    fluid_settings_getnum(fs->settings, name, &v);
    return v;
}
int etude_fs_get_int(etude_fs *fs, const char *name) {
    int v = 0;
    fluid_settings_getint(fs->settings, name, &v);
    return v;
}

int etude_fs_start_synth(etude_fs *fs) {
    if (fs->synth) return 1;
    fs->synth = new_fluid_synth(fs->settings);
    return fs->synth != NULL;
}

void etude_fs_stop_audio(etude_fs *fs) {
    if (fs && fs->driver) {
        delete_fluid_audio_driver(fs->driver);
        fs->driver = NULL;
    }
}

void etude_fs_free(etude_fs *fs) {
    if (!fs) return;
    etude_fs_stop_audio(fs);
    if (fs->synth) delete_fluid_synth(fs->synth);
    if (fs->settings) delete_fluid_settings(fs->settings);
    free(fs);
}

void *etude_fs_synth_pointer(etude_fs *fs) { return fs ? fs->synth : NULL; }

int etude_fs_load_soundfont(etude_fs *fs, const char *path) {
    if (!fs->synth) return -1;
    int id = fluid_synth_sfload(fs->synth, path, 1);
    return id == FLUID_FAILED ? -1 : id;
}

/* ---- channel messages ---- */

void etude_fs_note_on(etude_fs *fs, int chan, int key, int vel) {
    if (vel == 0) fluid_synth_noteoff(fs->synth, chan, key);
    else fluid_synth_noteon(fs->synth, chan, key, vel);
}
void etude_fs_note_off(etude_fs *fs, int chan, int key) { fluid_synth_noteoff(fs->synth, chan, key); }
void etude_fs_control_change(etude_fs *fs, int chan, int ctrl, int value) { fluid_synth_cc(fs->synth, chan, ctrl, value); }
void etude_fs_program_change(etude_fs *fs, int chan, int program) { fluid_synth_program_change(fs->synth, chan, program); }
int etude_fs_bank_program(etude_fs *fs, int chan, int bank, int program) {
    if (fluid_synth_bank_select(fs->synth, chan, bank) != FLUID_OK) return 0;
    return fluid_synth_program_change(fs->synth, chan, program) == FLUID_OK;
}
void etude_fs_pitch_bend(etude_fs *fs, int chan, int value) { fluid_synth_pitch_bend(fs->synth, chan, value); }
void etude_fs_channel_pressure(etude_fs *fs, int chan, int value) { fluid_synth_channel_pressure(fs->synth, chan, value); }
void etude_fs_key_pressure(etude_fs *fs, int chan, int key, int value) { fluid_synth_key_pressure(fs->synth, chan, key, value); }
void etude_fs_sysex(etude_fs *fs, const unsigned char *data, int len) {
    if (len <= 0) return;
    fluid_synth_sysex(fs->synth, (const char *)data, len, NULL, NULL, NULL, 0);
}

void etude_fs_all_notes_off(etude_fs *fs) {
    if (!fs || !fs->synth) return;
    int channels = fluid_synth_count_midi_channels(fs->synth);
    for (int c = 0; c < channels; c++) {
        fluid_synth_cc(fs->synth, c, 64, 0);
        fluid_synth_cc(fs->synth, c, 123, 0);
    }
    fluid_synth_all_notes_off(fs->synth, -1);
}

void etude_fs_all_sounds_off(etude_fs *fs) {
    if (!fs || !fs->synth) return;
    fluid_synth_all_sounds_off(fs->synth, -1);
}

int etude_fs_active_voices(etude_fs *fs) { return fluid_synth_get_active_voice_count(fs->synth); }

unsigned int etude_fs_ticks(etude_fs *fs) {
    return (unsigned int)__atomic_load_n(&fs->rendered, __ATOMIC_RELAXED);
}

/* The live driver's callback: render through the synth and count what was pulled. */
static int audio_callback(void *data, int len, int nfx, float **fx, int nout, float **out) {
    etude_fs *fs = data;
    int rc = fluid_synth_process(fs->synth, len, nfx, fx, nout, out);
    if (nout >= 2) etude_mix_add(out[0], 1, out[1], 1, len); /* a recording practised with */
    __atomic_add_fetch(&fs->rendered, (unsigned long long)len, __ATOMIC_RELAXED);
    return rc;
}

int etude_fs_render(etude_fs *fs, int frames, float *left, float *right) {
    return fluid_synth_write_float(fs->synth, frames, left, 0, 1, right, 0, 1) == FLUID_OK;
}

int etude_fs_start_audio(etude_fs *fs, const char *const *drivers, int count) {
    if (!fs->synth) return -1;
    etude_fs_stop_audio(fs);
    for (int i = 0; i < count; i++) {
        if (fluid_settings_setstr(fs->settings, "audio.driver", drivers[i]) != FLUID_OK) continue;
        fs->driver = new_fluid_audio_driver2(fs->settings, audio_callback, fs);
        if (fs->driver) return i;
    }
    return -1;
}

/* ---- device sample rate (PulseAudio / PipeWire-Pulse server default) ---- */

#include <pulse/pulseaudio.h>
#include <unistd.h>

struct rate_query { int done; unsigned rate; };

static void server_info_cb(pa_context *c, const pa_server_info *info, void *userdata) {
    (void)c;
    struct rate_query *q = userdata;
    if (info) q->rate = info->sample_spec.rate;
    q->done = 1;
}

unsigned etude_pulse_default_rate(int timeout_ms) {
    pa_mainloop *loop = pa_mainloop_new();
    if (!loop) return 0;
    pa_context *ctx = pa_context_new(pa_mainloop_get_api(loop), "etude-rate-probe");
    unsigned rate = 0;
    if (ctx && pa_context_connect(ctx, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) >= 0) {
        struct rate_query q = {0, 0};
        pa_operation *op = NULL;
        for (int waited = 0; waited < timeout_ms && !q.done; waited++) {
            pa_mainloop_iterate(loop, 0, NULL);
            pa_context_state_t st = pa_context_get_state(ctx);
            if (st == PA_CONTEXT_FAILED || st == PA_CONTEXT_TERMINATED) break;
            if (st == PA_CONTEXT_READY && !op) op = pa_context_get_server_info(ctx, server_info_cb, &q);
            if (!q.done) usleep(1000);
        }
        if (op) pa_operation_unref(op);
        rate = q.rate;
        pa_context_disconnect(ctx);
    }
    if (ctx) pa_context_unref(ctx);
    pa_mainloop_free(loop);
    return rate;
}
