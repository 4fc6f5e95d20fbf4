#ifndef LOOKOUT_CTURBOJPEG_SHIM_H
#define LOOKOUT_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>

// TJFLAG_* are plain #defines of integer constants (they import), but are re-stated as
// typed constants so Swift call sites need no casts.
static const int LK_TJFLAG_FASTDCT = TJFLAG_FASTDCT;
static const int LK_TJFLAG_STOPONWARNING = TJFLAG_STOPONWARNING;
static const int LK_TJFLAG_NOREALLOC = TJFLAG_NOREALLOC;

#endif
