#!/bin/sh
# The files `gen --types tf32,f16tc` must write, from the folder gen wrote without --types
# (test_cli.c, cuda_types_option): the tf32 and f16tc files; a layer's f32 files where it has
# no tf32 one, and its f16 files where it has no f16tc one (agg counts such a layer at the type
# its Tensor Core form falls back to); our kernels (.cu) in f32 and f16 (kernels follow their storage
# type). Prints them sorted, one per line.
#   test/oracle/cuda_types_expect.sh DIR/bench
ls "$1" | LC_ALL=C sort | awk '
{ split($0, a, "-"); lay[NR] = a[1]; ty[NR] = a[2]; name[NR] = $0; has[a[1], a[2]] = 1 }
END {
    for (i = 1; i <= NR; i++) {
        t = ty[i]; l = lay[i]; k = name[i] ~ /\.cu$/
        if (t == "tf32" || t == "f16tc" || (t == "f32" && (k || !has[l, "tf32"])) || (t == "f16" && (k || !has[l, "f16tc"])))
            print name[i]
    }
}'
