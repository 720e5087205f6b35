/* Loads a Windows build of the extension the way Godot does (LoadLibrary, then the entry symbol named in
 * the .gdextension) and says whether both worked. Built with mingw and run under Wine by
 * `cargo xtask test`: it proves the DLL's imports resolve on Windows, not only that it links. */
#include <stdio.h>
#include <windows.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        printf("usage: load_library.exe PATH.dll\n");
        return 2;
    }
    HMODULE lib = LoadLibraryA(argv[1]);
    if (lib == NULL) {
        printf("LoadLibrary(%s) failed: error %lu\n", argv[1], (unsigned long)GetLastError());
        return 1;
    }
    FARPROC init = GetProcAddress(lib, "gdext_rust_init");
    if (init == NULL) {
        printf("GetProcAddress(gdext_rust_init) failed: error %lu\n", (unsigned long)GetLastError());
        return 1;
    }
    printf("loaded %s: gdext_rust_init found\n", argv[1]);
    return 0;
}
