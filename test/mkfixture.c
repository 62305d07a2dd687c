/* mkfixture NAME OUT.onnx: writes one of the project's own fixture models (used by make demo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "onnx_fixtures.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkfixture NAME OUT.onnx\nfixtures:");
        for (int i = 0; i < FIXTURE_COUNT; i++)
            fprintf(stderr, " %s", fixture_name((enum fixture)i));
        fputc('\n', stderr);
        return 2;
    }
    int f = fixture_by_name(argv[1]);
    if (f < 0) {
        fprintf(stderr, "mkfixture: error: no fixture named '%s'\n", argv[1]);
        return 2;
    }
    uint8_t *data;
    size_t n = fixture_build((enum fixture)f, &data);
    int err = bz_write_file_atomic(argv[2], data, n);
    free(data);
    if (err) {
        fprintf(stderr, "%s: error: cannot write: %s\n", argv[2], strerror(err));
        return 5;
    }
    return 0;
}
