// libsndfile found through pkg-config (`sndfile`); only RecordingAudio imports it.
#include <sndfile.h>
