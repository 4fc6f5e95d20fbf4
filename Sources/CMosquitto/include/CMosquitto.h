#ifndef LOOKOUT_CMOSQUITTO_H
#define LOOKOUT_CMOSQUITTO_H
// libmosquitto, loaded on first use: a run without --mqtt does not map it (nor OpenSSL, which it
// brings). Types and constants come from mosquitto.h; calls go through the lk_ forwarders below,
// which are valid once lk_mosquitto_load() has returned 0.
#include <mosquitto.h>
#include <stddef.h>

// Loads libmosquitto.so.1 and resolves what Lookout calls; thread-safe, done once. Returns 0, or
// -1 with the loader's message in `error`.
int lk_mosquitto_load(char *error, size_t error_length);

int lk_mosquitto_lib_init(void);
struct mosquitto *lk_mosquitto_new(const char *id, bool clean_session, void *obj);
void lk_mosquitto_destroy(struct mosquitto *mosq);
int lk_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                          bool retain);
int lk_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
// Non-blocking: the TCP connect goes on in lk_mosquitto_loop, so a host that does not answer
// costs the caller's own deadline, not the kernel's SYN retries (about two minutes).
int lk_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive);
int lk_mosquitto_reconnect_async(struct mosquitto *mosq);
int lk_mosquitto_disconnect(struct mosquitto *mosq);
int lk_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                         int qos, bool retain);
int lk_mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets);
int lk_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded);
int lk_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
void lk_mosquitto_user_data_set(struct mosquitto *mosq, void *obj);
int lk_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                         const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
void lk_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
void lk_mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
int lk_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
void lk_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
#endif
