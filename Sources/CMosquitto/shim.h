#ifndef LOOKOUT_CMOSQUITTO_SHIM_H
#define LOOKOUT_CMOSQUITTO_SHIM_H
// libmosquitto's API imports into Swift as it is; the header is wrapped only to name the module.
#include <mosquitto.h>
#endif
