#include "shim.h"

#include <alsa/asoundlib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    snd_seq_t *seq;
    int in_port;
} etude_seq;

int etude_seq_device_present(void) {
    return access("/dev/snd/seq", R_OK | W_OK) == 0 ? 1 : 0;
}

// alsa-lib prints its own diagnostics to stderr, which would scribble over the practice
// screen; Etude reports every failure itself as one line, so the library stays quiet.
static void quiet_alsa_errors(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void *etude_seq_open(const char *client_name, char *err, int err_len) {
    snd_lib_error_set_handler(quiet_alsa_errors);
    snd_seq_t *seq = NULL;
    int rc = snd_seq_open(&seq, "default", SND_SEQ_OPEN_INPUT, SND_SEQ_NONBLOCK);
    if (rc < 0) {
        snprintf(err, (size_t)err_len, "cannot open the ALSA sequencer: %s", snd_strerror(rc));
        return NULL;
    }
    snd_seq_set_client_name(seq, client_name);
    int port = snd_seq_create_simple_port(seq, "Etude input",
                                          SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE,
                                          SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    if (port < 0) {
        snprintf(err, (size_t)err_len, "cannot create an ALSA input port: %s", snd_strerror(port));
        snd_seq_close(seq);
        return NULL;
    }
    // Announcements (ports appearing/leaving) arrive on the same input port.
    snd_seq_connect_from(seq, port, SND_SEQ_CLIENT_SYSTEM, SND_SEQ_PORT_SYSTEM_ANNOUNCE);
    etude_seq *h = calloc(1, sizeof(etude_seq));
    if (h == NULL) {
        snprintf(err, (size_t)err_len, "out of memory");
        snd_seq_close(seq);
        return NULL;
    }
    h->seq = seq;
    h->in_port = port;
    return h;
}

void etude_seq_close(void *handle) {
    etude_seq *h = handle;
    if (h == NULL) return;
    snd_seq_close(h->seq);
    free(h);
}

int etude_seq_client_id(void *handle) {
    etude_seq *h = handle;
    return h == NULL ? -1 : snd_seq_client_id(h->seq);
}

/// The other clients' ports with every capability in `want` (not system, not `seq`'s own), for
/// both directions (input here, `--midi-out` in seq_out.c). Returns the number found.
int etude_seq_list_ports_with(snd_seq_t *seq, unsigned want, etude_port_info *out, int max) {
    if (seq == NULL || out == NULL || max <= 0) return 0;
    int me = snd_seq_client_id(seq);
    int n = 0;
    snd_seq_client_info_t *cinfo;
    snd_seq_port_info_t *pinfo;
    snd_seq_client_info_alloca(&cinfo);
    snd_seq_port_info_alloca(&pinfo);
    snd_seq_client_info_set_client(cinfo, -1);
    while (snd_seq_query_next_client(seq, cinfo) >= 0 && n < max) {
        int client = snd_seq_client_info_get_client(cinfo);
        if (client == SND_SEQ_CLIENT_SYSTEM || client == me) continue;
        snd_seq_port_info_set_client(pinfo, client);
        snd_seq_port_info_set_port(pinfo, -1);
        while (snd_seq_query_next_port(seq, pinfo) >= 0 && n < max) {
            unsigned caps = snd_seq_port_info_get_capability(pinfo);
            if ((caps & want) != want || (caps & SND_SEQ_PORT_CAP_NO_EXPORT)) continue;
            unsigned type = snd_seq_port_info_get_type(pinfo);
            etude_port_info *p = &out[n++];
            memset(p, 0, sizeof(*p));
            p->client = client;
            p->port = snd_seq_port_info_get_port(pinfo);
            snprintf(p->client_name, sizeof(p->client_name), "%s", snd_seq_client_info_get_name(cinfo));
            snprintf(p->port_name, sizeof(p->port_name), "%s", snd_seq_port_info_get_name(pinfo));
            p->is_hardware = (type & (SND_SEQ_PORT_TYPE_HARDWARE | SND_SEQ_PORT_TYPE_PORT)) ? 1 : 0;
            p->is_software = (type & (SND_SEQ_PORT_TYPE_SOFTWARE | SND_SEQ_PORT_TYPE_APPLICATION | SND_SEQ_PORT_TYPE_SYNTHESIZER)) ? 1 : 0;
            if (strstr(p->client_name, "Midi Through") != NULL) {
                p->is_hardware = 0;
                p->is_software = 1;
            }
        }
    }
    return n;
}

int etude_seq_list_input_ports(void *handle, etude_port_info *out, int max) {
    etude_seq *h = handle;
    return h == NULL ? 0 : etude_seq_list_ports_with(h->seq, SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ, out, max);
}

int etude_seq_connect_from(void *handle, int client, int port) {
    etude_seq *h = handle;
    if (h == NULL) return -EINVAL;
    return snd_seq_connect_from(h->seq, h->in_port, client, port);
}

int etude_seq_disconnect_from(void *handle, int client, int port) {
    etude_seq *h = handle;
    if (h == NULL) return -EINVAL;
    return snd_seq_disconnect_from(h->seq, h->in_port, client, port);
}

static void translate(const snd_seq_event_t *ev, etude_seq_event *out) {
    memset(out, 0, sizeof(*out));
    out->source_client = ev->source.client;
    out->source_port = ev->source.port;
    switch (ev->type) {
    case SND_SEQ_EVENT_NOTEON:
        out->type = ev->data.note.velocity == 0 ? ETUDE_SEQ_NOTE_OFF : ETUDE_SEQ_NOTE_ON;
        out->channel = ev->data.note.channel;
        out->note = ev->data.note.note;
        out->value = ev->data.note.velocity;
        break;
    case SND_SEQ_EVENT_NOTEOFF:
        out->type = ETUDE_SEQ_NOTE_OFF;
        out->channel = ev->data.note.channel;
        out->note = ev->data.note.note;
        out->value = ev->data.note.velocity;
        break;
    case SND_SEQ_EVENT_CONTROLLER:
        out->type = ETUDE_SEQ_CONTROL;
        out->channel = ev->data.control.channel;
        out->note = (int)ev->data.control.param;
        out->value = ev->data.control.value;
        break;
    case SND_SEQ_EVENT_PITCHBEND:
        out->type = ETUDE_SEQ_PITCH_BEND;
        out->channel = ev->data.control.channel;
        out->value = ev->data.control.value;
        break;
    case SND_SEQ_EVENT_PGMCHANGE:
        out->type = ETUDE_SEQ_PROGRAM;
        out->channel = ev->data.control.channel;
        out->note = ev->data.control.value;
        break;
    case SND_SEQ_EVENT_PORT_START:
        out->type = ETUDE_SEQ_PORT_START;
        out->source_client = ev->data.addr.client;
        out->source_port = ev->data.addr.port;
        break;
    case SND_SEQ_EVENT_PORT_EXIT:
        out->type = ETUDE_SEQ_PORT_EXIT;
        out->source_client = ev->data.addr.client;
        out->source_port = ev->data.addr.port;
        break;
    case SND_SEQ_EVENT_CLIENT_EXIT:
        out->type = ETUDE_SEQ_CLIENT_EXIT;
        out->source_client = ev->data.addr.client;
        out->source_port = ev->data.addr.port;
        break;
    default:
        out->type = ETUDE_SEQ_OTHER;
        break;
    }
}

int etude_seq_read(void *handle, etude_seq_event *out, int timeout_ms) {
    etude_seq *h = handle;
    if (h == NULL || out == NULL) return -EINVAL;
    snd_seq_event_t *ev = NULL;
    int rc = snd_seq_event_input(h->seq, &ev);
    if (rc == -EAGAIN) {
        int count = snd_seq_poll_descriptors_count(h->seq, POLLIN);
        if (count <= 0 || count > 8) count = 1;
        struct pollfd fds[8];
        snd_seq_poll_descriptors(h->seq, fds, (unsigned)count, POLLIN);
        int pr = poll(fds, (nfds_t)count, timeout_ms);
        if (pr == 0) return 0;
        if (pr < 0) return errno == EINTR ? 0 : -errno;
        rc = snd_seq_event_input(h->seq, &ev);
        if (rc == -EAGAIN) return 0;
    }
    if (rc == -ENOSPC) return 0;  // input queue overrun: events lost, keep going
    if (rc < 0 || ev == NULL) return rc < 0 ? rc : 0;
    translate(ev, out);
    return 1;
}

const char *etude_seq_strerror(int code) {
    return snd_strerror(code);
}
