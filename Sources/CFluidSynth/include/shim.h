// Plain C functions over libfluidsynth for Swift: no varargs, no macros, one opaque handle.
// FluidSynth's own log is captured into a buffer (etude_fs_log_take) instead of stderr.
#ifndef ETUDE_FLUIDSYNTH_SHIM_H
#define ETUDE_FLUIDSYNTH_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Settings, synth, optional audio driver and the loaded SoundFont, owned together.
typedef struct etude_fs etude_fs;

/// Routes FluidSynth's log (all levels) into an in-memory buffer. Idempotent.
void etude_fs_capture_log(void);
/// Copies and clears the captured log into `buf` (NUL-terminated); returns bytes written.
size_t etude_fs_log_take(char *buf, size_t cap);

/// New settings (before the synth exists). Returns NULL on allocation failure.
etude_fs *etude_fs_new(void);
/// Settings by name; return 1 on success, 0 when FluidSynth rejects the name or value.
int etude_fs_set_num(etude_fs *fs, const char *name, double value);
int etude_fs_set_int(etude_fs *fs, const char *name, int value);
int etude_fs_set_str(etude_fs *fs, const char *name, const char *value);
double etude_fs_get_num(etude_fs *fs, const char *name);
int etude_fs_get_int(etude_fs *fs, const char *name);
/// Creates the synth from the settings set so far. Returns 1 on success.
int etude_fs_start_synth(etude_fs *fs);
/// Stops the audio driver (if any), deletes synth and settings.
void etude_fs_free(etude_fs *fs);

/// The fluid_synth_t itself (NULL before etude_fs_start_synth), for the JACK client's callback
/// to render: Etude's own JACK client plays this synth instead of FluidSynth's audio driver.
void *etude_fs_synth_pointer(etude_fs *fs);

/// Loads a SoundFont; returns its id (>= 0) or -1 when the file is missing or corrupt.
int etude_fs_load_soundfont(etude_fs *fs, const char *path);

void etude_fs_note_on(etude_fs *fs, int chan, int key, int vel);
void etude_fs_note_off(etude_fs *fs, int chan, int key);
void etude_fs_control_change(etude_fs *fs, int chan, int ctrl, int value);
/// Program change honouring the bank chosen by CC0/CC32 (FluidSynth tracks bank select CCs).
void etude_fs_program_change(etude_fs *fs, int chan, int program);
/// Explicit bank + program (e.g. bank 128 for drums on a channel that is not 10).
int etude_fs_bank_program(etude_fs *fs, int chan, int bank, int program);
/// 14-bit bend, 8192 = centre.
void etude_fs_pitch_bend(etude_fs *fs, int chan, int value);
void etude_fs_channel_pressure(etude_fs *fs, int chan, int value);
void etude_fs_key_pressure(etude_fs *fs, int chan, int key, int value);
/// System exclusive without the leading F0 and trailing F7.
void etude_fs_sysex(etude_fs *fs, const unsigned char *data, int len);
/// CC 64 = 0 and CC 123 on every channel, then FluidSynth's own all-notes-off.
void etude_fs_all_notes_off(etude_fs *fs);
/// Immediate silence: all sounds off (no release) on every channel.
void etude_fs_all_sounds_off(etude_fs *fs);
/// Number of voices still sounding.
int etude_fs_active_voices(etude_fs *fs);

/// Frames rendered so far (by the live driver or by etude_fs_render): proof audio is flowing.
unsigned int etude_fs_ticks(etude_fs *fs);

/// Renders `frames` stereo frames into `left`/`right`. Returns 1 on success.
int etude_fs_render(etude_fs *fs, int frames, float *left, float *right);

/// Tries each driver name in order; returns the index of the first that opened, or -1.
int etude_fs_start_audio(etude_fs *fs, const char *const *drivers, int count);
/// Stops the live driver if one is running (synth remains).
void etude_fs_stop_audio(etude_fs *fs);

/// The PulseAudio (or PipeWire-Pulse) server's default sample rate, 0 when no server answers
/// within `timeout_ms`. Never autospawns a server.
unsigned etude_pulse_default_rate(int timeout_ms);

#ifdef __cplusplus
}
#endif

/* Etude's own PulseAudio playback stream (pulse_out.c). */
#include "pulse_out.h"
#include "playback.h"
#endif
