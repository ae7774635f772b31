// Plain C functions over the ALSA sequencer so Swift never touches libasound's macros,
// varargs or opaque-struct allocation helpers. Every function reports failure by return
// value; none aborts.
#ifndef ETUDE_CALSA_SHIM_H
#define ETUDE_CALSA_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/// One readable (input-capable) sequencer port as `etude devices` shows it.
typedef struct {
    int client;
    int port;
    char client_name[64];
    char port_name[64];
    /// 1 when the port belongs to real hardware (USB keyboard, MIDI interface).
    int is_hardware;
    /// 1 for the kernel's "Midi Through" and other software ports.
    int is_software;
} etude_port_info;

enum {
    ETUDE_SEQ_NONE = 0,
    ETUDE_SEQ_NOTE_ON = 1,
    ETUDE_SEQ_NOTE_OFF = 2,
    ETUDE_SEQ_CONTROL = 3,
    ETUDE_SEQ_PITCH_BEND = 4,
    ETUDE_SEQ_PROGRAM = 5,
    ETUDE_SEQ_PORT_START = 10,
    ETUDE_SEQ_PORT_EXIT = 11,
    ETUDE_SEQ_CLIENT_EXIT = 12,
    ETUDE_SEQ_OTHER = 99
};

/// A sequencer event reduced to what Etude uses.
typedef struct {
    int type;           // one of ETUDE_SEQ_*
    int channel;
    int note;           // note number, controller number or program
    int value;          // velocity, controller value, pitch bend (-8192…8191)
    int source_client;  // sender (or, for announcements, the port that appeared/left)
    int source_port;
} etude_seq_event;

/// 1 when /dev/snd/seq exists and can be opened for reading and writing.
int etude_seq_device_present(void);

/// Opens a client named `client_name` with one writable input port and subscribes it to
/// the system announce port (to see keyboards come and go). Returns NULL and fills `err`.
void *etude_seq_open(const char *client_name, char *err, int err_len);
void etude_seq_close(void *handle);

/// This client's own number (so it can skip itself when listing).
int etude_seq_client_id(void *handle);

/// Fills up to `max` readable ports of other clients. Returns the number found.
int etude_seq_list_input_ports(void *handle, etude_port_info *out, int max);

/// Subscribes our input port to `client:port`. 0 on success, negative errno otherwise.
int etude_seq_connect_from(void *handle, int client, int port);
int etude_seq_disconnect_from(void *handle, int client, int port);

/// Waits up to `timeout_ms` for an event. 1 = `out` filled, 0 = timeout, negative = error.
int etude_seq_read(void *handle, etude_seq_event *out, int timeout_ms);

/// Human-readable text for a negative ALSA error code.
const char *etude_seq_strerror(int code);

// ---- the output side, for `--midi-out` without JACK (seq_out.c) ----

/// Opens an output client named `client_name`. NULL with `err` filled when there is no sequencer.
void *etude_seq_out_open(const char *client_name, char *err, int err_len);
void etude_seq_out_close(void *handle);
/// Fills up to `max` writable ports of other clients (MIDI destinations). Returns the number found.
int etude_seq_out_list(void *handle, etude_port_info *out, int max);
/// Connects our port to `client:port`. 0 on success, negative errno otherwise.
int etude_seq_out_connect(void *handle, int client, int port);
/// Sends one channel message (1–3 bytes) at once. 0 on success.
int etude_seq_out_send(void *handle, const unsigned char *bytes, int len);

/// ALSA PCM capture (`--input audio:alsa:DEVICE`): opens DEVICE for mono 16-bit capture at
/// `rate`; NULL with a message in `err`.
void *etude_pcm_open(const char *device, int rate, char *err, int errlen);
/// Reads exactly `frames` samples as floats (blocks); 0, or -1 with `err`.
int etude_pcm_read(void *handle, float *out, int frames, char *err, int errlen);
/// Frames between the microphone and this program.
long long etude_pcm_delay_frames(void *handle);
void etude_pcm_close(void *handle);

#ifdef __cplusplus
}
#endif

#endif
