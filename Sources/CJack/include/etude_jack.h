// Plain C functions over libjack (a JACK server, or PipeWire's JACK) for Swift. One client owns
// the ports midi_in, midi_out, left and right; its process callback is C: it plays what arrives
// on midi_in through the attached FluidSynth at the block it arrived in, renders into left and
// right, writes queued lesson events to midi_out, and hands played events to Swift through a
// lock-free single-producer/single-consumer ring. The callback never allocates, locks or calls
// the system (FluidSynth's own API mutex aside, which nothing else holds while JACK plays).
#ifndef ETUDE_JACK_SHIM_H
#define ETUDE_JACK_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One MIDI event crossing a ring: up to three bytes, its frame and a JACK time in microseconds.
/// Played events (callback → app) carry the time of the frame they arrived at. Lesson events
/// (app → callback) carry the time they are due (0: at once): the callback plays each at the
/// frame of that time — on midi_out to the frame, on the synth from the start of the 64-frame
/// block the frame falls in — and holds one due in a later cycle until then. `dest` (app →
/// callback): 1 the synth, 2 midi_out, 3 both.
typedef struct {
    uint64_t usecs;
    uint32_t frame;
    uint8_t len;
    uint8_t dest;
    uint8_t bytes[3];
} etude_jack_event;

/// Internal status byte for "all notes off, sustain up, on every channel" (never sent as is).
#define ETUDE_JACK_ALL_OFF 0xFF

typedef struct etude_jack etude_jack;

/// Why a client did not open: 1 no server answers (never started here), 2 the server refused
/// the client, 3 a port could not be registered, 4 the client could not be activated.
etude_jack *etude_jack_open(const char *name, int *status);
/// Deactivates and closes the client (the synth is detached first).
void etude_jack_close(etude_jack *j);

/// The client's name as the server knows it (may differ from the one asked for).
const char *etude_jack_name(etude_jack *j);
unsigned etude_jack_rate(etude_jack *j);
unsigned etude_jack_period(etude_jack *j);
/// 0 once the server shut the client down (server stopped or died), else 1.
int etude_jack_alive(etude_jack *j);
/// Process cycles run so far, xruns reported by the server, played events dropped on a full ring.
uint32_t etude_jack_cycles(etude_jack *j);
uint32_t etude_jack_xruns(etude_jack *j);
uint32_t etude_jack_dropped(etude_jack *j);
/// More than `events` on midi_in within a quarter second (a keyboard sends at most a few
/// hundred) is a flood: from then the callback neither reports nor echoes midi_in (the echo
/// channel's notes are ended once) until a whole second passes at a keyboard's rate. 0 = no limit.
void etude_jack_set_flood_limit(etude_jack *j, uint32_t events);
/// 1 while a flood is being ignored; floods started so far; events ignored in them.
int etude_jack_flooding(etude_jack *j);
uint32_t etude_jack_floods(etude_jack *j);
uint32_t etude_jack_flood_events(etude_jack *j);
/// Ports registered or unregistered on the server since the client opened (a counter that
/// changes when an instrument's port comes or goes).
uint32_t etude_jack_registrations(etude_jack *j);
/// 1 when a port of that full name exists now.
int etude_jack_port_exists(etude_jack *j, const char *name);
/// The ports connected to midi_in, one a line, into `buf`; returns how many.
int etude_jack_connections(etude_jack *j, char *buf, size_t cap);
/// Stamped lesson events that reached the callback after their frame had passed (played at once).
uint32_t etude_jack_late(etude_jack *j);
/// Times the lesson's time → frame mapping moved to the server's (they drifted over 5 ms apart).
uint32_t etude_jack_reanchors(etude_jack *j);
/// The longest process callback so far in microseconds (its own work: rendering, MIDI, the
/// rings); `reset` = 1 starts a new maximum.
uint32_t etude_jack_worst_usecs(etude_jack *j, int reset);
/// Frames between etude:left and the speakers (the largest playback latency reported).
uint32_t etude_jack_output_latency(etude_jack *j);
/// The JACK clock in microseconds (the one played events carry).
uint64_t etude_jack_now_usecs(void);

/// Attaches a fluid_synth_t (or NULL to detach). Detaching waits until the callback no longer
/// uses the old synth (two cycles, at most 200 ms), so it can be freed afterwards.
void etude_jack_attach_synth(etude_jack *j, void *fluid_synth);
/// 1 while a synth is attached.
int etude_jack_has_synth(etude_jack *j);
/// Echo: channel messages from midi_in are played on `channel` (0–15) of the synth; -1 = off.
void etude_jack_set_echo(etude_jack *j, int channel);
/// Keys whose notes midi_in never echoes (gesture keys): bit k of `low` is key k (0–63), bit k
/// of `high` key 64 + k. They are still reported to Swift. 0, 0 mutes none.
void etude_jack_set_muted_keys(etude_jack *j, uint64_t low, uint64_t high);
/// Played events are copied to the ring for Swift only while reporting is on.
void etude_jack_set_reporting(etude_jack *j, int on);

/// Queues an event for the callback; 0 when the ring is full.
int etude_jack_send(etude_jack *j, const etude_jack_event *event);
/// Takes the next played event; 0 when there is none.
int etude_jack_take(etude_jack *j, etude_jack_event *event);

/// Connects two ports by full name. 0 on success (or already connected), 1 when `source` does
/// not exist, 2 when `destination` does not exist, 3 when the server refused.
int etude_jack_connect(etude_jack *j, const char *source, const char *destination);
/// Port names, one a line, into `buf`: MIDI (midi = 1) or audio ports that are outputs
/// (output = 1) or inputs, hardware only when physical = 1. Returns the number of ports.
int etude_jack_ports(etude_jack *j, int midi, int output, int physical, char *buf, size_t cap);

/// The JACK library's own messages are kept (last line) instead of printed.
size_t etude_jack_last_error(char *buf, size_t cap);

// ---- the meter: a key (MIDI out) and an ear (audio in), two clients, for tests and benches ----

typedef struct etude_jack_meter etude_jack_meter;

/// Opens `NAME-key` (port out) and `NAME-ear` (port in) on `server` (NULL: the default one, as
/// JACK_DEFAULT_SERVER names it); NULL when no server answers.
etude_jack_meter *etude_jack_meter_open(const char *name, const char *server);
/// Connects the key to `midi_port` and `audio_port` to the ear. 0 on success.
int etude_jack_meter_connect(etude_jack_meter *m, const char *midi_port, const char *audio_port);
/// Plays `count` notes at random frame offsets (a fresh note only after silence) and stores,
/// per note, frames from the note-on's frame to the first sound above `threshold`
/// (INT32_MIN when none came within `timeout_ms` of it). Returns the notes measured.
int etude_jack_meter_run(etude_jack_meter *m, int count, int key, float threshold, uint32_t seed, int timeout_ms,
                         int32_t *frames);
/// The largest sample the ear heard since the last call (for "silent" checks).
float etude_jack_meter_peak(etude_jack_meter *m);
/// Sends raw MIDI bytes from the key at the next cycle (e.g. a flood or a lone note); 0 if busy.
int etude_jack_meter_send(etude_jack_meter *m, const unsigned char *bytes, int len, int repeat);
/// The next MIDI message the ear's `midi` port received (bytes[0..<3]); returns its length, 0
/// when there is none.
int etude_jack_meter_take_midi(etude_jack_meter *m, unsigned char *bytes);
/// The same, with the absolute JACK frame it arrived at in `frame` (when not NULL).
int etude_jack_meter_take_midi_at(etude_jack_meter *m, unsigned char *bytes, uint32_t *frame);
/// Onsets on the ear's audio port: the first sample above `threshold` after at least
/// `quiet_frames` frames at or below it is kept (its absolute frame); threshold 0 stops it.
void etude_jack_meter_onsets(etude_jack_meter *m, float threshold, uint32_t quiet_frames);
/// The next onset's absolute frame; returns 0 when there is none.
int etude_jack_meter_take_onset(etude_jack_meter *m, uint32_t *frame);
/// The robot pianist: every note-on/off on `channel` (0–15) the ear's `midi` port receives is
/// played by the key (channel 1, velocity 80) in its next cycle; -1 stops it.
void etude_jack_meter_robot(etude_jack_meter *m, int channel);
/// The key's next cycle sleeps `usecs` (a stalled client: the server misses its deadline).
void etude_jack_meter_stall(etude_jack_meter *m, int usecs);
unsigned etude_jack_meter_rate(etude_jack_meter *m);
unsigned etude_jack_meter_period(etude_jack_meter *m);
void etude_jack_meter_close(etude_jack_meter *m);

/// etude:mic (issue 30): registers the client's audio input port `mic` (once; it stays until
/// the client closes). 0 on success.
int etude_jack_mic_open(etude_jack *j);
/// Takes up to `max` samples captured on `mic` since the last read; returns how many.
int etude_jack_mic_read(etude_jack *j, float *out, int max);
/// Drops what was captured so far (a listener starting now).
void etude_jack_mic_flush(etude_jack *j);
/// The capture latency of what is connected to `mic`, in frames.
uint32_t etude_jack_mic_latency(etude_jack *j);

/// A test's player: its own client `name` with an audio output `out` that plays `count` samples
/// once from when `etude_jack_player_start` is called. Connect it with jack_connect.
typedef struct etude_jack_player etude_jack_player;
etude_jack_player *etude_jack_player_open(const char *name, const float *samples, size_t count);
int etude_jack_player_connect(etude_jack_player *p, const char *destination);
void etude_jack_player_start(etude_jack_player *p);
/// 1 once every sample was played.
int etude_jack_player_done(etude_jack_player *p);
void etude_jack_player_close(etude_jack_player *p);

#ifdef __cplusplus
}
#endif
#endif
