// The Rubber Band library's C API found through pkg-config (`rubberband`); only RecordingAudio imports it.
#include <rubberband/rubberband-c.h>
