/* The 4-D activations a channels-last layout plan may have to transpose, and their Transpose
 * layers (relayout.c). */
#ifndef BENANZA_RELAYOUT_H
#define BENANZA_RELAYOUT_H

#include "layers.h"

/* Records run->relayouts (in a topological order of their producers, graph inputs first) and
 * interns their Transposes, when the run has a layer with channels-last benchmarks. */
void relayout_find(struct layer_set *s, struct model_run *run, int run_index);

#endif
