// The ALSA sequencer's output side for `--midi-out` without JACK: one client with one readable
// port ("Etude output") connected to a keyboard's (or synth's) writable port, channel messages
// sent to it directly. Every function reports failure by its return value.
#include "shim.h"

#include <alsa/asoundlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    snd_seq_t *seq;
    int port;
} etude_seq_out;

static void quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void *etude_seq_out_open(const char *client_name, char *err, int err_len) {
    snd_lib_error_set_handler(quiet);
    snd_seq_t *seq = NULL;
    int rc = snd_seq_open(&seq, "default", SND_SEQ_OPEN_OUTPUT, 0);
    if (rc < 0) {
        if (err && err_len > 0) snprintf(err, (size_t)err_len, "%s", snd_strerror(rc));
        return NULL;
    }
    snd_seq_set_client_name(seq, client_name);
    int port = snd_seq_create_simple_port(seq, "Etude output", SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ,
                                          SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    etude_seq_out *h = port < 0 ? NULL : calloc(1, sizeof *h);
    if (!h) {
        if (err && err_len > 0) snprintf(err, (size_t)err_len, "%s", port < 0 ? snd_strerror(port) : "out of memory");
        snd_seq_close(seq);
        return NULL;
    }
    h->seq = seq;
    h->port = port;
    return h;
}

void etude_seq_out_close(void *handle) {
    etude_seq_out *h = handle;
    if (!h) return;
    snd_seq_drain_output(h->seq);
    snd_seq_close(h->seq);
    free(h);
}

int etude_seq_out_list(void *handle, etude_port_info *out, int max) {
    etude_seq_out *h = handle;
    if (!h || !out || max <= 0) return 0;
    int me = snd_seq_client_id(h->seq), n = 0;
    snd_seq_client_info_t *cinfo;
    snd_seq_port_info_t *pinfo;
    snd_seq_client_info_alloca(&cinfo);
    snd_seq_port_info_alloca(&pinfo);
    snd_seq_client_info_set_client(cinfo, -1);
    while (snd_seq_query_next_client(h->seq, cinfo) >= 0 && n < max) {
        int client = snd_seq_client_info_get_client(cinfo);
        if (client == SND_SEQ_CLIENT_SYSTEM || client == me) continue;
        snd_seq_port_info_set_client(pinfo, client);
        snd_seq_port_info_set_port(pinfo, -1);
        while (snd_seq_query_next_port(h->seq, pinfo) >= 0 && n < max) {
            unsigned caps = snd_seq_port_info_get_capability(pinfo);
            unsigned want = SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE;
            if ((caps & want) != want || (caps & SND_SEQ_PORT_CAP_NO_EXPORT)) continue;
            unsigned type = snd_seq_port_info_get_type(pinfo);
            etude_port_info *p = &out[n++];
            memset(p, 0, sizeof(*p));
            p->client = client;
            p->port = snd_seq_port_info_get_port(pinfo);
            snprintf(p->client_name, sizeof(p->client_name), "%s", snd_seq_client_info_get_name(cinfo));
            snprintf(p->port_name, sizeof(p->port_name), "%s", snd_seq_port_info_get_name(pinfo));
            p->is_hardware = (type & (SND_SEQ_PORT_TYPE_HARDWARE | SND_SEQ_PORT_TYPE_PORT)) ? 1 : 0;
            p->is_software = !p->is_hardware;
        }
    }
    return n;
}

int etude_seq_out_connect(void *handle, int client, int port) {
    etude_seq_out *h = handle;
    if (!h) return -EINVAL;
    return snd_seq_connect_to(h->seq, h->port, client, port);
}

int etude_seq_out_send(void *handle, const unsigned char *b, int len) {
    etude_seq_out *h = handle;
    if (!h || len < 1 || b[0] < 0x80 || b[0] >= 0xF0) return -EINVAL;
    snd_seq_event_t ev;
    snd_seq_ev_clear(&ev);
    snd_seq_ev_set_source(&ev, h->port);
    snd_seq_ev_set_subs(&ev);
    snd_seq_ev_set_direct(&ev);
    int ch = b[0] & 0x0F, d1 = len > 1 ? b[1] & 0x7F : 0, d2 = len > 2 ? b[2] & 0x7F : 0;
    switch (b[0] & 0xF0) {
    case 0x80: snd_seq_ev_set_noteoff(&ev, ch, d1, d2); break;
    case 0x90: snd_seq_ev_set_noteon(&ev, ch, d1, d2); break;
    case 0xA0: snd_seq_ev_set_keypress(&ev, ch, d1, d2); break;
    case 0xB0: snd_seq_ev_set_controller(&ev, ch, d1, d2); break;
    case 0xC0: snd_seq_ev_set_pgmchange(&ev, ch, d1); break;
    case 0xD0: snd_seq_ev_set_chanpress(&ev, ch, d1); break;
    default: snd_seq_ev_set_pitchbend(&ev, ch, (d1 | (d2 << 7)) - 8192); break;
    }
    int rc = snd_seq_event_output_direct(h->seq, &ev);
    return rc < 0 ? rc : 0;
}
