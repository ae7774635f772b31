// libfluidsynth found through pkg-config (`fluidsynth`); only the CFluidSynth shim includes it.
#include <fluidsynth.h>
