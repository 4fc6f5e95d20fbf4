// zxing-cpp in a helper process per look (see CZXing.h): a worker started for one image and ended
// after it, so that an assertion in zxing-cpp costs that image only.
#include "CZXing.h"

extern "C" int lk_zxing_read_regions_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                              const lk_zx_region *regions, int region_count, int budget_ms,
                                              lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                              int timeout_ms, char *err, size_t err_len) {
    lk_zx_worker *worker = lk_zx_worker_create();
    if (!worker) return -1;
    int count = lk_zx_worker_read(worker, gray, width, height, stride, formats, regions, region_count, budget_ms,
                                  out, capacity, bytes, bytes_capacity, timeout_ms, err, err_len);
    lk_zx_worker_destroy(worker);
    return count;
}

extern "C" int lk_zxing_read_isolated(const unsigned char *gray, int width, int height, int stride, int formats,
                                      lk_zx_code *out, int capacity, unsigned char *bytes, int bytes_capacity,
                                      int timeout_ms, char *err, size_t err_len) {
    lk_zx_region whole = {0, 0, width, height, 1};
    return lk_zxing_read_regions_isolated(gray, width, height, stride, formats, &whole, 1, 0, out, capacity, bytes,
                                          bytes_capacity, timeout_ms, err, err_len);
}
