/* gen --dump: a readable summary of a loaded model. */
#ifndef BENANZA_DUMP_H
#define BENANZA_DUMP_H

#include "ir.h"

/* Producer, IR version, opsets, inputs/outputs with shapes, op-type histogram
 * and the node list (subgraphs indented under their node). */
void dump_model(FILE *out, const struct ir_model *m);

#endif
