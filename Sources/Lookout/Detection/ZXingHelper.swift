import CZXing
#if canImport(Glibc)
import Glibc
#endif

/// The helper program zxing-cpp reads in (`lookout-zxing`): beside `lookout`, in `../lib/lookout/`
/// from it (/usr/lib/lookout), or named by `LOOKOUT_ZXING_HELPER`.
public enum ZXingHelper {
    /// Where workers are started from.
    public static var path: String { String(cString: lk_zx_helper_path()) }

    /// Why zxing-cpp cannot read (the helper is missing or not executable), in a sentence; nil
    /// when it can. Without it, PDF417, Aztec and DataMatrix are never found and the second look
    /// at a QR or EAN-13 code ZBar missed finds nothing: each look is counted in `zxing_failures`.
    public static let problem: String? = {
        let helper = ZXingHelper.path
        guard access(helper, X_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        return "zxing-cpp's helper \(helper) cannot be run (\(reason)): PDF417, Aztec and DataMatrix codes, and zxing's second look at QR and EAN-13 codes, are off; install it beside lookout or set LOOKOUT_ZXING_HELPER"
    }()
}
