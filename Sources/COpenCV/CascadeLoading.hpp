// Loading and ownership of Haar cascades, shared by HaarCascade.cpp (detection) and
// CascadeSet.cpp (one parsed copy per thread for every detector with the same files).
#ifndef LOOKOUT_CASCADE_LOADING_HPP
#define LOOKOUT_CASCADE_LOADING_HPP
#include "COpenCV.h"

// Loads a cascade as lk_cascade_open does, without counting it as a detector: a thread's copy.
lk_cascade *lk_cascade_load(const char *path, char *err, size_t err_len);
// Deletes a copy from lk_cascade_load.
void lk_cascade_free(lk_cascade *cascade);
// Counts detectors open (a set is one however many threads hold a copy of it): with more than
// one, every detection runs on its own thread.
void lk_cascade_count_detectors(int change);
// Why the calling thread's last lk_cascade_set_cascade returned NULL.
const char *lk_cascade_set_load_error();
#endif
