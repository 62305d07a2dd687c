/* RE2 patterns (RegexFullMatch) for the plain C benchmarks: a pattern is parsed once at
 * generation time into a POSIX extended regular expression that matches the same strings of
 * ASCII text (what the benchmark hands to regcomp) and into sample strings that match it (the
 * benchmark's data). The RE2 syntax taken: literals and escapes, '.', classes (ranges,
 * negation, \d \w \s and their negations, [:alpha:] and the other POSIX names), groups
 * ((...), (?:...), (?P<name>...), (?<name>...)), the flags i, s and U ((?i) and (?i:...)),
 * alternation, the quantifiers * + ? {n} {n,} {n,m} (lazy forms too: a full match does not
 * care), ^ and $. Anything else (backreferences do not exist in RE2; \b, \A, \z, \p{..},
 * \Q..\E, \x.., multi-line mode) is refused with the reason. */
#ifndef BENANZA_RE2POSIX_H
#define BENANZA_RE2POSIX_H

#include <stddef.h>

#include "base.h"

enum { RX_SAMPLES = 16 };

struct rx_result {
    struct bz_buf ere;           /* "^(...)$": the whole string must match */
    char *samples[RX_SAMPLES];   /* strings that match (printable ASCII), malloc'd */
    int nsamples;
};

/* Translates PATTERN (LEN bytes); 0, or -1 with the reason in WHY. Free with rx_free. */
int rx_translate(const char *pattern, size_t len, struct rx_result *out, char *why, size_t why_len);
void rx_free(struct rx_result *r);

#endif
