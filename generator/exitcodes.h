/* Exit statuses of gen (documented in docs/formats.md and gen --help). */
#ifndef BENANZA_EXITCODES_H
#define BENANZA_EXITCODES_H

enum bz_exit {
    BZ_EXIT_OK = 0,
    BZ_EXIT_USAGE = 2,       /* bad command line */
    BZ_EXIT_MODEL = 3,       /* a model could not be loaded (unreadable, not ONNX, inconsistent) */
    BZ_EXIT_TEMPLATE = 4,    /* a template error */
    BZ_EXIT_IO = 5,          /* a file other than a model could not be read or written */
    BZ_EXIT_UNSUPPORTED = 6, /* unsupported operators, with --strict */
    BZ_EXIT_INTERNAL = 70,   /* out of memory or a broken invariant */
};

#endif
