#include "cpulsecapture.h"
#include <pulse/simple.h>
#include <pulse/error.h>
#include <stdio.h>
#include <string.h>

void *etude_capture_open(const char *source, int rate, int fragment_frames, char *err, int errlen) {
    pa_sample_spec spec;
    spec.format = PA_SAMPLE_FLOAT32LE;
    spec.rate = (uint32_t)rate;
    spec.channels = 1;
    pa_buffer_attr attr;
    memset(&attr, 0xff, sizeof attr);  // (uint32_t)-1: the server's defaults
    attr.fragsize = (uint32_t)(fragment_frames * sizeof(float));
    int code = 0;
    pa_simple *s = pa_simple_new(NULL, "etude", PA_STREAM_RECORD, source, "listening to the piano",
                                 &spec, NULL, &attr, &code);
    if (!s && err && errlen > 0) snprintf(err, (size_t)errlen, "%s", pa_strerror(code));
    return s;
}

int etude_capture_read(void *handle, float *buffer, int frames, char *err, int errlen) {
    int code = 0;
    if (pa_simple_read((pa_simple *)handle, buffer, (size_t)frames * sizeof(float), &code) < 0) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "%s", pa_strerror(code));
        return -1;
    }
    return 0;
}

long long etude_capture_latency_us(void *handle) {
    int code = 0;
    pa_usec_t us = pa_simple_get_latency((pa_simple *)handle, &code);
    return us == (pa_usec_t)-1 ? -1 : (long long)us;
}

void etude_capture_close(void *handle) {
    if (handle) pa_simple_free((pa_simple *)handle);
}
