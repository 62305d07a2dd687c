/* Fusion patterns over a run's DAG: groups of nodes a library computes as one layer. */
#ifndef BENANZA_FUSION_H
#define BENANZA_FUSION_H

#include "layers.h"

/* Finds the fusion groups of RUN (computing nodes, each in at most one group), stores
 * them in run->groups and run->group[], and interns each group's fused layer. */
void fusion_find(struct layer_set *s, struct model_run *run, int run_index);

#endif
