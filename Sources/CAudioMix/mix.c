#include "etude_mix.h"
#include <stdatomic.h>
#include <time.h>

#define MASK (ETUDE_MIX_CAPACITY - 1u)
#define FADE_FRAMES 240 /* 5 ms at 48 kHz: a flush or a pause never clicks */

static float ring_l[ETUDE_MIX_CAPACITY];
static float ring_r[ETUDE_MIX_CAPACITY];
static _Atomic uint64_t write_pos;   /* producer's */
static _Atomic uint64_t read_pos;    /* consumer's */
static _Atomic uint64_t skip_to;     /* frames before this are dropped (flushed), after a fade */
static _Atomic int active;
static _Atomic int paused;
static _Atomic uint64_t underruns;
static _Atomic uint64_t consumed;
static _Atomic uint64_t last_pull_usecs;
/* The consumer's own: the gain it fades with (0..1), so a pause or flush ramps. */
static float gain = 0.0f;

static uint64_t now_usecs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void etude_mix_add(float *l, int lstride, float *r, int rstride, int n) {
    if (!atomic_load_explicit(&active, memory_order_acquire) || n <= 0) return;
    atomic_store_explicit(&last_pull_usecs, now_usecs(), memory_order_relaxed);
    uint64_t rd = atomic_load_explicit(&read_pos, memory_order_relaxed);
    uint64_t wr = atomic_load_explicit(&write_pos, memory_order_acquire);
    uint64_t skip = atomic_load_explicit(&skip_to, memory_order_acquire);
    int hold = atomic_load_explicit(&paused, memory_order_relaxed);
    float step = 1.0f / FADE_FRAMES;
    int i = 0;
    /* Flushed frames: fade out what is playing, then jump past them. */
    if (rd < skip) {
        for (; i < n && rd < skip && gain > 0.0f; i++, rd++) {
            gain -= step;
            if (gain < 0.0f) gain = 0.0f;
            l[i * lstride] += gain * ring_l[rd & MASK];
            r[i * rstride] += gain * ring_r[rd & MASK];
        }
        if (rd < skip) rd = skip;
    }
    if (hold) {
        /* Paused: fade out what is playing now, keep the rest for when it goes on. */
        for (; i < n && rd < wr && gain > 0.0f; i++, rd++) {
            gain -= step;
            if (gain < 0.0f) gain = 0.0f;
            l[i * lstride] += gain * ring_l[rd & MASK];
            r[i * rstride] += gain * ring_r[rd & MASK];
        }
        atomic_store_explicit(&read_pos, rd, memory_order_release);
        return;
    }
    int short_of = 0;
    for (; i < n; i++) {
        if (rd >= wr) { short_of = 1; gain = 0.0f; break; }
        if (gain < 1.0f) { gain += step; if (gain > 1.0f) gain = 1.0f; }
        l[i * lstride] += gain * ring_l[rd & MASK];
        r[i * rstride] += gain * ring_r[rd & MASK];
        rd++;
    }
    atomic_fetch_add_explicit(&consumed, (uint64_t)i, memory_order_relaxed);
    if (short_of) atomic_fetch_add_explicit(&underruns, 1, memory_order_relaxed);
    atomic_store_explicit(&read_pos, rd, memory_order_release);
}

void etude_mix_set_active(int on) { atomic_store_explicit(&active, on ? 1 : 0, memory_order_release); }

void etude_mix_set_paused(int p) { atomic_store_explicit(&paused, p ? 1 : 0, memory_order_release); }

uint32_t etude_mix_queued(void) {
    uint64_t wr = atomic_load_explicit(&write_pos, memory_order_relaxed);
    uint64_t rd = atomic_load_explicit(&read_pos, memory_order_acquire);
    uint64_t skip = atomic_load_explicit(&skip_to, memory_order_relaxed);
    uint64_t from = rd > skip ? rd : skip;
    return wr > from ? (uint32_t)(wr - from) : 0;
}

uint32_t etude_mix_write(const float *l, const float *r, uint32_t n) {
    uint64_t wr = atomic_load_explicit(&write_pos, memory_order_relaxed);
    uint64_t rd = atomic_load_explicit(&read_pos, memory_order_acquire);
    /* Keep a fade's worth free behind the reader (it may still read flushed frames). */
    uint64_t used = wr - rd;
    uint64_t room = used + FADE_FRAMES < ETUDE_MIX_CAPACITY ? ETUDE_MIX_CAPACITY - FADE_FRAMES - used : 0;
    if (n > room) n = (uint32_t)room;
    for (uint32_t i = 0; i < n; i++) {
        ring_l[(wr + i) & MASK] = l[i];
        ring_r[(wr + i) & MASK] = r[i];
    }
    atomic_store_explicit(&write_pos, wr + n, memory_order_release);
    return n;
}

void etude_mix_flush(void) {
    atomic_store_explicit(&skip_to, atomic_load_explicit(&write_pos, memory_order_relaxed), memory_order_release);
}

uint64_t etude_mix_underruns(void) { return atomic_load_explicit(&underruns, memory_order_relaxed); }
uint64_t etude_mix_consumed(void) { return atomic_load_explicit(&consumed, memory_order_relaxed); }

int etude_mix_pulled_within(uint64_t usecs) {
    uint64_t last = atomic_load_explicit(&last_pull_usecs, memory_order_relaxed);
    return last != 0 && now_usecs() - last <= usecs;
}
