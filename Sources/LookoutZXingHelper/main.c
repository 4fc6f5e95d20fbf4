// lookout-zxing: the process zxing-cpp reads in, started by Lookout (CZXing's worker), so that an
// assertion in zxing-cpp ends this helper and not the service. Not for users to run.
#include "CZXing.h"

int main(int argc, char **argv) { return lk_zx_worker_main(argc, argv); }
