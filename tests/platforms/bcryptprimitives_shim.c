/* Wine 8 (Debian bookworm) has no bcryptprimitives.dll, which every Windows since 8.1 ships and Rust's
 * standard library imports for ProcessPrng (its random source since Rust 1.78). This stand-in, used only
 * for the Wine load check, answers ProcessPrng with RtlGenRandom so the check can load the extension;
 * real Windows uses its own DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32 */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, n)) {
            return FALSE;
        }
        data += n;
        length -= n;
    }
    return TRUE;
}
