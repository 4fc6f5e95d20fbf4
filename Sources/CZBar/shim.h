#ifndef LOOKOUT_CZBAR_SHIM_H
#define LOOKOUT_CZBAR_SHIM_H
#include <zbar.h>

// zbar_fourcc is a macro; the gray format is all Lookout hands to ZBar.
static const unsigned long LK_ZBAR_FOURCC_Y800 =
    ((unsigned long)'Y') | ((unsigned long)'8' << 8) | ((unsigned long)'0' << 16) | ((unsigned long)'0' << 24);

#endif
