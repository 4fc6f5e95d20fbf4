// Forwarders to libmosquitto.so.1, opened with dlopen on first use (see CMosquitto.h).
#include "CMosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define FUNCTIONS(X)                                                                                               \
    X(mosquitto_lib_init) X(mosquitto_new) X(mosquitto_destroy) X(mosquitto_will_set)                             \
    X(mosquitto_username_pw_set) X(mosquitto_connect_async) X(mosquitto_reconnect_async) X(mosquitto_disconnect)  \
    X(mosquitto_publish) X(mosquitto_loop) X(mosquitto_threaded_set) X(mosquitto_int_option)                      \
    X(mosquitto_user_data_set) X(mosquitto_tls_set) X(mosquitto_connect_callback_set)                            \
    X(mosquitto_publish_callback_set) X(mosquitto_subscribe) X(mosquitto_message_callback_set)

static struct {
#define FIELD(name) __typeof__(&name) name;
    FUNCTIONS(FIELD)
#undef FIELD
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE(name)                                                                                              \
    real.name = (__typeof__(&name))dlsym(library, #name);                                                          \
    if (!real.name) {                                                                                              \
        snprintf(load_error, sizeof load_error, "libmosquitto.so.1 has no %s", #name);                           \
        return;                                                                                                    \
    }
    FUNCTIONS(RESOLVE)
#undef RESOLVE
}

int lk_mosquitto_load(char *error, size_t error_length) {
    pthread_once(&once, load);
    if (load_error[0] == '\0') return 0;
    if (error && error_length > 0) snprintf(error, error_length, "%s", load_error);
    return -1;
}

int lk_mosquitto_lib_init(void) { return real.mosquitto_lib_init(); }
struct mosquitto *lk_mosquitto_new(const char *id, bool clean_session, void *obj) {
    return real.mosquitto_new(id, clean_session, obj);
}
void lk_mosquitto_destroy(struct mosquitto *mosq) { real.mosquitto_destroy(mosq); }
int lk_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                          bool retain) {
    return real.mosquitto_will_set(mosq, topic, payloadlen, payload, qos, retain);
}
int lk_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return real.mosquitto_username_pw_set(mosq, username, password);
}
int lk_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return real.mosquitto_connect_async(mosq, host, port, keepalive);
}
int lk_mosquitto_reconnect_async(struct mosquitto *mosq) { return real.mosquitto_reconnect_async(mosq); }
int lk_mosquitto_disconnect(struct mosquitto *mosq) { return real.mosquitto_disconnect(mosq); }
int lk_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                         int qos, bool retain) {
    return real.mosquitto_publish(mosq, mid, topic, payloadlen, payload, qos, retain);
}
int lk_mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets) {
    return real.mosquitto_loop(mosq, timeout, max_packets);
}
int lk_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded) {
    return real.mosquitto_threaded_set(mosq, threaded);
}
int lk_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return real.mosquitto_int_option(mosq, option, value);
}
void lk_mosquitto_user_data_set(struct mosquitto *mosq, void *obj) { real.mosquitto_user_data_set(mosq, obj); }
int lk_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                         const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return real.mosquitto_tls_set(mosq, cafile, capath, certfile, keyfile, pw_callback);
}
void lk_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    real.mosquitto_connect_callback_set(mosq, on_connect);
}
void lk_mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int)) {
    real.mosquitto_publish_callback_set(mosq, on_publish);
}
int lk_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) {
    return real.mosquitto_subscribe(mosq, mid, sub, qos);
}
void lk_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)) {
    real.mosquitto_message_callback_set(mosq, on_message);
}
